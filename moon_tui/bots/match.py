"""Playing whole games between bots: the loop the arena runs, with what it measures.

A game is fully determined by its deal seed (the first bidder and every shuffle) and its bot
seed (the bots' random generators), so a duplicated deal is the same deal seed played again
with the seats rotated.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules import GameState, Phase, Rules
from ..rules.record import record_of
from .base import Bot


@dataclass(slots=True)
class SeatStats:
    """What one seat did in one game."""

    won: bool = False
    points: int = 0
    hands: int = 0
    bids_attempted: int = 0
    bids_made: int = 0
    moons_tried: int = 0
    moons_made: int = 0
    decision_ms: list[float] = field(default_factory=list)
    unfinished: bool = False
    """The game reached the hand limit with no winner (nobody won: random play drifts
    below zero and may never reach the target)."""


@dataclass(slots=True)
class GameReport:
    """One finished game: per-seat figures, the winning side, and the `moon/1` record."""

    seats: list[SeatStats]
    winner: int | None
    """The winning side; None when the game stopped at the hand limit."""
    record: dict[str, Any]


MAX_HANDS = 500
"""Hands after which a game stops with no winner (random bids drift below zero for ever)."""


def play_game(rules: Rules, bots: Sequence[Bot], deal_seed: int, bot_seed: int,
              names: Sequence[str] | None = None, max_hands: int = MAX_HANDS,
              clock: Callable[[], float] = time.perf_counter) -> GameReport:
    """Play one game to its end, or until `max_hands` hands are over (then nobody won and
    the record is of a game in progress). Bots see only their own seat's view. Decision
    times are read on `clock` (wall time by default)."""
    n = rules.players
    if len(bots) != n:
        raise ValueError(f"a {n}-player game needs {n} bots, not {len(bots)}")
    deal_rng = random.Random(deal_seed)
    bot_rngs = [random.Random(bot_seed * 16 + s) for s in range(n)]
    state = GameState(rules, deal_rng.randrange(n))
    stats = [SeatStats() for _ in range(n)]
    while not state.is_terminal():
        if state.phase is Phase.DEAL:
            if len(state.logs) >= max_hands:
                break
            state.deal(deal_rng)
            continue
        seat = state.current_player()
        view = state.view(seat)
        start = clock()
        action = bots[seat].choose(view, bot_rngs[seat])
        stats[seat].decision_ms.append((clock() - start) * 1000.0)
        state.apply_action(action)
    for result in state.results:
        if result.declarer is None:
            continue
        d = stats[result.declarer]
        d.bids_attempted += 1
        d.bids_made += bool(result.made)
        if result.bid == 21:
            d.moons_tried += 1
            d.moons_made += bool(result.made)
        for seat in range(n):
            stats[seat].hands += 1
            stats[seat].points += result.points[rules.side_of(seat)]
    outcome = state.outcome()
    for seat in range(n):
        stats[seat].won = outcome is not None and rules.side_of(seat) == outcome.winner
        stats[seat].unfinished = outcome is None
    seat_names = list(names) if names is not None else [f"seat{s}" for s in range(n)]
    winner = None if outcome is None else outcome.winner
    return GameReport(stats, winner, record_of(state, seat_names))
