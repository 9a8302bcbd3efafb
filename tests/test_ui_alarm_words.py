"""The operators' alarms in words: every alarm the server raises reads as a sentence,
and what came from elsewhere (a name, the database's own words) is plain and bounded."""

from __future__ import annotations

import dataclasses

import pytest

from moon_tui.services import (
    Alarm,
    BanNotSaved,
    Busy,
    BusyAdvice,
    DatabaseFailed,
    DatabaseStep,
    LoadFacts,
    RaisedAlarm,
    RecordsWaiting,
    TablesWaiting,
)
from moon_tui.ui.alarm_words import ERROR_SHOWN_MAX, alarm_words, raised_words
from moon_tui.ui.plain import QUOTED_MAX

HOSTILE = "[b]x\x1b[2J\n" + "y" * 500
LOAD = LoadFacts(players=250, cpu_share=0.95, stalls=4, longest_ms=310.0, stall_ms=100.0,
                 window_seconds=60.0, busy=True)
ALARMS: list[Alarm] = [
    *(Busy(LOAD, 3000, advice) for advice in BusyAdvice),
    Busy(LOAD, 0, BusyAdvice.FEWER_PLAYERS, worker=HOSTILE),
    *(DatabaseFailed(step, HOSTILE) for step in DatabaseStep),
    BanNotSaved(False, HOSTILE, HOSTILE),
    BanNotSaved(True, "mallory", "disk full"),
    RecordsWaiting(3, 200, 60.0, HOSTILE),
    TablesWaiting(0, HOSTILE),
    TablesWaiting(2, "disk full"),
]


@pytest.mark.parametrize("alarm", ALARMS, ids=lambda alarm: type(alarm).__name__)
def test_every_alarm_is_a_plain_sentence(alarm: Alarm) -> None:
    said = alarm_words(alarm)
    assert said[0].isalnum() and said.endswith("."), said
    assert said.isprintable(), "no escape, no newline"
    if HOSTILE in dataclasses.astuple(alarm):
        assert "[b]x" in said, "quoted as it came: the screen shows it as plain text"
    assert "y" * (max(ERROR_SHOWN_MAX, QUOTED_MAX) + 1) not in said


def test_the_busy_alarm_gives_the_figures_and_the_advice_chosen() -> None:
    said = alarm_words(Busy(LOAD, 3000, BusyAdvice.FLOOD, worker="w2"))
    assert said.startswith("Worker w2 is busy: in the last minute its event loop fell behind "
                           "4 times by over 100 ms (up to 310 ms), with 250 players on and "
                           "95% of a core in use.")
    assert "3000 connections did not log in" in said
    assert "Fewer players" in alarm_words(Busy(LOAD, 0, BusyAdvice.FEWER_PLAYERS))


def test_an_alarm_line_starts_with_the_time_it_was_raised() -> None:
    line = raised_words(RaisedAlarm(0.0, BanNotSaved(True, "mallory", "disk full")))
    hours_minutes, words = line.split(" ", 1)
    assert len(hours_minutes) == 5 and hours_minutes[2] == ":"
    assert words.startswith("the kick of mallory could not be saved (disk full)")
    assert words.endswith("kick them again once the disk takes writes.")
