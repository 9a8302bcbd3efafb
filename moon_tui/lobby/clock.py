"""Time as the tables see it: what time it is, and a call back later. Injectable.

A table never sleeps: each of its clocks (`clocks.py`) asks a `Clock` to call back later,
and the callback posts a message to the table's inbox. The server uses `LoopClock`, the
event loop's own time; a test hands the lobby a clock it moves forward itself, so a turn
timer of two minutes runs out at once and no test waits for the wall clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A call that `Clock.call_later` scheduled; cancelling it twice is harmless."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Call `callback()` on the event loop `delay` seconds from now."""
        ...


class LoopClock:
    """The running event loop's clock: real time."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, delay), callback)
