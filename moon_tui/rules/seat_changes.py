"""Who really played each seat: the `seat_changes` of a server's record (RECORD.md).

A record names one person per seat (`seats`); a server's record also says when somebody
else made that seat's decisions: a computer standing in while its person was away, after
they left or were kicked, when a turn timer ran out, or a person who took a computer's
seat. Each change holds from decision `at` of hand `hand` (the hand's decisions counted
from 0 in the order made: the bids, the discard and the trump as the rules order them,
then the plays) until the next change of that seat.

Read strictly, as the rest of a record: a malformed entry is a `RecordFormatError` (not a
record at all); an entry that points past the decisions the record holds is found when
the record is replayed (`check_against`), and makes the record illegal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .state import HandLog

Why = Literal["away", "back", "left", "kicked", "timeout", "joined"]
WHYS: Final[tuple[Why, ...]] = ("away", "back", "left", "kicked", "timeout", "joined")
CHANGES_MAX: Final = 100_000
"""The most entries a record may hold (a change per decision of a 3,000-hand game)."""
NAME_MAX: Final = 16
"""As a seat's name (`record.SEAT_NAME_MAX`)."""


class SeatChangeError(ValueError):
    """A malformed `seat_changes` entry: where (`seat_changes[3].at`) and why."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where


@dataclass(frozen=True, slots=True)
class SeatChange:
    """From decision `at` of hand `hand`, seat `seat` is played by `name` (a computer or
    a person), because `why`."""

    hand: int
    at: int
    seat: int
    name: str
    computer: bool
    why: Why

    def to_dict(self) -> dict[str, Any]:
        return {"hand": self.hand, "at": self.at, "seat": self.seat, "name": self.name,
                "computer": self.computer, "why": self.why}

    @property
    def where(self) -> tuple[int, int]:
        return (self.hand, self.at)


def decisions_in(log: HandLog) -> int:
    """How many decisions hand `log` holds so far (what `at` counts)."""
    return len(log.bids) + (log.discard is not None) + (log.trump is not None) + len(log.plays)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def seat_changes_from(raw: object, players: int) -> tuple[SeatChange, ...]:
    """The entries of a record's `seat_changes` (None: none), checked for shape; the
    first fault raises `SeatChangeError`."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SeatChangeError("seat_changes must be a list", "seat_changes")
    if len(raw) > CHANGES_MAX:
        raise SeatChangeError(f"at most {CHANGES_MAX:,} entries, not {len(raw):,}",
                              "seat_changes")
    changes: list[SeatChange] = []
    for i, entry in enumerate(raw):
        where = f"seat_changes[{i}]"
        if not isinstance(entry, dict):
            raise SeatChangeError("an entry is an object", where)
        for key in ("hand", "at"):
            if not _whole(entry.get(key)) or entry[key] < 0:
                raise SeatChangeError(f"{key} is a whole number from 0", f"{where}.{key}")
        seat = entry.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise SeatChangeError(f"seat is a seat from 0 to {players - 1}", f"{where}.seat")
        name = entry.get("name")
        if not isinstance(name, str) or not 0 < len(name) <= NAME_MAX:
            raise SeatChangeError(f"name is text of 1 to {NAME_MAX} characters",
                                  f"{where}.name")
        computer = entry.get("computer")
        if not isinstance(computer, bool):
            raise SeatChangeError("computer is true or false", f"{where}.computer")
        why = entry.get("why")
        found = next((w for w in WHYS if w == why), None)
        if found is None:
            raise SeatChangeError(f"why is one of {', '.join(WHYS)}", f"{where}.why")
        change = SeatChange(entry["hand"], entry["at"], seat, name, computer, found)
        if changes and change.where < changes[-1].where:
            raise SeatChangeError("entries are in the order of the game (hand, then at)",
                                  where)
        changes.append(change)
    return tuple(changes)


def check_against(changes: Sequence[SeatChange], decisions: Sequence[int]
                  ) -> tuple[int, SeatChange, str] | None:
    """The first entry that names a hand or a decision the record does not hold, as
    (index, entry, reason); `decisions[h]` is how many decisions hand `h` holds. An entry
    may point just past a hand's last decision: the change came after it (a person left
    between two hands, or while the game waited)."""
    for i, change in enumerate(changes):
        if change.hand >= len(decisions):
            return i, change, (f"seat_changes[{i}] names hand {change.hand}, but the record "
                               f"has {len(decisions)} hand{'s' if len(decisions) != 1 else ''}")
        if change.at > decisions[change.hand]:
            return i, change, (f"seat_changes[{i}] names decision {change.at} of hand "
                               f"{change.hand}, which has {decisions[change.hand]}")
    return None


def player_at(changes: Sequence[SeatChange], seat: int, hand: int, at: int
              ) -> SeatChange | None:
    """The change in force for `seat` at decision `at` of `hand` (None: its own player)."""
    latest = None
    for change in changes:
        if change.where > (hand, at):
            break
        if change.seat == seat:
            latest = change
    return latest


__all__ = ["CHANGES_MAX", "WHYS", "SeatChange", "SeatChangeError", "Why", "check_against",
           "decisions_in", "player_at", "seat_changes_from"]
