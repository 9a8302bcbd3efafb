"""A table's clocks: when a turn runs out and what the seat to move waits on (pure
helpers the core calls), and the timers the shell sets for it (`TableTimers`).

At any moment the game waits on at most one thing: a computer's pause and then its
thinking, a player's turn timer, or the pause before the next deal. The core numbers each
new wait (its *generation*) and puts the number in the message the wait delivers; it
ignores a message whose generation is no longer current, so a late timer never acts on a
newer state. Grace periods run beside it, one per away player.

Time comes from an injected `Clock` (`clock.py`): tests move it forward by hand. The core
never reads it: the shell hands it `now` with each message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..rules import GameState
from .clock import Clock, Timer
from .config import LobbyConfig
from .internal import TableMessage, nowhere

Waits = tuple[float | None, float | None]
"""What the seat to move waits on, in seconds left: its turn timer, the reconnect wait."""


def turn_end(started: float | None, seconds: int | None, scale: float) -> float | None:
    """When the turn timer of the seat to move runs out (None: the table has none, or it
    has not started)."""
    if seconds is None or started is None:
        return None
    return started + seconds * scale


def waits(now: float, turn_end: float | None, back_by: float | None) -> Waits:
    """Seconds left on the turn timer and on the wait for a dropped player to come back
    (no longer than the turn timer)."""
    turn_left = None if turn_end is None else max(0.0, turn_end - now)
    back_left = None if back_by is None or back_by <= now else back_by - now
    if back_left is not None and turn_left is not None:
        back_left = min(back_left, turn_left)
    return (turn_left, back_left)


def computer_delay(config: LobbyConfig, state: GameState) -> float:
    """How long a computer waits before its move: `bot_delay`, and when it leads a new
    trick at least `trick_pause`, so everyone sees the trick just taken."""
    trick = state.current_trick
    if trick is not None and not trick.plays and state.tricks:
        return max(config.bot_delay, config.trick_pause)
    return config.bot_delay


class TableTimers:
    """The shell's timers for one table. Every callback only posts a message to it."""

    def __init__(self, clock: Clock, post: Callable[[TableMessage], None]) -> None:
        self.clock = clock
        self._post = post
        self._timer: Timer | None = None
        self._work: asyncio.Task[None] | None = None
        self._grace: dict[str, Timer] = {}

    def now(self) -> float:
        return self.clock.now()

    def wait(self, seconds: float, message: TableMessage) -> None:
        """Post `message` after `seconds` (at once for 0), instead of the wait before."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if seconds > 0:
            self._timer = self.clock.call_later(seconds, lambda: self._post(message))
        else:
            self._post(message)

    def work(self, task: asyncio.Task[None]) -> None:
        """Wait on `task` (a computer thinking): cancelled by the next `stop_waiting`."""
        if self._work is not None:
            self._work.cancel()
        self._work = task

    def stop_waiting(self) -> None:
        """Call off the wait and the thinking."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._work is not None:
            self._work.cancel()
            self._work = None

    def grace(self, name: str, seconds: float, message: TableMessage) -> None:
        """`name` went away: post `message` after `seconds`, unless `end_grace` first."""
        self.end_grace(name)
        self._grace[name] = self.clock.call_later(seconds, lambda: self._post(message))

    def end_grace(self, name: str) -> None:
        timer = self._grace.pop(name, None)
        if timer is not None:
            timer.cancel()

    def stop(self) -> None:
        """Stop every timer (the table is closing)."""
        self.stop_waiting()
        for timer in self._grace.values():
            timer.cancel()
        self._grace.clear()

    def close(self) -> None:
        """Stop every timer and post nothing more: the table has closed. Its `post` leads
        back to the table, a reference cycle that would keep the closed table and its
        game for the garbage collector (which may never look: `server/memory.py`)."""
        self.stop()
        self._post = nowhere
