"""Bots by level name: the one place the lobby and the arena build computer players."""

from __future__ import annotations

from ..shown import brief
from .base import Bot, RandomBot
from .easy import EasyBot
from .expert import ExpertBot
from .heuristic import HeuristicBot

LEVELS = ("random", "easy", "normal", "expert")
ALIASES = {"heuristic": "normal"}


def make_bot(level: str, *, time_budget: float | None = None) -> Bot:
    """A bot of a level: `random`, `easy`, `normal` (alias `heuristic`) or `expert`.

    `time_budget` (seconds per decision, default 1.0) only matters to `expert`.
    """
    level = ALIASES.get(level, level)
    if level not in LEVELS:
        raise ValueError(f"unknown bot level: {brief(level)} (one of {', '.join(LEVELS)})")
    if level == "easy":
        return EasyBot()
    if level == "normal":
        return HeuristicBot()
    if level == "expert":
        return ExpertBot(time_budget=time_budget)
    return RandomBot()
