"""A table's clocks: the one thing its game waits on, and each away player's grace period.

At any moment the game waits on at most one thing: a computer's pause and then its
thinking, a player's turn timer, or the pause before the next deal. `wait` replaces
whatever was waited on and numbers the new wait (its *generation*); when the time comes
a message carrying that number is posted to the table's inbox, and the table ignores a
message whose generation is no longer current, so a late timer never acts on a newer
state. Grace periods run beside it, one per away player.

Time comes from an injected `Clock` (`clock.py`): tests move it forward by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from .clock import Clock, Timer
from .internal import GraceOver, TableMessage, nowhere


class TableClocks:
    """The waits of one table. Every callback only posts a message to its inbox."""

    def __init__(self, clock: Clock, post: Callable[[TableMessage], None]) -> None:
        self.clock = clock
        self._post = post
        self.generation = 0
        self._timer: Timer | None = None
        self._work: asyncio.Task[None] | None = None
        self._grace: dict[str, Timer] = {}

    def now(self) -> float:
        return self.clock.now()

    def is_current(self, generation: int) -> bool:
        return generation == self.generation

    def restart(self) -> int:
        """Stop waiting on anything; the number of the next wait."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._work is not None:
            self._work.cancel()
            self._work = None
        self.generation += 1
        return self.generation

    def post_after(self, seconds: float, message: TableMessage) -> None:
        """Wait `seconds`, then post `message` (made with the current generation)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.clock.call_later(seconds, lambda: self._post(message))

    def work(self, task: asyncio.Task[None]) -> None:
        """Wait on `task` (a computer thinking): cancelled by the next `restart`."""
        if self._work is not None:
            self._work.cancel()
        self._work = task

    # -- grace periods -------------------------------------------------------------------
    def start_grace(self, name: str, seconds: float) -> float:
        """`name` went away: post `GraceOver` after `seconds`. Returns when they left."""
        self.end_grace(name)
        since = self.clock.now()
        self._grace[name] = self.clock.call_later(
            seconds, lambda: self._post(GraceOver(name, since)))
        return since

    def end_grace(self, name: str) -> None:
        timer = self._grace.pop(name, None)
        if timer is not None:
            timer.cancel()

    def stop(self) -> None:
        """Stop every clock (the table is closing)."""
        self.restart()
        for timer in self._grace.values():
            timer.cancel()
        self._grace.clear()

    def close(self) -> None:
        """Stop every clock and post nothing more: the table has closed. Its `post` is
        the table's own method, a reference cycle that would keep the closed table and
        its game for the garbage collector (which may never look: `server/memory.py`)."""
        self.stop()
        self._post = nowhere
