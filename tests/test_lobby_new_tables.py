"""A new table's options checked without a lobby (`lobby/new_tables.py`); the lobby
opening tables is tests/test_lobby.py's, a play-on's table tests/test_lobby_practice.py's."""

import pickle

import pytest
from test_lobby_practice import cut, played

from moon_tui.lobby.messages import TABLE_NAME_MAX, CreateTable, PlayOn, Rejected
from moon_tui.lobby.new_tables import TIMER_MAX_SECONDS, checked_table
from moon_tui.lobby.refusals import ECHO_MAX, Refusal, Refused
from moon_tui.lobby.seating import Seating
from moon_tui.rules import Rules
from moon_tui.ui.refusals import refusal_words


def refused(command: CreateTable) -> tuple[object, dict[str, object]]:
    with pytest.raises(Refused) as caught:
        checked_table(command, "ann")
    return caught.value.code, dict(caught.value.params)


def test_a_table_is_named_for_its_owner_when_its_name_is_empty_or_only_controls() -> None:
    assert checked_table(CreateTable(""), "ann").name == "ann's table"
    assert checked_table(CreateTable("\x1b[2J\x07"), "ann").name == "[2J"
    assert checked_table(CreateTable("x" * 100), "ann").name == "x" * TABLE_NAME_MAX


def test_rules_that_mean_nothing_at_the_table_are_refused_by_name() -> None:
    assert refused(CreateTable("a", Rules.make(players=4, discard_shown=True))) == (
        Refusal.BAD_RULES, {"option": "discard_shown"})
    assert refused(CreateTable("a", "moon22")) == (  # type: ignore[arg-type]
        Refusal.NOT_RULES, {})


@pytest.mark.parametrize("seconds", [0, TIMER_MAX_SECONDS + 1, True, 30.0, "30"])
def test_a_timer_out_of_bounds_is_refused(seconds: object) -> None:
    assert refused(CreateTable("a", turn_seconds=seconds)) == (  # type: ignore[arg-type]
        Refusal.BAD_TIMER, {"seconds": repr(seconds), "limit": TIMER_MAX_SECONDS})


def test_practice_is_never_rated_and_a_play_on_is_a_private_practice_nobody_watches() -> None:
    assert refused(CreateTable("a", rated=True, practice=True)) == (
        Refusal.PRACTICE_NOT_RATED, {})
    on = PlayOn(cut(played(seed=3, decisions=6)), 1)
    table = checked_table(CreateTable("a", Rules.make(players=4), private=False,
                                      spectators_allowed=True, play_on=on), "ann")
    assert table.practice and table.private and not table.spectators_allowed
    assert table.rules == Rules.make(), "the saved game's own rules, not the command's"
    assert refused(CreateTable("a", rated=True, play_on=on))[0] is Refusal.PRACTICE_NOT_RATED


def test_a_refusal_crosses_a_process_whole() -> None:
    with pytest.raises(Refused) as caught:
        checked_table(CreateTable("a", turn_seconds=0), "ann")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.code, copy.params) == (Refusal.BAD_TIMER, {"seconds": "0", "limit": 3600})
    assert refusal_words(Rejected.because(CreateTable("a"), copy)) == (
        "the turn timer is 1 to 3600 seconds (or none), not 0")


def test_a_refusal_quotes_what_was_sent_cut_short() -> None:
    code, params = refused(CreateTable("a", turn_seconds="9" * 10_000))  # type: ignore[arg-type]
    assert code is Refusal.BAD_TIMER
    assert params["seconds"] == "'" + "9" * (ECHO_MAX - 2) + "…"
    with pytest.raises(Refused) as caught:
        Seating(3, "ann").check_seat(10 ** 5000)
    assert caught.value.params == {"seat": "(a number too long)", "last": 2}
    with pytest.raises(Refused) as caught:
        Seating(3, "ann").check_seat(7)
    assert caught.value.params == {"seat": 7, "last": 2}, "a number, counted from 1 on screen"
