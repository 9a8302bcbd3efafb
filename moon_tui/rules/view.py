"""What one seat (or a spectator) may know: frozen snapshots, safe to share and to render.

RULES.md section 11. A view is the only thing the interface and the bots ever receive, so
this module is the security boundary: nothing hidden is reachable from a view.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .actions import Action
from .options import Rules
from .tiles import FOLLOW, Tile


class Phase(enum.Enum):
    """Where a game stands. `DEAL` is the chance step between hands."""

    DEAL = "deal"
    BID = "bid"
    DISCARD = "discard"
    TRUMP = "trump"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led, the tiles in the order played (seat, tile), and who won it.

    The engine also says which suit was led and who is winning so far, so that nothing
    above the rules works them out again.
    """

    leader: int
    plays: tuple[tuple[int, Tile], ...]
    winner: int | None = None
    """Set once the trick is complete."""
    suit_led: int | None = None
    """The suit of the first tile (0..6, or `SUIT_TRUMP`); None before anyone plays."""
    winning_seat: int | None = None
    """The seat whose tile wins the trick so far (the winner, once complete)."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended. Public to every seat: it holds no unplayed tile."""

    number: int
    first_bidder: int
    bids: tuple[tuple[int, Action], ...]
    declarer: int | None
    bid: int | None
    trump: int | None
    tricks_won: tuple[int, ...]
    made: bool | None
    points: tuple[int, ...]
    scores: tuple[int, ...]

    @property
    def redeal(self) -> bool:
        """True for a hand everybody passed."""
        return self.declarer is None


class Termination(enum.StrEnum):
    """Why a game ended (RULES.md section 10)."""

    TARGET = "target"
    """A side alone reached the target score."""
    MOON = "moon"
    """A declarer made the moon (`moon_wins_game`)."""
    TIE_BREAK = "tie_break"
    """The declarer's side reached the target by making its bid (`tie_break = declarer`)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winning side and why."""

    winner: int
    reason: Termination


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything `seat` may know now; `seat is None` for a spectator (no hand at all).

    `legal` is filled only when it is this seat's turn.
    """

    rules: Rules
    seat: int | None
    phase: Phase
    hand_number: int
    first_bidder: int
    to_move: int | None
    hand: tuple[Tile, ...]
    hand_sizes: tuple[int, ...]
    bids: tuple[tuple[int, Action], ...]
    declarer: int | None
    bid: int | None
    trump: int | None
    widow_taken: bool
    widow: Tile | None
    discard: Tile | None
    """The tile the declarer laid away: in the declarer's view, or in every view once made
    with `Rules.discard_shown`."""
    tricks: tuple[Trick, ...]
    current_trick: Trick | None
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    results: tuple[HandResult, ...]
    legal: tuple[Action, ...]
    outcome: Outcome | None

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.to_move == self.seat

    @property
    def high_bid(self) -> int:
        """The highest bid so far in this hand (0 when nobody has bid)."""
        return max((a.bid or 0 for _, a in self.bids), default=0)

    @property
    def last_trick(self) -> Trick | None:
        return self.tricks[-1] if self.tricks else None

    def tricks_in_hand(self) -> tuple[Trick, ...]:
        """This hand's tricks so far: the completed ones and the open one."""
        if self.current_trick is None:
            return self.tricks
        return (*self.tricks, self.current_trick)

    def played_tiles(self) -> tuple[Tile, ...]:
        """Every tile played so far in this hand (completed tricks and the open one)."""
        return tuple(t for trick in self.tricks_in_hand() for _, t in trick.plays)

    def voids(self) -> tuple[int, ...]:
        """For each seat, the mask of the tiles it cannot hold now: every suit it failed
        to follow (a play is public, so any seat may reason from it)."""
        void = [0] * len(self.hand_sizes)
        if self.trump is None:
            return tuple(void)
        for trick in self.tricks_in_hand():
            if trick.suit_led is None:
                continue
            suit = FOLLOW[self.trump][trick.suit_led]
            for seat, tile in trick.plays[1:]:
                if not suit >> tile.index & 1:
                    void[seat] |= suit
        return tuple(void)
