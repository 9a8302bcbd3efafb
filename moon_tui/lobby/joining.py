"""Where a person who asks for a seat ends up: a pure function of the table as it stands.

The table (`core.py`) carries the answer out. A seat asked for by number (`JoinSeat`) or
an invite code (`JoinByCode`, `by_code`: a code also opens a private table, and lets its
holder watch a game that has no seat for them).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .refusals import Refusal, Refused
from .seating import Seating


class JoinHow(enum.Enum):
    BACK_TO_VIEW = "back_to_view"
    """Seated already: a code brings them back to their seat's view."""
    TAKE_BACK = "take_back"
    """Their own seat, which a computer held for them while they were away."""
    COMPUTER_SEAT = "computer_seat"
    """A computer's seat mid-game, which the owner opened to newcomers."""
    WATCH = "watch"
    SIT = "sit"
    """A free seat before the game."""


@dataclass(frozen=True, slots=True)
class Joining:
    how: JoinHow
    seat: int | None = None
    """The seat taken (`COMPUTER_SEAT`, `SIT`)."""


@dataclass(frozen=True, slots=True)
class Door:
    """What of a table decides who may come in, and how."""

    table_id: str
    playing: bool
    private: bool
    open_seats: bool
    """The owner let newcomers take computers' seats mid-game."""
    spectators_allowed: bool
    practice: bool
    """Only its owner plays it."""


def joining(seating: Seating, door: Door, name: str, wanted: int | None, *,
            by_code: bool) -> Joining:
    """Where `name` ends up asking for seat `wanted` (None: any), or `Refused` why not."""
    _may_come_in(seating, door, name, by_code=by_code)
    current = seating.seat_of(name)
    if current is not None and (wanted is None or wanted == current):
        if by_code:
            return Joining(JoinHow.BACK_TO_VIEW)
        raise Refused(Refusal.ALREADY_SEATED, seat=current)
    if door.playing:
        return _mid_game(seating, door, name, wanted, current, by_code=by_code)
    if wanted is None:
        wanted = seating.first_free()
        if wanted is None:
            if by_code and door.spectators_allowed:
                return Joining(JoinHow.WATCH)
            raise Refused(Refusal.NO_FREE_SEAT, table_id=door.table_id)
    if door.practice and name != seating.owner:
        raise Refused(Refusal.PRACTICE_ALONE, table_id=door.table_id)
    return Joining(JoinHow.SIT, wanted)


def _mid_game(seating: Seating, door: Door, name: str, wanted: int | None,
              current: int | None, *, by_code: bool) -> Joining:
    held = seating.held_seat_of(name)
    if held is not None and wanted in (None, held):
        return Joining(JoinHow.TAKE_BACK, held)
    opened = _opened_seat(seating)
    if door.open_seats and (wanted is not None or opened is not None):
        if current is not None:
            raise Refused(Refusal.ALREADY_SEATED, seat=current)
        return Joining(JoinHow.COMPUTER_SEAT, wanted if wanted is not None else opened)
    if by_code and (door.spectators_allowed or name == seating.owner):
        return Joining(JoinHow.WATCH)
    if not door.spectators_allowed:
        raise Refused(Refusal.STARTED_NO_SPECTATORS)
    raise Refused(Refusal.STARTED_WATCH_ONLY)


def may_watch(seating: Seating, door: Door, name: str, *, by_code: bool) -> None:
    """`Refused` unless `name` may watch the table (its owner always may)."""
    if seating.is_watching(name):
        raise Refused(Refusal.ALREADY_WATCHING, table_id=door.table_id)
    if not door.spectators_allowed and name != seating.owner:
        raise Refused(Refusal.NO_SPECTATORS, table_id=door.table_id)
    _may_come_in(seating, door, name, by_code=by_code)


def _may_come_in(seating: Seating, door: Door, name: str, *, by_code: bool) -> None:
    """A private table lets in its members and those who typed its code."""
    if door.private and not by_code and not seating.is_member(name):
        raise Refused(Refusal.PRIVATE_TABLE, table_id=door.table_id)


def _opened_seat(seating: Seating) -> int | None:
    """The first computer's seat held for nobody."""
    return next((i for i, s in enumerate(seating.seats)
                 if s.name is None and s.bot_level is not None and s.held_for is None), None)
