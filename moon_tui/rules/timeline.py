"""A saved game as a line of positions to step through: the replay viewer's model.

Position `(hand, k)` is hand `hand` with its first `k` decisions made (`k = 0`: just
dealt; the last `k`: the hand over, its result known). Each position's game state is
rebuilt by replaying the record through the rules: from a copy of the state at the
start of its hand, at most ~30 decisions (a hand's copy is kept, not every position's).

What may be shown is decided once, when the timeline is made (`seats`): a finished game
shows every seat and all hands open; an unfinished one only its viewer's own seat
(RULES.md, what each seat may know). Views are asked for by seat and refused for others.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .actions import BIDS, PASS, Action
from .illegal import IllegalActionError
from .record import Record, RecordHand
from .state import GameState
from .tiles import Tile
from .view import Phase, SeatView


@dataclass(frozen=True, slots=True)
class Step:
    """One decision: who made it, what, and where in its hand (`index` counts the hand's
    decisions from 0, as `seat_changes` does)."""

    hand: int
    index: int
    seat: int
    action: Action


Position = tuple[int, int]
"""(hand, decisions made in it)."""


class HiddenSeat(ValueError):
    """A view this timeline may not show (a seat of an unfinished game not the viewer's)."""


def _actions(state: GameState, hand: RecordHand) -> Iterator[Action]:
    """The hand's decisions in the order made (the state says whether the discard or the
    trump comes first)."""
    for bid in hand.bids:
        yield PASS if bid == "pass" else BIDS[int(bid)]
    while True:
        if state.phase is Phase.DISCARD and hand.discard is not None:
            yield Action.make_discard(hand.discard)
        elif state.phase is Phase.TRUMP and hand.trump is not None:
            yield Action.make_trump(hand.trump)
        else:
            break
    for tile in hand.plays:
        yield Action.make_play(tile)


class Timeline:
    def __init__(self, record: Record, seats: frozenset[int] | None = None) -> None:
        """`seats`: the seats whose views may be shown (None: all, and all hands open)."""
        self.record = record
        self.seats = seats
        self.players = record.rules.players
        self._starts: list[GameState] = []
        self.steps: list[list[Step]] = []
        """Each hand's decisions."""
        self.trick_ends: list[list[int]] = []
        """For each hand, the `k` after which a trick is complete (and the play begins)."""
        state = GameState(record.rules, record.first_bidder)
        for number, hand in enumerate(record.hands):
            try:
                state.deal_tiles(hand.deal, hand.widow)
            except IllegalActionError:
                break
            self._starts.append(state.clone())
            steps: list[Step] = []
            ends: list[int] = []
            try:
                for action in _actions(state, hand):
                    seat = state.current_player()
                    state.apply_action(action)
                    steps.append(Step(number, len(steps), seat, action))
                    if action.kind != "play" and state.phase is Phase.PLAY:
                        ends.append(len(steps))  # the first lead is next
                    elif action.kind == "play" and (state.current_trick is None
                                                    or not state.current_trick.plays):
                        ends.append(len(steps))  # a trick is complete
            except IllegalActionError:  # an illegal record: shown up to its fault
                self.steps.append(steps)
                self.trick_ends.append(ends)
                break
            self.steps.append(steps)
            self.trick_ends.append(ends)
        self.positions: list[Position] = [
            (h, k) for h, steps in enumerate(self.steps) for k in range(len(steps) + 1)]
        self._cache: tuple[Position, GameState] | None = None

    # -- where -----------------------------------------------------------------------------
    @property
    def last(self) -> int:
        return max(0, len(self.positions) - 1)

    def at(self, index: int) -> Position:
        return self.positions[max(0, min(index, self.last))]

    def index_of(self, position: Position) -> int:
        return self.positions.index(position)

    def step_to(self, index: int) -> Step | None:
        """The decision that led to position `index` (None at a hand's start)."""
        hand, k = self.at(index)
        return self.steps[hand][k - 1] if k else None

    def next_step(self, index: int) -> Step | None:
        """The decision made from position `index` (None at a hand's end)."""
        hand, k = self.at(index)
        return self.steps[hand][k] if k < len(self.steps[hand]) else None

    def _landmarks(self, trick: bool) -> list[int]:
        """Hand starts and ends, and with `trick` each trick's end."""
        marks = []
        for i, (hand, k) in enumerate(self.positions):
            if k == 0 or k == len(self.steps[hand]) or (trick and k in self.trick_ends[hand]):
                marks.append(i)
        return marks

    def next_trick(self, index: int, direction: int) -> int:
        return self._jump(index, direction, self._landmarks(trick=True))

    def next_hand(self, index: int, direction: int) -> int:
        starts = [i for i, (_, k) in enumerate(self.positions) if k == 0]
        return self._jump(index, direction, starts)

    def _jump(self, index: int, direction: int, marks: list[int]) -> int:
        if direction > 0:
            return next((m for m in marks if m > index), self.last)
        return next((m for m in reversed(marks) if m < index), 0)

    # -- what -----------------------------------------------------------------------------
    def state(self, index: int) -> GameState:
        """The game at position `index`: the timeline's own, to read and not to change
        (`clone()` it to play on). It holds every hand: for the analysis, which runs where
        no one sees it; a screen shows `view`s.

        Stepping forward in a hand applies the next decisions to the state kept from the
        last call; anything else starts again from a copy of the hand's start (a copy
        costs as much as the game is long)."""
        position = self.at(index)
        hand, k = position
        cached = self._cache
        if cached is not None and cached[0][0] == hand and cached[0][1] <= k:
            state, done = cached[1], cached[0][1]
        else:
            state, done = self._starts[hand].clone(), 0
        for step in self.steps[hand][done:k]:
            state.apply_action(step.action)
        self._cache = (position, state)
        return state

    def may_show(self, seat: int) -> bool:
        return self.seats is None or seat in self.seats

    @property
    def all_open(self) -> bool:
        """Every hand may be shown at once (a finished game)."""
        return self.seats is None

    def view(self, index: int, seat: int | None) -> SeatView:
        """What `seat` knew at position `index` (None: what a spectator saw, for a game
        shown whole)."""
        if seat is None if not self.all_open else False:
            raise HiddenSeat("only a seat's view of this game may be shown")
        if seat is not None and not self.may_show(seat):
            raise HiddenSeat(f"seat {seat} of this game may not be shown")
        return self.state(index).view(seat)

    def hands(self, index: int) -> tuple[tuple[Tile, ...], ...]:
        """Every seat's tiles at position `index`: only for a game shown whole."""
        if not self.all_open:
            raise HiddenSeat("the hands of an unfinished game may not be shown")
        state = self.state(index)
        return tuple(state.hand_of(seat) for seat in range(self.players))

    def widow_and_discard(self, index: int) -> tuple[Tile | None, Tile | None]:
        """The hand's widow and discard: only for a game shown whole."""
        if not self.all_open:
            raise HiddenSeat("the widow of an unfinished game may not be shown")
        hand, k = self.at(index)
        record_hand = self.record.hands[hand]
        discarded = any(s.action.kind == "discard" for s in self.steps[hand][:k])
        return record_hand.widow, record_hand.discard if discarded else None


__all__ = ["HiddenSeat", "Position", "Step", "Timeline"]
