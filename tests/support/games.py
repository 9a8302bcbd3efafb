"""Finished game records made on the spot, for the ratings' tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from moon_tui.rules import Rules, record_of
from moon_tui.rules.cli import random_game


def finished_record(names: Sequence[str], seed: int, *, rated: bool = True,
                    target: int = 10, **changes: Any) -> dict[str, Any]:
    """The record of a whole game of random legal decisions between `names` (3 or 4),
    marked rated as a rated table marks it; `changes` are added to the record as they are
    (e.g. `seat_changes`)."""
    rules = Rules.make(players=len(names), target=target)
    rng = random.Random(seed)
    state = random_game(rules, rng, hands=60)
    while not state.is_terminal():  # random play may wander below zero for long
        state = random_game(rules, rng, hands=60)
    record = record_of(state, list(names))
    if rated:
        record["rated"] = True
    record.update(changes)
    return record
