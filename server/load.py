"""Telling the operators when the server has more players than it can serve briskly.

One process draws every player's screen (README, Capacity): past what its core can
carry, keys wait behind other players' screens and the event loop falls behind. The
watch wakes every `PERIOD` and notes how late it woke. When the loop fell behind by over
`STALL` at least `STALLS` times within `window`, the operators' screen says so in plain
words with the figures, and the log says so once. The alarm ends when a whole `window`
passes without such a stall (one stall, a memory reclaim say, is no alarm).

The advice tells the server's own work from a host that did not let it run by the CPU
the process used during each stall, not by its average over the window: a server at a
fifth of its core whose loop its own bursts held (a memory reclaim as the last players
left) was told that something else on the host took the CPU.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

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
    """Share of the CPU below which the server is not what kept it busy: during the
    stalls (something else on the host ran), or on the whole (its own work came in
    bursts)."""
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
        self._stalls: deque[Stall] = deque()
        """Each stall within the window, oldest first."""
        self._cpu: deque[tuple[float, float]] = deque()
        """(when, the process's CPU seconds) about once a second, over the window."""
        self._last: tuple[float, float] | None = None
        """(when, the process's CPU seconds) at the last note."""

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
        last, self._last = self._last, (now, cpu)
        stalled = late > self.STALL
        if stalled:
            since, cpu_then = last if last is not None else (now, cpu)
            stalls.append(Stall(now, late, now - since, cpu - cpu_then))
        while stalls and stalls[0].at < now - self.window:
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

    def _stalls_cpu_share(self) -> float:
        """The share of the stalls' time in which the process used the CPU (1 when
        nothing says otherwise: a stall at the first note)."""
        took = sum(stall.between for stall in self._stalls)
        used = sum(stall.cpu for stall in self._stalls)
        return min(1.0, used / took) if took > 0 else 1.0

    def figures(self) -> LoadFacts:
        """The alarm's figures as they stand (the operators' dashboard shows them)."""
        return LoadFacts(players=self._players(), cpu_share=self._share(),
                         stalls=len(self._stalls),
                         longest_ms=max((stall.late for stall in self._stalls), default=0.0)
                         * 1000, stall_ms=self.STALL * 1000, window_seconds=self.window,
                         busy=self.busy, stalls_cpu_share=self._stalls_cpu_share())

    def _busy(self) -> Busy:
        facts, strangers = self.figures(), self._strangers()
        return Busy(facts, strangers, busy_advice(facts, strangers))


@dataclass(frozen=True, slots=True)
class Stall:
    """The loop woke `late` seconds late at `at`; since the note before (`between`
    seconds earlier) the process used `cpu` seconds of CPU."""

    at: float
    late: float
    between: float
    cpu: float


def busy_advice(facts: LoadFacts, strangers: int) -> BusyAdvice:
    """What to do about a busy server, from its figures: "fewer players" only fits a
    server busy with its players, "something else on the host" one that hardly ran
    while its loop fell behind."""
    if strangers >= max(LoadWatch.FLOOD, facts.players):
        return BusyAdvice.FLOOD
    if facts.stalls_cpu_share < LoadWatch.OWN_SHARE:
        return BusyAdvice.HOST
    if facts.players < LoadWatch.FEW_PLAYERS:
        return BusyAdvice.FEW_PLAYERS
    if facts.cpu_share < LoadWatch.OWN_SHARE:
        return BusyAdvice.BURSTS
    return BusyAdvice.FEWER_PLAYERS
