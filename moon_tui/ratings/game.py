"""What one finished game means for the ratings: who took part, their places, their deeds.

A game counts when it finished at a table marked rated (`"rated": true` in its record) and
at least two people were dealt in. Computers take part as their level (`expert bot`), so
a newcomer sees where each level stands. A person who left before the end (the record's
`seat_changes` says so: `left` or `kicked`, and not back in that seat by the end) is
ranked last; one who only dropped for a moment (`away`, then `back`) is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..lobby.messages import BOT_LEVELS
from ..lobby.seating import bot_name
from ..rules import MOON, TRUMP_NAMES, HandResult, game_from_record
from ..rules.record import as_record

BOT_NAMES = frozenset(bot_name(level) for level in BOT_LEVELS)
"""How a record names a computer's seat (a player's name has no space in it)."""

LEFT = frozenset({"left", "kicked"})
"""`seat_changes` reasons that take the seated person out of the game for good."""


def is_bot(name: str) -> bool:
    return name in BOT_NAMES


@dataclass(frozen=True, slots=True)
class Deeds:
    """What one seat did in one game (a team game counts the team's points)."""

    hands: int = 0
    """Hands played (a hand everyone passed is not)."""
    points: int = 0
    """The seat's side's points over those hands."""
    bids_tried: int = 0
    bids_made: int = 0
    moons_tried: int = 0
    moons_made: int = 0
    trumps: tuple[tuple[str, int], ...] = ()
    """How often each trump was named by this seat, as (name, count), in trump order."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """A rated game: per seat its name, place (1 is best, equal places tie), win and deeds."""

    players: int
    """3 or 4: the rating pool."""
    names: tuple[str, ...]
    places: tuple[int, ...]
    won: tuple[bool, ...]
    left: tuple[bool, ...]
    deeds: tuple[Deeds, ...]

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The seats rated together: partners at four (a leaver on their own), else each
        seat alone."""
        if self.players != 4:
            return tuple((seat,) for seat in range(self.players))
        sides = [tuple(s for s in (side, side + 2) if not self.left[s]) for side in (0, 1)]
        alone = [(s,) for s in range(4) if self.left[s]]
        return tuple(team for team in (*sides, *alone) if team)


def rated(record: Mapping[str, Any]) -> bool:
    """The record is of a rated table, and at least two people were dealt in."""
    seats = record.get("seats")
    if record.get("rated") is not True or not isinstance(seats, list):
        return False
    return sum(1 for name in seats if isinstance(name, str) and not is_bot(name)) >= 2


def leavers(record: Mapping[str, Any], seats: int) -> tuple[bool, ...]:
    """Per seat: its person left for good (RECORD.md `seat_changes`); a malformed list is
    taken as nobody leaving (the record's shape is the replay's to check)."""
    out = [False] * seats
    changes = record.get("seat_changes")
    names = record.get("seats")
    if not isinstance(changes, list) or not isinstance(names, list):
        return tuple(out)
    for change in changes:
        if not isinstance(change, dict):
            continue
        seat, why = change.get("seat"), change.get("why")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
            continue
        if why in LEFT:
            out[seat] = True
        elif change.get("name") == names[seat] and change.get("computer") is False:
            out[seat] = False  # the seated person came back
    return tuple(out)


def result_of(record: Mapping[str, Any]) -> GameResult | None:
    """The rated result of a finished game's record, or None when it does not count (not
    rated, fewer than two people, not finished, or not legal: `game_from_record` raises
    for a malformed or illegal record)."""
    if not rated(record):
        return None
    rec = as_record(record)
    state = game_from_record(rec)
    outcome = state.outcome()
    if outcome is None:
        return None
    players = rec.rules.players
    sides = tuple(side_of(s, players) for s in range(players))
    left = leavers(record, players)
    won = tuple(sides[s] == outcome.winner and not left[s] for s in range(players))
    return GameResult(players, rec.seats, _places(state.scores, outcome.winner, sides, left),
                      won, left, tuple(_deeds(state.results, s, sides[s])
                                       for s in range(players)))


def side_of(seat: int, players: int) -> int:
    """The side a seat scores for: its team at four (seats 0 and 2, 1 and 3), else itself."""
    return seat % 2 if players == 4 else seat


def _places(scores: tuple[int, ...], winner: int, sides: tuple[int, ...],
            left: tuple[bool, ...]) -> tuple[int, ...]:
    """The winning side first, the others by their scores (equal scores tie), anyone who
    left after everyone else."""
    players = len(left)

    def standing(seat: int) -> tuple[int, int]:
        return (0 if sides[seat] == winner else 1, -scores[sides[seat]])

    stayed = sorted({standing(s) for s in range(players) if not left[s]})
    places = [stayed.index(standing(s)) + 1 if not left[s] else len(stayed) + 1
              for s in range(players)]
    return tuple(places)


def _deeds(results: tuple[HandResult, ...], seat: int, side: int) -> Deeds:
    hands = points = tried = made = moons = moons_made = 0
    trumps = [0] * len(TRUMP_NAMES)
    for result in results:
        if result.redeal:
            continue
        hands += 1
        points += result.points[side]
        if result.declarer != seat:
            continue
        tried += 1
        made += bool(result.made)
        if result.bid == MOON:
            moons += 1
            moons_made += bool(result.made)
        if result.trump is not None:
            trumps[result.trump] += 1
    return Deeds(hands, points, tried, made, moons, moons_made,
                 tuple((TRUMP_NAMES[t], n) for t, n in enumerate(trumps) if n))
