"""The computer players of one table, thinking off the event loop.

A bot chooses from the seat's view only (never the full state). The lobby's `BotPool`
takes the decision: the quick levels at once, the searching ones in a worker process, so
a searching bot does not hold up the other tables. The choice comes back to the table's
inbox as `BotMoved`, numbered with the clock generation it was asked in; the table stays
the only writer of its game.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from ..bots import RandomBot
from ..bots.pool import BotPool
from ..rules import SeatView
from .internal import BotMoved, TableMessage

log = logging.getLogger(__name__)


class Computers:
    def __init__(self, table_id: str, time_budget: float, seed: int,
                 post: Callable[[TableMessage], None], bots: BotPool) -> None:
        self._table_id = table_id
        self._time_budget = time_budget
        self._rng = random.Random(seed)
        self._post = post
        self._bots = bots

    async def choose(self, generation: int, seat: int, level: str, view: SeatView,
                     stand_in: bool) -> None:
        """Choose `seat`'s move as a computer of `level` would, and post it to the table.

        A bot that fails or answers an illegal move is logged, and a random legal move is
        played instead: a bug in a bot must not stop a game. (A worker process that dies
        or hangs is the pool's to handle: the heuristic decides that move.)"""
        rng = self._rng
        try:
            action = await self._bots.choose(view, level, budget=self._time_budget,
                                             seed=rng.getrandbits(32))
            if action not in view.legal:
                raise ValueError(f"the {level} bot chose {action}, not a legal action")
        except Exception:
            log.exception("table %s: the %s bot failed at seat %d; playing at random",
                          self._table_id, level, seat)
            action = RandomBot().choose(view, rng)
        self._post(BotMoved(generation, seat, action, stand_in))
