"""Delays handed to Textual's timers: never below `MIN_DELAY`, wherever they come from.

A Textual timer with a negative delay never fires and never yields: `Timer._run` keeps
skipping to a "next" tick that is always in the past, in a loop without an `await`.
The whole server froze on that (100% CPU, SIGTERM ignored): a toast's delay is the
wall-clock time its notice has left, read when the toast is built, a moment after Textual
checked that the notice had not expired; by then it had, by 5.7 ms. A delay of 0 fails
too (that loop divides by it). So every delay given to `set_timer` or `set_interval`
goes through `timer_delay`, and notifications are `TimedNotification`s, whose time left
is read through it.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Callable

from textual.message_pump import MessagePump
from textual.notifications import Notification

MIN_DELAY = 0.01
"""Seconds: the shortest delay a timer gets (a notice whose time ran out goes at once)."""


def timer_delay(seconds: float) -> float:
    """`seconds`, or `MIN_DELAY` when shorter (negative, zero, or not a number)."""
    return seconds if seconds >= MIN_DELAY else MIN_DELAY


class TimedNotification(Notification):
    """A notification whose time left, which Textual's toast hands to `set_timer`, is a
    timer's delay (`timer_delay`); whether it has expired still reads the clock as is."""

    @property
    def time_left(self) -> float:
        return timer_delay(self._time_left())

    @property
    def has_expired(self) -> bool:
        return self._time_left() <= 0

    def _time_left(self) -> float:
        left: float = Notification.time_left.fget(self)  # type: ignore[attr-defined]
        return left


def later(seconds: float, pump: MessagePump, method: Callable[[], object]) -> asyncio.TimerHandle:
    """Run `method` (one of `pump`'s own) once, as a message of `pump`, in `seconds`; cancel
    the handle to call it off. Unlike `set_timer`, it keeps no app alive after it ended: an
    asyncio timer keeps its context until its time comes, even cancelled, and an app's
    context holds the whole app (Textual's `active_app`). So it is made in an empty
    context and holds `pump` and `method` weakly."""
    target, call = weakref.ref(pump), weakref.WeakMethod(method)

    def fire() -> None:
        alive, bound = target(), call()
        if alive is not None and bound is not None and alive.is_running:
            alive.call_later(bound)

    return asyncio.get_running_loop().call_later(timer_delay(seconds), fire,
                                                 context=contextvars.Context())
