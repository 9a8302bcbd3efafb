"""A planned restart: everyone is told, again as it comes closer, then the server stops.

An operator starts one from the game (`restart 60 new version`, through the lobby's
`Restart` command), and `moon-server` starts one on SIGTERM when
`restart_countdown_seconds` is set. The server owns the countdown; the lobby only
carries the news to everyone (`Lobby.announce_restart`, a `RestartNotice` each app
words). At zero the server stops as on any stop (`MoonServer.stop`): every player reads
why, and the tables stay in the journal to come back when the server starts again. Who
then starts it again is the system's business (systemd's `Restart=`; see `cli.py` for
the exit status of an operator's restart).

Time comes from an injectable `Clock` (the lobby's protocol): a test moves it on by
hand, and no test waits for a countdown.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable

from moon_tui.lobby import Clock, LoopClock, Timer

log = logging.getLogger(__name__)

MARKS = (1800, 900, 600, 300, 120, 60, 30, 10, 5)
"""Seconds before the restart at which the notice is repeated (and at the start)."""


class RestartCountdown:
    """One countdown at a time: `start` (again: replaces it), `cancel`, then `stop()`."""

    def __init__(
        self,
        announce: Callable[[int | None, str, str], None],
        stop: Callable[[], Awaitable[None]],
        clock: Clock | None = None,
    ) -> None:
        """`announce(seconds, message, by)` tells everyone (None: called off); `stop()`
        stops the server when the countdown ends."""
        self._announce = announce
        self._stop = stop
        self.clock: Clock = clock if clock is not None else LoopClock()
        """Whose time the countdown runs on (tests set a manual clock before starting)."""
        self._timers: list[Timer] = []
        self._deadline: float | None = None
        self.by = ""
        """Who asked for the countdown running: an operator's name, or "" for the system."""
        self.message = ""
        self.ended_by: str | None = None
        """Set when a countdown ended in a stop: who had asked for it."""
        self.stopping: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._deadline is not None

    def remaining(self) -> float | None:
        """Seconds left, None when no countdown runs."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - self.clock.now())

    def start(self, seconds: float, message: str = "", by: str = "") -> None:
        """Count down from `seconds` (replacing a countdown already running), telling
        everyone now and at each of `MARKS` on the way."""
        self._forget()
        seconds = max(0.0, seconds)
        self._deadline = self.clock.now() + seconds
        self.by, self.message = by, message
        log.info("restart in %g s, asked by %s%s", seconds, by or "the system",
                 f": {message}" if message else "")
        self._tell(round(seconds))
        for mark in MARKS:
            if mark < seconds:
                self._timers.append(
                    self.clock.call_later(seconds - mark, functools.partial(self._tell, mark)))
        self._timers.append(self.clock.call_later(seconds, self._end))

    def cancel(self, by: str = "") -> bool:
        """Call the countdown off and tell everyone; False when none was running."""
        if self._deadline is None:
            return False
        self._forget()
        log.info("restart called off by %s", by or "the system")
        self._announce(None, "", by)
        return True

    def forget(self) -> None:
        """Drop the countdown without a word (the server is stopping anyway)."""
        self._forget()

    def _forget(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        self._deadline = None

    def _tell(self, seconds: int) -> None:
        self._announce(seconds, self.message, self.by)

    def _end(self) -> None:
        by = self.by
        self._forget()
        self.ended_by = by
        log.info("restart: the countdown has ended, stopping")
        # An empty context: made from a clock's callback, the task must not carry an app.
        self.stopping = asyncio.get_running_loop().create_task(
            self._stop_quietly(), name="moon-restart", context=contextvars.Context())

    async def _stop_quietly(self) -> None:
        try:
            await self._stop()
        except Exception:
            log.exception("the restart could not stop the server")
