"""A table's clocks on a clock the test moves: a replaced wait never fires."""

from __future__ import annotations

from manual_clock import ManualClock

from moon_tui.lobby.clocks import TableClocks
from moon_tui.lobby.internal import DealNow, GraceOver, TableMessage, TimerRanOut


def test_only_the_current_wait_fires_and_grace_periods_run_beside_it() -> None:
    clock = ManualClock()
    posted: list[TableMessage] = []
    clocks = TableClocks(clock, posted.append)
    first = clocks.restart()
    clocks.post_after(10, TimerRanOut(first, 1))
    clock.advance(5)
    since = clocks.start_grace("bob", 30)
    second = clocks.restart()  # the turn was played: its timer must not fire
    clocks.post_after(2, DealNow(second))
    clock.advance(10)
    assert posted == [DealNow(second)]
    assert clocks.is_current(second) and not clocks.is_current(first)
    clock.advance(25)
    assert posted[-1] == GraceOver("bob", since) and since == 5
    clocks.start_grace("cy", 30)
    clocks.end_grace("cy")
    clocks.post_after(1, DealNow(second))
    clocks.stop()
    clock.advance(100)
    assert len(posted) == 2 and clock.pending() == 0
