"""Where a person asking for a seat ends up (`lobby/joining.py`), without a lobby or a
table: a pure function of the seats and the table's door. The table carrying it out is
tests/test_lobby.py's and tests/test_lobby_handover.py's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from moon_tui.lobby.joining import Door, JoinHow, Joining, joining, may_watch
from moon_tui.lobby.refusals import Refusal, Refused
from moon_tui.lobby.seating import Seating

OPEN = Door("t1", playing=False, private=False, open_seats=False, spectators_allowed=True,
            practice=False)
PLAYING = replace(OPEN, playing=True)


def seats(*, bots: int = 0) -> Seating:
    """ann owns the table at seat 0; `bots` computers in the next seats."""
    seating = Seating(3, "ann")
    for seat in range(1, 1 + bots):
        seating.add_bot(seat, "normal")
    return seating


def refusal(seating: Seating, door: Door, name: str, wanted: int | None = None, *,
            by_code: bool = False) -> Refusal | object:
    with pytest.raises(Refused) as caught:
        joining(seating, door, name, wanted, by_code=by_code)
    return caught.value.code


def test_before_the_game_a_newcomer_sits_in_the_first_free_seat_or_the_one_asked() -> None:
    assert joining(seats(), OPEN, "bob", None, by_code=False) == Joining(JoinHow.SIT, 1)
    assert joining(seats(), OPEN, "bob", 2, by_code=False) == Joining(JoinHow.SIT, 2)
    assert joining(seats(bots=1), OPEN, "bob", None, by_code=False) == Joining(JoinHow.SIT, 2)


def test_a_full_table_lets_a_code_holder_watch_and_refuses_the_others() -> None:
    full = seats(bots=2)
    assert refusal(full, OPEN, "bob") is Refusal.NO_FREE_SEAT
    assert joining(full, OPEN, "bob", None, by_code=True) == Joining(JoinHow.WATCH)
    no_watching = replace(OPEN, spectators_allowed=False)
    assert refusal(full, no_watching, "bob", by_code=True) is Refusal.NO_FREE_SEAT


def test_a_seated_player_asking_again_is_refused_unless_a_code_brings_them_back() -> None:
    seating = seats()
    assert refusal(seating, OPEN, "ann") is Refusal.ALREADY_SEATED
    assert refusal(seating, OPEN, "ann", 0) is Refusal.ALREADY_SEATED
    assert joining(seating, OPEN, "ann", None, by_code=True) == Joining(JoinHow.BACK_TO_VIEW)
    assert joining(seating, OPEN, "ann", 2, by_code=False) == Joining(JoinHow.SIT, 2)


def test_a_private_table_lets_in_its_members_and_code_holders_only() -> None:
    private = replace(OPEN, private=True)
    assert refusal(seats(), private, "bob") is Refusal.PRIVATE_TABLE
    assert joining(seats(), private, "bob", None, by_code=True).how is JoinHow.SIT
    with pytest.raises(Refused):
        may_watch(seats(), private, "bob", by_code=False)
    may_watch(seats(), private, "bob", by_code=True)


def test_a_practice_table_seats_its_owner_alone() -> None:
    practice = replace(OPEN, practice=True)
    assert refusal(seats(), practice, "bob") is Refusal.PRACTICE_ALONE


def test_mid_game_a_player_takes_back_the_seat_held_for_them() -> None:
    seating = Seating(3, "ann")
    seating.sit("bob", 1)
    seating.add_bot(2, "normal")
    seating.hold(1, "normal")  # bob away past his grace: a computer holds his seat
    assert joining(seating, PLAYING, "bob", None, by_code=False) == Joining(JoinHow.TAKE_BACK, 1)
    assert joining(seating, PLAYING, "bob", 1, by_code=False) == Joining(JoinHow.TAKE_BACK, 1)
    # A newcomer, with the computers' seats opened, gets the one held for nobody.
    opened = replace(PLAYING, open_seats=True)
    assert joining(seating, opened, "cy", None, by_code=False) == \
        Joining(JoinHow.COMPUTER_SEAT, 2)


def test_mid_game_a_newcomer_takes_a_computers_seat_only_once_the_owner_opened_them() -> None:
    playing = seats(bots=2)
    assert refusal(playing, PLAYING, "cy") is Refusal.STARTED_WATCH_ONLY
    assert joining(playing, PLAYING, "cy", None, by_code=True) == Joining(JoinHow.WATCH)
    assert refusal(playing, replace(PLAYING, spectators_allowed=False), "cy") \
        is Refusal.STARTED_NO_SPECTATORS
    opened = replace(PLAYING, open_seats=True)
    assert joining(playing, opened, "cy", None, by_code=False) == \
        Joining(JoinHow.COMPUTER_SEAT, 1)
    assert joining(playing, opened, "cy", 2, by_code=False) == \
        Joining(JoinHow.COMPUTER_SEAT, 2)
    assert refusal(playing, opened, "ann", 1) is Refusal.ALREADY_SEATED


def test_the_owner_may_watch_a_table_nobody_may_watch_and_nobody_watches_twice() -> None:
    closed = replace(PLAYING, spectators_allowed=False)
    seating = seats(bots=2)
    may_watch(seating, closed, "ann", by_code=False)
    with pytest.raises(Refused) as caught:
        may_watch(seating, closed, "bob", by_code=False)
    assert caught.value.code is Refusal.NO_SPECTATORS
    seating.watch("bob", playing=True)
    with pytest.raises(Refused) as caught:
        may_watch(seating, OPEN, "bob", by_code=False)
    assert caught.value.code is Refusal.ALREADY_WATCHING
