"""Bots by level name: the one place the lobby and the arena build computer players."""

from __future__ import annotations

from .base import Bot, RandomBot

LEVELS = ("random", "easy", "normal", "expert")


def make_bot(level: str, *, time_budget: float | None = None) -> Bot:
    """A bot of a level: `random`, `easy`, `normal` or `expert`.

    `time_budget` (seconds per decision) only matters to the levels that search.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level: {level!r} (one of {', '.join(LEVELS)})")
    return RandomBot()
