"""Whether an away player's seat goes to a computer now (`lobby/handover.py`), without a
table: the owner alone, or every seated player here. The table carrying it out over the
lobby is tests/test_lobby_absent.py's."""

from __future__ import annotations

import pytest

from moon_tui.lobby.handover import Asked, HandOver, hand_over
from moon_tui.lobby.refusals import Refusal, Refused
from moon_tui.lobby.seating import Seating


def four_seats(*, away: str = "dan") -> Seating:
    """ann (owner), bob, cy and dan seated, `away` gone."""
    seating = Seating(4, "ann")
    for seat, name in enumerate(("bob", "cy", "dan"), start=1):
        seating.sit(name, seat)
    seating.went_away(seating.seat_of(away) or 0, since=0.0, back_by=30.0)
    return seating


def test_the_owner_hands_a_seat_over_alone() -> None:
    assert hand_over(four_seats(), "ann", 3, playing=True, votes=frozenset(),
                     present=["ann", "bob", "cy"]) == HandOver("dan", by_owner=True)


def test_the_others_hand_it_over_once_everyone_here_asked() -> None:
    seating, present = four_seats(), ["ann", "bob", "cy"]
    first = hand_over(seating, "bob", 3, playing=True, votes=frozenset(), present=present)
    assert first == Asked(frozenset({"bob"}), agreed=1, needed=3)
    assert isinstance(first, Asked)
    again = hand_over(seating, "bob", 3, playing=True, votes=first.votes, present=present)
    assert again == first, "asking twice counts once"
    second = hand_over(seating, "cy", 3, playing=True, votes=first.votes, present=present)
    assert second == Asked(frozenset({"bob", "cy"}), agreed=2, needed=3)
    # ann left meanwhile: who is here now are all agreed.
    assert hand_over(seating, "cy", 3, playing=True, votes=first.votes,
                     present=["bob", "cy"]) == HandOver("dan", by_owner=False)


@pytest.mark.parametrize(("name", "seat", "playing", "why"), [
    ("bob", 1, True, Refusal.SEAT_NOT_AWAY),     # bob is here
    ("bob", 3, False, Refusal.SEAT_NOT_AWAY),    # no game on
    ("zed", 3, True, Refusal.SEATED_ONLY),       # a spectator has no say
])
def test_a_seat_that_is_not_away_or_an_asker_not_seated_is_refused(
        name: str, seat: int, playing: bool, why: Refusal) -> None:
    with pytest.raises(Refused) as refused:
        hand_over(four_seats(), name, seat, playing=playing, votes=frozenset(),
                  present=["ann", "bob", "cy"])
    assert refused.value.code is why
