"""A table's timers on a clock the test moves: a replaced wait never fires."""

from __future__ import annotations

from manual_clock import ManualClock

from moon_tui.lobby.clocks import TableTimers, waits
from moon_tui.lobby.internal import DealNow, GraceOver, TableMessage, TimerRanOut


def test_only_the_current_wait_fires_and_grace_periods_run_beside_it() -> None:
    clock = ManualClock()
    posted: list[TableMessage] = []
    timers = TableTimers(clock, posted.append)
    timers.wait(10, TimerRanOut(1, 1))
    clock.advance(5)
    timers.grace("bob", 30, GraceOver("bob", 5))
    timers.wait(2, DealNow(2))  # the turn was played: its timer must not fire
    clock.advance(10)
    assert posted == [DealNow(2)]
    clock.advance(25)
    assert posted[-1] == GraceOver("bob", 5)
    timers.grace("cy", 30, GraceOver("cy", 40))
    timers.end_grace("cy")
    timers.wait(1, DealNow(3))
    timers.stop()
    clock.advance(100)
    assert len(posted) == 2 and clock.pending() == 0
    timers.wait(0, DealNow(4))
    assert posted[2:] == [DealNow(4)], "a wait of no time posts at once"


def test_the_reconnect_wait_shown_never_outlasts_the_turn_timer() -> None:
    assert waits(10.0, None, None) == (None, None)
    assert waits(10.0, 40.0, 20.0) == (30.0, 10.0)
    assert waits(10.0, 15.0, 20.0) == (5.0, 5.0)
    assert waits(10.0, 5.0, 8.0) == (0.0, None), "run out, and back-by passed"
