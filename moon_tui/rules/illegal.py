"""Why the rules refuse an action: the rule broken as a code, with its parameters as data.

python-chess keeps the reason for an illegal move as data; so do we. A `Breach` names the
rule (`RuleBroken`) and the facts that go with it (the seat, the suit led and the tiles
that follow it, the lowest bid, ...). `str(breach)` is the engine's English, the reason the
record checker prints (docs/record.md); an interface words a breach itself from the code
and `params()`, never by reading that English.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .actions import Action, ActionKind
from .tiles import SUIT_TRUMP, TRUMP_DOUBLES, TRUMP_NONE, Tile
from .view import Phase

Param = int | str | tuple[str, ...]
"""A parameter as a plain value (tiles as text like `5-3`), fit to send between processes."""


class RuleBroken(enum.StrEnum):
    """The rule an action (or a deal) breaks."""

    GAME_OVER = "game_over"
    """Nothing may be done once the game is over."""
    NOT_DEALT = "not_dealt"
    """No decision before the next hand is dealt."""
    NOT_YOUR_TURN = "not_your_turn"
    """Only the seat to move acts (`seat` tried, `to_move` is to act)."""
    WRONG_ACTION = "wrong_action"
    """The phase calls for another kind of decision (`phase`, the `kind` tried)."""
    NOT_IN_HAND = "not_in_hand"
    """A tile played or discarded must be in the seat's hand (`tile`, `kind`)."""
    MUST_FOLLOW = "must_follow"
    """A seat that can follow the suit led must (`suit`, the tiles `held` that follow)."""
    MUST_BID = "must_bid"
    """`all_pass = force_last`: the last to speak may not pass when all others did."""
    BID_TOO_LOW = "bid_too_low"
    """A bid below the table's lowest bid (`bid`, `lowest`)."""
    BID_NOT_HIGHER = "bid_not_higher"
    """A bid that does not beat the highest so far (`bid`, `high`)."""
    TRUMP_NOT_ALLOWED = "trump_not_allowed"
    """Doubles or no trump named at a table whose options forbid it, or a number no tile
    of the set carries (0 in `moon21`) (`trump`)."""
    DEAL_NOT_DUE = "deal_not_due"
    """A deal while a hand is in play or after the game (`phase`)."""
    DEAL_HAND_COUNT = "deal_hand_count"
    """A deal with the wrong number of hands (`expected`, `count`)."""
    DEAL_HAND_SIZE = "deal_hand_size"
    """A hand dealt the wrong number of tiles (`seat`, `count`)."""
    DEAL_TILE_TWICE = "deal_tile_twice"
    """A tile dealt twice (`tile`; `seat` unless it is the widow)."""
    DEAL_TILE_NOT_IN_SET = "deal_tile_not_in_set"
    """A tile that is not in the table's set (`tile`, `tile_set`; `seat` unless the widow)."""
    DEAL_WIDOW_MISSING = "deal_widow_missing"
    """A set with a widow dealt without one (`tile_set`)."""
    DEAL_WIDOW_UNEXPECTED = "deal_widow_unexpected"
    """A set without a widow dealt with one (`tile_set`)."""


_TURN_TO: dict[Phase, str] = {
    Phase.PLAY: "it is seat {seat}'s turn to play a tile",
    Phase.BID: "it is seat {seat}'s turn to bid or pass",
    Phase.DISCARD: "it is time for the declarer (seat {seat}) to discard",
    Phase.TRUMP: "it is time for the declarer (seat {seat}) to name trump",
}


