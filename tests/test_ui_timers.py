"""No Textual timer gets a negative delay: a toast whose time ran out does not freeze the app.

A frozen app freezes its event loop (a loop without an `await`), and with it any test
run in that loop: the app runs in a process of its own, given a time to finish. And a
one-shot wait of a screen (`later`) keeps no ended app alive.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

from test_ui_support import FAST, screen_text, wait_for

from moon_tui.app import MoonApp
from moon_tui.lobby import Lobby
from moon_tui.ui.timers import MIN_DELAY, TimedNotification, later, timer_delay

TIMEOUT = 3.0
LATE = 0.0057
"""How late the toast was built, in the stack dump of the frozen server."""


def test_a_timer_delay_is_never_below_the_minimum() -> None:
    assert [timer_delay(s) for s in (-5.7, 0.0, float("nan"), 0.5)] == [
        MIN_DELAY, MIN_DELAY, MIN_DELAY, 0.5]
    expired = TimedNotification("hello", timeout=1.0, raised_at=time.time() - 2.0)
    assert expired.has_expired and expired.time_left == MIN_DELAY
    fresh = TimedNotification("hello", timeout=60.0)
    assert not fresh.has_expired and 59 < fresh.time_left <= 60


def _built_by_a_toast(frame: FrameType | None) -> bool:
    while frame is not None:
        owner = frame.f_locals.get("self")
        if frame.f_code.co_name == "__init__" and type(owner).__name__ == "Toast":
            return True
        frame = frame.f_back
    return False


async def late_toast() -> None:
    """A player's app shows a toast; between Textual's check that the notice has not
    expired and the toast reading its time left, the wall clock passes its end (as a
    collection pause or a clock step does). Prints "still running" if the app goes on."""
    import textual.notifications

    wall_clock = time.time
    toasts: list[float] = []
    """When each toast was built."""

    def clock() -> float:
        now = wall_clock()
        if _built_by_a_toast(sys._getframe(1)):
            toasts.append(now)
            return now + TIMEOUT + LATE
        return now

    textual.notifications.time = clock  # type: ignore[attr-defined]
    async with Lobby(FAST) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await wait_for(pilot, lambda: "new table" in screen_text(app), "the lobby")
            app.notify("the toast", timeout=TIMEOUT)
            await wait_for(pilot, lambda: bool(toasts), "the toast built")
            await wait_for(pilot, lambda: not app.screen.query("Toast"), "the toast gone")
            lobby_screen = app.screen
            await pilot.press("?")  # the help: the app still answers keys
            await wait_for(pilot, lambda: app.screen is not lobby_screen, "the help")
    print("still running", flush=True)


def test_a_toast_built_after_its_time_ran_out_does_not_freeze_the_app() -> None:
    tests = Path(__file__).resolve().parent
    script = ("import asyncio, sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; "
              "from test_ui_timers import late_toast; asyncio.run(late_toast())")
    try:
        done = subprocess.run([sys.executable, "-c", script, str(tests), str(tests.parent)],
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as frozen:
        raise AssertionError("the app froze on the late toast") from frozen
    assert "still running" in done.stdout, done.stdout + done.stderr


if __name__ == "__main__":
    asyncio.run(late_toast())


async def test_later_runs_once_as_a_message_can_be_called_off_and_holds_nothing() -> None:
    """`later` (the table screen's wait for the table to take a move): the method runs in
    the app's own task, a cancelled one never runs, and neither keeps the app alive."""
    import gc
    import weakref

    from textual.app import App

    class Counting(App[None]):
        runs = 0

        def count(self) -> None:
            assert asyncio.current_task() is not None
            self.runs += 1

    async def session() -> tuple[weakref.ref[Counting], asyncio.TimerHandle]:
        app = Counting()
        async with app.run_test() as pilot:
            later(0.05, app, app.count)
            called_off = later(0.05, app, app.count)
            called_off.cancel()
            await asyncio.sleep(0.3)
            await pilot.pause()
            assert app.runs == 1
            pending = later(60, app, app.count)  # still waiting when the app ends
        return weakref.ref(app), pending

    # In a task of its own: the app's context (Textual's `active_app`) ends with it.
    gone, pending = await asyncio.create_task(session())
    gc.collect()
    assert gone() is None
    pending.cancel()
