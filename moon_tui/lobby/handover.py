"""Whether an away player's seat is handed to a computer now: a pure function of the
seats, who asked, and who agreed so far. The table (`core.py`) carries it out.

The owner hands a seat over alone; anyone else seated asks, and the seat goes once every
seated player who is here has asked (their turns no longer wait for the away player).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .refusals import Refusal, Refused
from .seating import Seating


@dataclass(frozen=True, slots=True)
class HandOver:
    """Hand the seat of `away` over now; `by_owner`: the owner said so alone."""

    away: str
    by_owner: bool


@dataclass(frozen=True, slots=True)
class Asked:
    """Not yet: `votes` asked so far (the asker among them), `agreed` of the `needed`
    players here."""

    votes: frozenset[str]
    agreed: int
    needed: int


def hand_over(seating: Seating, name: str, seat: int, *, playing: bool,
              votes: frozenset[str], present: Collection[str]) -> HandOver | Asked:
    """`name` asks that a computer play `seat` (a checked seat number) at once; `votes`:
    who asked before; `present`: the seated players connected now."""
    held = seating.held(seat)
    away = held.name
    if not playing or away is None or held.away_since is None:
        raise Refused(Refusal.SEAT_NOT_AWAY, seat=seat)
    if name == seating.owner:
        return HandOver(away, by_owner=True)
    if seating.seat_of(name) is None:
        raise Refused(Refusal.SEATED_ONLY)
    votes |= {name}
    here = set(present)
    if here <= votes:
        return HandOver(away, by_owner=False)
    return Asked(votes, len(votes & here), len(here))