@dataclass(frozen=True, slots=True)
class Breach:
    """A rule broken and its facts; only the fields the rule uses are set."""

    rule: RuleBroken
    seat: int | None = None
    kind: ActionKind | None = None
    """The kind of action tried (`play`, `bid`, ...)."""
    phase: Phase | None = None
    tile: Tile | None = None
    suit: int | None = None
    """The suit led: 0..6, or `SUIT_TRUMP`."""
    held: tuple[Tile, ...] = ()
    bid: int | None = None
    limit: int | None = None
    """The lowest bid (`BID_TOO_LOW`), the bid to beat (`BID_NOT_HIGHER`), or the number
    of hands or tiles expected (`DEAL_HAND_*`)."""
    count: int | None = None
    to_move: int | None = None
    trump: int | None = None
    tile_set: str | None = None

    def params(self) -> dict[str, Param]:
        """The facts as plain named values, for a message that leaves the process."""
        out: dict[str, Param] = {}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.kind is not None:
            out["kind"] = self.kind
        if self.phase is not None:
            out["phase"] = self.phase.value
        if self.tile is not None:
            out["tile"] = str(self.tile)
        if self.suit is not None:
            out["suit"] = self.suit
        if self.held:
            out["held"] = tuple(str(t) for t in self.held)
        if self.bid is not None:
            out["bid"] = self.bid
        if self.limit is not None:
            out[_LIMIT_NAME.get(self.rule, "limit")] = self.limit
        if self.count is not None:
            out["count"] = self.count
        if self.trump is not None:
            out["trump"] = self.trump
        if self.to_move is not None:
            out["to_move"] = self.to_move
        if self.tile_set is not None:
            out["tile_set"] = self.tile_set
        return out

    def __str__(self) -> str:
        """The rule broken in the engine's English (`seat 2 must follow 5s: holds 5-4`)."""
        rule, seat = self.rule, self.seat
        if rule is RuleBroken.GAME_OVER:
            return "the game is over"
        if rule is RuleBroken.NOT_DEALT:
            return "the next hand has not been dealt"
        if rule is RuleBroken.NOT_YOUR_TURN:
            return f"it is not seat {seat}'s turn: seat {self.to_move} is to move"
        if rule is RuleBroken.WRONG_ACTION:
            assert self.phase is not None
            return f"{_TURN_TO[self.phase].format(seat=seat)}, not to {self.kind}"
        if rule is RuleBroken.NOT_IN_HAND:
            if self.kind == "discard":
                return f"seat {seat} cannot discard {self.tile}: not in hand"
            return f"seat {seat} does not hold {self.tile}"
        if rule is RuleBroken.MUST_FOLLOW:
            held = " ".join(str(t) for t in self.held)
            suit = "trumps" if self.suit == SUIT_TRUMP else f"{self.suit}s"
            return f"seat {seat} must follow {suit}: holds {held}"
        if rule is RuleBroken.MUST_BID:
            return f"seat {seat} must bid: everyone else passed (all_pass = force_last)"
        if rule is RuleBroken.BID_TOO_LOW:
            return f"seat {seat} bid {self.bid}: the lowest bid is {self.limit}"
        if rule is RuleBroken.BID_NOT_HIGHER:
            return f"seat {seat} bid {self.bid}: a bid must be higher than {self.limit}"
        if rule is RuleBroken.TRUMP_NOT_ALLOWED:
            if self.trump == TRUMP_DOUBLES:
                return "doubles may not be trump at this table (doubles_trump = false)"
            if self.trump == TRUMP_NONE:
                return "this table plays with a trump (no_trump = false)"
            return f"no tile of this set carries a {self.trump}: it cannot be trump"
        if rule is RuleBroken.DEAL_NOT_DUE:
            if self.phase is Phase.OVER:
                return "no hand is dealt once the game is over"
            assert self.phase is not None
            return f"the hand in play is in the {self.phase.value} phase"
        if rule is RuleBroken.DEAL_HAND_COUNT:
            return f"the deal must have {self.limit} hands, not {self.count}"
        if rule is RuleBroken.DEAL_HAND_SIZE:
            return f"seat {seat} must be dealt {self.limit} tiles, not {self.count}"
        if rule is RuleBroken.DEAL_TILE_TWICE:
            if seat is None:
                return f"the widow {self.tile} is also dealt to a seat"
            return f"{self.tile} is dealt twice (again to seat {seat})"
        if rule is RuleBroken.DEAL_TILE_NOT_IN_SET:
            if seat is None:
                return f"the widow {self.tile} is not a tile of {self.tile_set}"
            return f"{self.tile} is not a tile of {self.tile_set} (dealt to seat {seat})"
        if rule is RuleBroken.DEAL_WIDOW_MISSING:
            return f"a {self.tile_set} deal has a widow"
        return f"a {self.tile_set} deal has no widow"


_LIMIT_NAME: dict[RuleBroken, str] = {
    RuleBroken.BID_TOO_LOW: "lowest",
    RuleBroken.BID_NOT_HIGHER: "high",
    RuleBroken.DEAL_HAND_COUNT: "expected",
    RuleBroken.DEAL_HAND_SIZE: "expected",
}


class IllegalActionError(ValueError):
    """An action (or a deal) the rules do not allow now; the message names the seat and
    the rule.

    `breach` is the rule broken as data; `seat`, `action` and `reason` (the rule broken in
    words, without the action) are kept apart for callers that report them separately,
    such as a record replay.
    """

    def __init__(self, breach: Breach, *, action: Action | None = None) -> None:
        what = "deal" if action is None else str(action)
        super().__init__(f"illegal {what}: {breach}")
        self.breach = breach
        self.seat = breach.seat
        self.action = action
        self.reason = str(breach)

    @property
    def rule(self) -> RuleBroken:
        return self.breach.rule
