"""Who sits where at a table, who watches, who owns it, who voted for a rematch.

The rules for changing the seats live here, as methods that raise `Refused` with the
reason in words; the table decides *when* they may change (not during a game) and tells
everyone afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .messages import BOT_LEVELS, BotLevel, SeatInfo
from .refusals import Refusal, Refused, echoed, echoed_seat

CHOSEN_KEPT = 12
"""The latest choices told to a player back from being away (a whole hand's plays are 7;
older ones are only counted)."""


@dataclass
class Seat:
    """A seat: a player (`name`), a computer (`bot_level` only), or nobody."""

    name: str | None = None
    bot_level: BotLevel | None = None
    away_since: float | None = None
    """Set while the player is disconnected (the stand-in computer plays)."""
    back_by: float | None = None
    """While away: until when a turn of theirs waits for them before the stand-in plays
    it (`reconnect_wait_seconds` after a drop, `restart_grace_seconds` after a restart)."""
    held_for: str | None = None
    """A computer's seat whose person, dealt into the game, was away past the grace: it
    is theirs to take back whenever they come (`take_back`)."""
    chosen: list[str] = field(default_factory=list)
    """What the computer chose for the seat's absent person (the actions' text forms, the
    latest `CHOSEN_KEPT`), told to them when they are back."""
    chosen_more: int = 0
    """How many earlier choices `chosen` no longer lists."""

    @property
    def absent(self) -> bool:
        """A person was dealt into this seat and is not here: away, or past the grace."""
        return self.away_since is not None or self.held_for is not None

    def chose(self, action: str) -> None:
        """The computer chose `action` for the absent person."""
        self.chosen.append(action)
        if len(self.chosen) > CHOSEN_KEPT:
            del self.chosen[0]
            self.chosen_more += 1

    def take_chosen(self) -> tuple[list[str], int]:
        """What was chosen while the person was away, once."""
        chosen, more = self.chosen, self.chosen_more
        self.chosen, self.chosen_more = [], 0
        return chosen, more

    @property
    def stood_in(self) -> bool:
        """The player is away and a computer has played for them since they left (until
        then their turns waited for them: "away", not "a computer plays")."""
        return self.away_since is not None and bool(self.chosen or self.chosen_more)

    @property
    def free(self) -> bool:
        return self.name is None and self.bot_level is None


def bot_name(level: str) -> str:
    return f"{level} bot"


class Seating:
    """The seats and the people of one table. The owner starts at seat 0."""

    def __init__(self, players: int, owner: str) -> None:
        self.seats = [Seat() for _ in range(players)]
        self.seats[0].name = owner
        self.owner = owner
        self.spectators: list[str] = []
        self.rematch_votes: list[str] = []
        self.away_watchers: dict[str, float] = {}
        """Spectators of a restored table not back yet: since when (their grace's start)."""

    def seat_of(self, name: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.name == name:
                return i
        return None

    def is_member(self, name: str) -> bool:
        return self.seat_of(name) is not None or name in self.spectators or name == self.owner

    def humans(self) -> list[str]:
        """Humans still at the table, seated ones first (in seat order), then spectators."""
        seated = [s.name for s in self.seats if s.name is not None]
        return seated + [n for n in self.spectators if n not in seated]

    def first_free(self) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.free), None)

    @property
    def full(self) -> bool:
        return all(not s.free for s in self.seats)

    def names(self) -> tuple[str, ...]:
        """Who plays each seat, as a game record names them."""
        return tuple(s.name if s.name is not None else bot_name(str(s.bot_level))
                     for s in self.seats)

    def infos(self, stand_in: BotLevel) -> tuple[SeatInfo, ...]:
        """The seats as the lobby shows them; an away player's seat names its stand-in."""
        return tuple(SeatInfo(s.name, s.bot_level if s.name is None else
                              (stand_in if s.away_since is not None else None),
                              s.away_since is not None, s.held_for, s.stood_in)
                     for s in self.seats)

    def key(self) -> tuple[object, ...]:
        """Changes whenever what `infos`, the spectators, owner or votes show changes."""
        return (self.owner, tuple(self.spectators), tuple(self.away_watchers),
                tuple(self.rematch_votes),
                tuple((s.name, s.bot_level, s.away_since is not None, s.held_for,
                       s.stood_in) for s in self.seats))

    def held(self, seat: int) -> Seat:
        """Who holds `seat` (to read: the seats change only through the methods here)."""
        return self.seats[seat]

    def is_watching(self, name: str) -> bool:
        return name in self.spectators

    def computer_levels(self) -> list[BotLevel]:
        """The levels of the computers holding seats, in seat order."""
        return [s.bot_level for s in self.seats if s.name is None and s.bot_level]

    def as_dealt(self) -> tuple[SeatInfo, ...]:
        """Who holds each seat, as a hand's record of its players keeps it."""
        return tuple(SeatInfo(s.name, s.bot_level if s.name is None else None)
                     for s in self.seats)

    def here(self) -> list[str]:
        """The seated players who are not away, in seat order."""
        return [s.name for s in self.seats if s.name is not None and s.away_since is None]

    def held_seat_of(self, name: str) -> int | None:
        """The computer's seat held for `name`, if any (`Seat.held_for`)."""
        for i, seat in enumerate(self.seats):
            if seat.held_for == name:
                return i
        return None

    def held_names(self) -> list[str]:
        """The people whose seats computers hold until they take them back."""
        return [s.held_for for s in self.seats if s.held_for is not None]

    def watcher_away_since(self, name: str) -> float | None:
        """Since when a spectator of a restored table has not come back (None: back)."""
        return self.away_watchers.get(name)

    # -- changes -------------------------------------------------------------------------
    def went_away(self, seat: int, since: float, back_by: float) -> None:
        """The player of `seat` dropped at `since`; a turn of theirs waits until `back_by`."""
        held = self.seats[seat]
        held.away_since, held.back_by = since, back_by

    def came_back(self, name: str) -> tuple[int | None, bool]:
        """`name` is connected again: their seat (if any), and whether they were away."""
        seat = self.seat_of(name)
        if seat is None:
            return None, self.away_watchers.pop(name, None) is not None
        held = self.seats[seat]
        was_away = held.away_since is not None
        held.away_since = held.back_by = None
        return seat, was_away

    def hold(self, seat: int, stand_in: BotLevel) -> None:
        """The player of `seat` was away past the grace: a computer of level `stand_in`
        plays it, held for them (what was chosen for them is kept to tell them)."""
        held = self.seats[seat]
        self.seats[seat] = Seat(bot_level=stand_in, held_for=held.name,
                                chosen=held.chosen, chosen_more=held.chosen_more)
        if held.name in self.rematch_votes:
            self.rematch_votes.remove(held.name)

    def take_back(self, name: str) -> int | None:
        """`name` takes back the seat a computer held for them: the seat, if any."""
        seat = self.held_seat_of(name)
        if seat is not None:
            held = self.seats[seat]
            self.seats[seat] = Seat(name=name, chosen=held.chosen,
                                    chosen_more=held.chosen_more)
            self._stop_watching(name)
        return seat

    def take_computer_seat(self, name: str, seat: int) -> None:
        """`name` takes the seat of a computer that holds it for nobody (mid-game, with
        the owner's leave)."""
        held = self.seats[self.check_seat(seat)]
        if held.name is not None or held.bot_level is None or held.held_for is not None:
            raise Refused(Refusal.SEAT_TAKEN, seat=seat,
                          by=held.name or held.held_for or "nobody")
        self.seats[seat] = Seat(name=name)
        self._stop_watching(name)

    def hand_over(self, seat: int, now: float) -> None:
        """The absent player's turns no longer wait for them: the stand-in plays now."""
        self.seats[seat].back_by = now

    def all_away(self, since: float, back_by: float) -> list[str]:
        """Everyone is away since `since` (a table taken up after a restart): the names."""
        for held in self.seats:
            if held.name is not None:
                held.away_since, held.back_by = since, back_by
        for name in self.spectators:
            self.away_watchers[name] = since
        return [s.name for s in self.seats if s.name is not None] + list(self.spectators)

    def restored(self, seats: list[Seat], owner: str, spectators: list[str],
                 rematch_votes: list[str]) -> None:
        """The seats as the journal kept them."""
        self.seats, self.owner = seats, owner
        self.spectators, self.rematch_votes = spectators, rematch_votes

    def start_game(self) -> None:
        self.rematch_votes.clear()

    def _stop_watching(self, name: str) -> None:
        if name in self.spectators:
            self.spectators.remove(name)

    def check_seat(self, seat: object) -> int:
        last = len(self.seats) - 1
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= last:
            raise Refused(Refusal.NO_SUCH_SEAT, seat=echoed_seat(seat), last=last)
        return seat

    def sit(self, name: str, wanted: int) -> None:
        """`name` takes seat `wanted` (leaving their seat, or stopping watching)."""
        seat = self.seats[self.check_seat(wanted)]
        if not seat.free:
            who = seat.name if seat.name is not None else bot_name(str(seat.bot_level))
            raise Refused(Refusal.SEAT_TAKEN, seat=wanted, by=who)
        current = self.seat_of(name)
        if current is not None:
            self.seats[current] = Seat()
        self._stop_watching(name)
        seat.name = name
        self.rematch_votes.clear()

    def watch(self, name: str, *, playing: bool) -> None:
        """`name` becomes a spectator, leaving their seat (not during a game)."""
        current = self.seat_of(name)
        if current is not None:
            if playing:
                raise Refused(Refusal.GAME_STARTED)
            self.seats[current] = Seat()
            self.rematch_votes.clear()
        self.spectators.append(name)

    def add_bot(self, seat: int, level: str) -> None:
        if level not in BOT_LEVELS:
            raise Refused(Refusal.NO_SUCH_LEVEL, level=echoed(level), levels=", ".join(BOT_LEVELS))
        self.check_seat(seat)
        if not self.seats[seat].free:
            raise Refused(Refusal.SEAT_NOT_FREE, seat=seat)
        self.seats[seat] = Seat(bot_level=level)
        self.rematch_votes.clear()

    def remove_bot(self, seat: int) -> None:
        self.check_seat(seat)
        if self.seats[seat].name is not None or self.seats[seat].bot_level is None:
            raise Refused(Refusal.NO_BOT_AT_SEAT, seat=seat)
        self.seats[seat] = Seat()
        self.rematch_votes.clear()

    def leave(self, name: str, stand_in: BotLevel | None) -> int | None:
        """`name` leaves the table; a computer of level `stand_in` takes their seat if
        given (during a game). Returns the seat they left, if any (a seat held for them
        is theirs no longer)."""
        seat = self.seat_of(name)
        if seat is not None:
            self.seats[seat] = Seat(bot_level=stand_in)
        held = self.held_seat_of(name)
        if held is not None:
            self.seats[held].held_for = None
        self._stop_watching(name)
        self.away_watchers.pop(name, None)
        if name in self.rematch_votes:
            self.rematch_votes.remove(name)
        return seat

    def pass_ownership(self, leaving: str) -> str | None:
        """If the owner `leaving` left, the first human left owns the table: their name."""
        humans = self.humans()
        if leaving != self.owner or leaving in humans or not humans:
            return None
        self.owner = humans[0]
        return self.owner

    def vote(self, name: str, agree: bool) -> bool:
        """A rematch vote; True when every seated human agrees."""
        if self.seat_of(name) is None:
            raise Refused(Refusal.REMATCH_SEATED_ONLY)
        if agree and name not in self.rematch_votes:
            self.rematch_votes.append(name)
        elif not agree and name in self.rematch_votes:
            self.rematch_votes.remove(name)
        humans = [s.name for s in self.seats if s.name is not None]
        return agree and all(h in self.rematch_votes for h in humans)
