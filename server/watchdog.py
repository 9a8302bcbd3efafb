"""Noticing an event loop that stopped turning, from outside it.

`load.py` measures stalls from inside the loop: a loop that never returns (a Textual
timer spinning on a negative delay froze a whole server at 100% CPU, with no log line
and SIGTERM ignored) measures nothing. Here the loop only stamps a heartbeat every
`PERIOD`; a thread of its own looks at it, and when no beat came for `seconds` it logs
an error with the stack of the loop's thread (where it is stuck: the useful part), once
per stall, and a line when the loop turns again.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import traceback

log = logging.getLogger(__name__)


class LoopWatchdog:
    """`start()` in the loop to watch; `stop()` there too. `seconds` <= 0: off."""

    PERIOD = 0.25
    """Seconds between the loop's heartbeats."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.stalls = 0
        """Stalls noticed so far."""
        self._beat = time.monotonic()
        self._loop_thread = 0
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.seconds <= 0:
            return
        self._loop_thread = threading.get_ident()
        self._beat = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._heartbeat(),
                                                            name="moon-heartbeat")
        self._thread = threading.Thread(target=self._watch, name="moon-watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._task is not None:
            self._task.cancel()
        if self._thread is not None:
            self._thread.join(timeout=5)

    async def _heartbeat(self) -> None:
        while True:
            self._beat = time.monotonic()
            await asyncio.sleep(self.PERIOD)

    def _watch(self) -> None:
        stalled_since: float | None = None
        while not self._stopped.wait(min(self.PERIOD, self.seconds / 4)):
            beat = self._beat
            silent = time.monotonic() - beat
            if stalled_since is None and silent > self.seconds:
                stalled_since = beat
                self.stalls += 1
                log.error("the event loop has not turned for %.1f s (every player is "
                          "frozen); it is here:\n%s", silent, self._loop_stack())
            elif stalled_since is not None and beat > stalled_since:
                log.warning("the event loop turns again after %.1f s",
                            beat - stalled_since)
                stalled_since = None

    def _loop_stack(self) -> str:
        frame = sys._current_frames().get(self._loop_thread)
        if frame is None:
            return "(the loop's thread is gone)"
        return "".join(traceback.format_stack(frame)).rstrip()
