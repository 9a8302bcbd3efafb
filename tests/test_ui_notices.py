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
     "Your time ran out: the computer named trump 3s for you."),
    (Notice(Tell.TIMED_OUT_PLAYED, {"action": "discard 4-2"}),
     "Your time ran out: the computer discarded [4|2] for you."),
    (Notice(Tell.NOW_OWNER, {"table": "ann's table"}),
     "You now own ann's table: you start the next game."),
    (Notice(Tell.BROADCAST, {"text": "tea at 8", "by": "olga"}), "tea at 8"),
    (Notice(Tell.LEFT_FOR_COMPUTER, {"name": "bob", "seat": 1}),
     "bob left the table: a computer plays seat 2 from now on."),
    (Notice(Tell.TIMED_OUT_BID, {"bid": 4}), "Your time ran out: you bid 4, the least you could."),
    (Notice(Tell.LEFT_FOR_COMPUTER, {"name": "bob", "seat": 1, "held": 1}),
     "bob is away: a computer plays seat 2 until they take it back."),
    (Notice(Tell.SEAT_WAITS, {"table": "ann's table", "table_id": "t1", "seat": 1}),
     "Your game at ann's table goes on: Enter takes your seat back."),
    (Notice(Tell.WHILE_AWAY, {"actions": "discard 4-2;trump 3", "more": 0}),
     "While you were away: the computer discarded [4|2] and named trump 3s."),
    (Notice(Tell.WHILE_AWAY, {"actions": "pass;play 5-1;play 6-6", "more": 2}),
     "While you were away: the computer (after 2 earlier choices) passed and played [5|1], "
     "[6|6]."),
    (Notice(Tell.HANDED_OVER, {"name": "bob", "seat": 1, "by": "ann"}),
     "A computer plays for bob now (ann asked)."),
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
    for_a_guest = left_words(TableLeft("t1", Leave.SERVER_STOPPING), guest=True)
    assert "wait for you" not in for_a_guest and "computer in your seat" in for_a_guest
    assert left_words(TableLeft("t1", Leave.YOU_LEFT), guest=True) == "You left the table."
    assert left_words(TableLeft("t1", Leave.YOU_LEFT)) == "You left the table."
    assert left_words(TableLeft("t1", Leave.AWAY_TOO_LONG)) == \
        "You left the table: you were away too long."
    assert left_words(TableLeft("t1", Leave.CLOSED_BY_OPERATOR, {"by": "olga", "reason": ""})) \
        == "The table was closed by an operator (olga)."


def test_an_ending_names_who_ended_it_and_why() -> None:
    assert ending_words(Disconnected(Ending.KICKED, {"by": "olga", "reason": "spam"})) == \
        "you were removed by an operator (olga): spam"
    assert ending_words(Disconnected(Ending.TAKEN_OVER)) == "you connected from somewhere else"


def test_operator_commands_take_a_time_and_plain_words() -> None:
    # Seen: a kicked player came straight back; `close` took an id no screen showed; no
    # unban; no way to set the message of the day without a restart.
    from moon_tui.lobby.messages import (
        Ban,
        Broadcast,
        ClearBoard,
        CloseTable,
        Kick,
        SetMotd,
        Unban,
    )
    from moon_tui.ui.operator import (
        OperatorError,
        RemoveMemberKey,
        RenameMember,
        parse_operator,
    )

    assert parse_operator("kick bob 30m rude") == Kick("bob", "rude", 30.0)
    assert parse_operator("kick bob rude") == Kick("bob", "rude", None)  # the default
    assert parse_operator("kick bob 2h") == Kick("bob", "", 120.0)
    assert parse_operator("kick bob 30 rude") == Kick("bob", "30 rude", None)  # no unit
    # A time too long is still a time (the lobby refuses it), not a word of the reason.
    assert parse_operator("kick bob 99999999m rude") == Kick("bob", "rude", 99999999.0)
    assert parse_operator("say " + "9" * 5000 + "d tea") == Broadcast("tea", float("inf"))
    assert parse_operator("kick bob ３0m x") == Kick("bob", "３0m x", None)  # ASCII only
    assert parse_operator("say 1d tea at 8") == Broadcast("tea at 8", 1440.0)
    assert parse_operator("say tea") == Broadcast("tea", None)
    assert parse_operator("unsay") == ClearBoard()
    assert parse_operator("motd Cards on Friday") == SetMotd("Cards on Friday")
    assert parse_operator("motd") == SetMotd("")
    assert parse_operator("ban bob cheating") == Ban("bob", "cheating")
    assert parse_operator("unban bob") == Unban("bob")
    assert parse_operator("close t3 tea") == CloseTable("t3", "tea")
    assert parse_operator("rename bob robert") == RenameMember("bob", "robert")
    assert parse_operator("unkey bob SHA256:x") == RemoveMemberKey("bob", "SHA256:x")
    assert parse_operator(":kick bob 30m rude") == Kick("bob", "rude", 30.0)
    assert parse_operator(" : say tea") == Broadcast("tea", None)
    for wrong in ("unban", "unban bob extra", "rename bob", "say 30m", "shout", "::say tea"):
        with pytest.raises(OperatorError, match="not an operator command"):
            parse_operator(wrong)


@pytest.mark.parametrize(("notice", "words"), [
    (Notice(Tell.KICKED, {"name": "bob", "minutes": 30}),
     "bob was removed and is kept out for 30 minutes (unban lets them back sooner)."),
    (Notice(Tell.KICKED, {"name": "bob", "minutes": 0}), "bob was removed."),
    (Notice(Tell.INVITED, {"by": "ann", "table": "ann's table", "table_id": "t1",
                           "code": "ABCDEF"}),
     "ann invites you to ann's table: press y in the lobby to join (x turns invitations "
     "off)."),
    (Notice(Tell.MOTD_SET, {"text": ""}),
     "The message of the day is the server's configured one again."),
])
def test_the_club_notices_in_words(notice: Notice, words: str) -> None:
    assert notice_words(notice) == words


def test_a_kicked_player_reads_for_how_long() -> None:
    assert ending_words(Disconnected(Ending.KICKED, {"by": "olga", "reason": "rude",
                                                     "minutes": 120})) == \
        "you were removed by an operator (olga) for 2 hours: rude"
    assert ending_words(Disconnected(Ending.KICKED, {"by": "olga", "reason": ""})) == \
        "you were removed by an operator (olga)"
