"""The computer players of one table: a bot per seat and level, thinking off the loop.

A bot chooses from the seat's view only (never the full state), in a worker thread so a
searching bot does not hold up the other tables; its choice comes back to the table's
inbox as `BotMoved`, numbered with the clock generation it was asked in.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable

from ..bots import Bot, RandomBot, make_bot
from ..rules import SeatView
from .internal import BotMoved, TableMessage

log = logging.getLogger(__name__)


class Computers:
    def __init__(self, table_id: str, time_budget: float, seed: int,
                 post: Callable[[TableMessage], None]) -> None:
        self._table_id = table_id
        self._time_budget = time_budget
        self._rng = random.Random(seed)
        self._post = post
        self._bots: dict[tuple[int, str], Bot] = {}

    def _bot(self, seat: int, level: str) -> Bot:
        key = (seat, level)
        bot = self._bots.get(key)
        if bot is None:
            bot = make_bot(level, time_budget=self._time_budget)
            self._bots[key] = bot
        return bot

    async def choose(self, generation: int, seat: int, level: str, view: SeatView,
                     stand_in: bool) -> None:
        """Choose `seat`'s move as a computer of `level` would, and post it to the table.

        A bot that fails or answers an illegal move is logged, and a random legal move is
        played instead: a bug in a bot must not stop a game."""
        bot = self._bot(seat, level)
        rng = self._rng
        try:
            action = await asyncio.to_thread(bot.choose, view, rng)
            if action not in view.legal:
                raise ValueError(f"{bot.name} chose {action}, not a legal action")
        except Exception:
            log.exception("table %s: the %s bot failed at seat %d; playing at random",
                          self._table_id, bot.name, seat)
            action = RandomBot().choose(view, rng)
        self._post(BotMoved(generation, seat, action, stand_in))
