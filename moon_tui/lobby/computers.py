"""The computer players of one table: the quick ones decide at once, the searching ones
in the lobby's `BotPool` (worker processes), off the event loop.

A bot chooses from the seat's view only (never the full state). The quick levels (a bot
per seat and level, the table's random generator) decide in well under a millisecond, in
this process; a searching bot thinks in a worker process, so it does not hold up the
other tables. The choice comes back to the table's inbox as `BotMoved`, numbered with the
clock generation it was asked in; the table stays the only writer of its game.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from ..bots import Bot, RandomBot, make_bot
from ..bots.claim import PROOF_SECONDS, ClaimProof
from ..bots.pool import GRACE, INSTANT_LEVELS, BotPool, WorkerLost
from ..bots.registry import ALIASES
from ..rules import SeatView
from .internal import BotMoved, ClaimChecked, TableMessage, nowhere

log = logging.getLogger(__name__)


class Computers:
    def __init__(self, table_id: str, time_budget: float, seed: int,
                 post: Callable[[TableMessage], None], bots: BotPool) -> None:
        self._table_id = table_id
        self._time_budget = time_budget
        self._rng = random.Random(seed)
        self._post = post
        self._pool = bots
        self._bots: dict[tuple[int, str], Bot] = {}

    def close(self) -> None:
        """The table has closed: a move still being chosen goes nowhere, and the table
        (whose `post` this holds) is freed at once (see `TableClocks.close`)."""
        self._post = nowhere
        self._bots.clear()

    def _bot(self, seat: int, level: str) -> Bot:
        key = (seat, level)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = make_bot(level)
        return bot

    async def choose(self, generation: int, seat: int, level: str, view: SeatView,
                     stand_in: bool) -> None:
        """Choose `seat`'s move as a computer of `level` would, and post it to the table.

        A bot that fails or answers an illegal move is logged, and a random legal move is
        played instead: a bug in a bot must not stop a game. (A worker process that dies
        or hangs is the pool's to handle: the heuristic decides that move.)"""
        rng = self._rng
        try:
            if ALIASES.get(level, level) in INSTANT_LEVELS:
                action = self._bot(seat, level).choose(view, rng)
            else:
                action = await self._pool.choose(view, level, budget=self._time_budget,
                                                 seed=rng.getrandbits(32))
            if action not in view.legal:
                raise ValueError(f"the {level} bot chose {action}, not a legal action")
        except Exception:
            log.exception("table %s: the %s bot failed at seat %d; playing at random",
                          self._table_id, level, seat)
            action = RandomBot().choose(view, rng)
        self._post(BotMoved(generation, seat, action, stand_in))

    async def prove(self, generation: int, proof: ClaimProof) -> None:
        """Prove a claim in a worker process (the search can take a while, see
        `bench/claim.py`) and post the answer; a proof that fails or runs out of time
        proves nothing, and the game goes on."""
        try:
            plays = await self._pool.run_task(proof, PROOF_SECONDS + GRACE)
            checked = plays != ()  # () : out of time
        except (WorkerLost, OSError, RuntimeError) as exc:
            log.warning("table %s: the claim of seat %d could not be checked: %s",
                        self._table_id, proof.seat, exc)
            plays, checked = None, False
        self._post(ClaimChecked(generation, proof.seat, plays or (), checked))
