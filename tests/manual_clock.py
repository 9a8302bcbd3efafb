"""A clock for the lobby's tables that only moves when a test says so.

Pass it as `Lobby(..., clock=ManualClock())`; `advance(seconds)` runs, in order, every
call that falls due, so a two-minute turn timer runs out at once and no test sleeps.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(order=True)
class _Call:
    when: float
    order: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    def __init__(self) -> None:
        self._now = 0.0
        self._calls: list[_Call] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Call:
        call = _Call(self._now + max(0.0, delay), next(self._order), callback)
        heapq.heappush(self._calls, call)
        return call

    def pending(self) -> int:
        """Calls still to come."""
        return sum(1 for call in self._calls if not call.cancelled)

    def next_in(self) -> float | None:
        """Seconds until the next call still to come (None: nothing is waited on)."""
        due = [call.when for call in self._calls if not call.cancelled]
        return min(due) - self._now if due else None

    def advance(self, seconds: float) -> None:
        """Move time on by `seconds`, making every call that falls due on the way."""
        end = self._now + seconds
        while self._calls and self._calls[0].when <= end:
            call = heapq.heappop(self._calls)
            self._now = call.when
            if not call.cancelled:
                call.callback()
        self._now = end
