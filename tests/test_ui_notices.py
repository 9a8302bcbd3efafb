"""Notices, reasons for leaving a table and for ending a session: codes the lobby sends,
worded only here (issue 32, item 6; issue 30, item 10)."""

from __future__ import annotations

import pytest

from moon_tui.lobby.messages import Disconnected, Notice, TableLeft
from moon_tui.lobby.notices import Ending, Leave, Tell
from moon_tui.ui.notices import (
    ENDING,
    LEAVE,
    TELL,
    ending_words,
    left_words,
    notice_title,
    notice_words,
)


def test_every_code_has_words() -> None:
    assert set(TELL) == set(Tell) and set(LEAVE) == set(Leave) and set(ENDING) == set(Ending)


@pytest.mark.parametrize(("notice", "words"), [
    (Notice(Tell.TIMED_OUT_PLAYED, {"action": "play 5-1"}),
     "Your time ran out: the computer played [5|1] for you."),
    (Notice(Tell.TIMED_OUT_PLAYED, {"action": "trump 3"}),
     "Your time ran out: the computer named 3s trump for you."),
    (Notice(Tell.TIMED_OUT_PLAYED, {"action": "discard 4-2"}),
     "Your time ran out: the computer discarded [4|2] for you."),
    (Notice(Tell.NOW_OWNER, {"table": "ann's table"}),
     "You now own ann's table: you start the next game."),
    (Notice(Tell.BROADCAST, {"text": "tea at 8", "by": "olga"}), "tea at 8"),
    (Notice(Tell.LEFT_FOR_COMPUTER, {"name": "bob", "seat": 1}),
     "bob left the table: a computer plays seat 2 from now on."),
    (Notice(Tell.TIMED_OUT_BID, {"bid": 4}), "Your time ran out: you bid 4, the least you could."),
])
def test_notices_in_words(notice: Notice, words: str) -> None:
    # Seen: "the computer chose play 5-1 for you", "you now own table t1" (an id no
    # screen shows), a broadcast with no sender.
    assert notice_words(notice) == words


def test_a_broadcast_names_who_sent_it() -> None:
    # Seen: an operator's broadcast had no sender.
    assert notice_title(Notice(Tell.BROADCAST, {"text": "tea", "by": "olga"})) == \
        "From an operator (olga)"
    assert notice_title(Notice(Tell.BROADCAST, {"text": "bye", "by": ""})) == "From the server"
    assert notice_title(Notice(Tell.NOW_OWNER, {"table": "t"})) == ""


def test_a_table_that_waits_for_the_server_is_not_left() -> None:
    # Seen: "You left the table: the server is shutting down" beside "your seat waits".
    waiting = left_words(TableLeft("t1", Leave.SERVER_STOPPING))
    assert "You left" not in waiting and "seat" in waiting and "wait" in waiting
    assert left_words(TableLeft("t1", Leave.YOU_LEFT)) == "You left the table."
    assert left_words(TableLeft("t1", Leave.AWAY_TOO_LONG)) == \
        "You left the table: you were away too long."
    assert left_words(TableLeft("t1", Leave.CLOSED_BY_OPERATOR, {"by": "olga", "reason": ""})) \
        == "The table was closed by an operator (olga)."


def test_an_ending_names_who_ended_it_and_why() -> None:
    assert ending_words(Disconnected(Ending.KICKED, {"by": "olga", "reason": "spam"})) == \
        "you were removed by an operator (olga): spam"
    assert ending_words(Disconnected(Ending.TAKEN_OVER)) == "you connected from somewhere else"
