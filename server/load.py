"""Telling the operators when the server has more players than it can serve briskly.

One process draws every player's screen (README, Capacity): past what its core can
carry, keys wait behind other players' screens and the event loop falls behind. The
watch wakes every `PERIOD` and notes how late it woke. When the loop fell behind by over
`STALL` at least `STALLS` times within `window`, the operators' screen says so in plain
words with the figures, and the log says so once. The alarm ends when a whole `window`
passes without such a stall (one stall, a memory reclaim say, is no alarm).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable

from moon_tui.services import Busy, BusyAdvice, LoadFacts
from moon_tui.ui.alarm_words import busy_words

log = logging.getLogger(__name__)


class LoadWatch:
    """Run `run()` as a task; it calls `raise_alarm(busy)` while busy, `clear_alarm()`
    when no longer. `players()`: how many are connected; `strangers()`: connections
    not playing (logging in now, or closed without logging in lately). Both choose the
    advice: "fewer players" only fits a server busy with its players (issue 36: a
    flood of connections with one player on was told to run fewer players)."""

    PERIOD = 0.05
    STALL = 0.1
    STALLS = 3
    WINDOW = 60.0
    FLOOD = 50
    """Connections not playing, past which (and past the players) the advice is a flood."""
    OWN_SHARE = 0.5
    """Share of a core below which the server is not what keeps the host busy."""
    FEW_PLAYERS = 20
    """Players below which they are not what keeps the server busy."""

    def __init__(self, raise_alarm: Callable[[Busy], None], clear_alarm: Callable[[], None],
                 players: Callable[[], int], *, window: float = WINDOW,
                 strangers: Callable[[], int] = lambda: 0) -> None:
        self._raise_alarm = raise_alarm
        self._clear_alarm = clear_alarm
        self._players = players
        self._strangers = strangers
        self.window = window
        self.busy = False
        self._stalls: deque[tuple[float, float]] = deque()
        """(when, seconds late) of each stall within the window, oldest first."""
        self._cpu: deque[tuple[float, float]] = deque()
        """(when, the process's CPU seconds) about once a second, over the window."""

    @property
    def stalls(self) -> int:
        """Stalls noted within the window."""
        return len(self._stalls)

    async def run(self) -> None:
        while True:
            began = time.monotonic()
            await asyncio.sleep(self.PERIOD)
            now = time.monotonic()
            self.note(now - began - self.PERIOD, now, time.process_time())

    def note(self, late: float, now: float, cpu: float) -> None:
        """The loop woke `late` seconds late at `now`; `cpu`: the process's CPU time."""
        stalls, samples = self._stalls, self._cpu
        if not samples or now - samples[-1][0] >= 1.0:
            samples.append((now, cpu))
        while len(samples) > 2 and samples[1][0] <= now - self.window:
            samples.popleft()
        stalled = late > self.STALL
        if stalled:
            stalls.append((now, late))
        while stalls and stalls[0][0] < now - self.window:
            stalls.popleft()
        if not self.busy and len(stalls) >= self.STALLS:
            self.busy = True
            log.warning("busy: %s", busy_words(self._busy()))
        elif self.busy and not stalls:
            self.busy = False
            self._clear_alarm()
            log.info("no longer busy: no stall over %.0f ms in %.0f s",
                     self.STALL * 1000, self.window)
            return
        if self.busy and stalled:
            self._raise_alarm(self._busy())

    def _share(self) -> float:
        """The share of a core the process used over the window."""
        if not self._cpu:
            return 0.0
        (since, cpu_then), (now, cpu_now) = self._cpu[0], self._cpu[-1]
        return (cpu_now - cpu_then) / (now - since) if now > since else 0.0

    def figures(self) -> LoadFacts:
        """The alarm's figures as they stand (the operators' dashboard shows them)."""
        return LoadFacts(players=self._players(), cpu_share=self._share(),
                         stalls=len(self._stalls),
                         longest_ms=max((late for _, late in self._stalls), default=0.0)
                         * 1000, stall_ms=self.STALL * 1000, window_seconds=self.window,
                         busy=self.busy)

    def _busy(self) -> Busy:
        facts, strangers = self.figures(), self._strangers()
        return Busy(facts, strangers, busy_advice(facts.players, facts.cpu_share, strangers))


def busy_advice(players: int, share: float, strangers: int) -> BusyAdvice:
    """What to do about a busy server, from its figures: "fewer players" only fits a
    server busy with its players."""
    if strangers >= max(LoadWatch.FLOOD, players):
        return BusyAdvice.FLOOD
    if share < LoadWatch.OWN_SHARE:
        return BusyAdvice.HOST
    if players < LoadWatch.FEW_PLAYERS:
        return BusyAdvice.FEW_PLAYERS
    return BusyAdvice.FEWER_PLAYERS
