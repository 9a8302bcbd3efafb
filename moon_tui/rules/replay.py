"""Replaying a record: what follows from its decisions, hand by hand.

`replay_game` walks a record through the rules and keeps, for every hand, what a reader
wants to see (bids, declarer, widow and discard, trump, each trick with leader and winner,
made or set, points, running scores). `replay` turns that into the JSON of RECORD.md, a
contract other tools check; `moon-rules replay` also prints it as a readable match report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .actions import Action
from .record import (
    IllegalRecordError,
    Record,
    RecordFormatError,
    as_record,
    game_from_record,
)
from .seat_changes import check_against, decisions_in
from .state import GameState
from .tiles import TRUMP_NAMES, Tile, tiles_of
from .view import Outcome, Phase, Trick


@dataclass(frozen=True, slots=True)
class HandReplay:
    """One hand as replayed; `finished` is False for a hand still in progress."""

    number: int
    first_bidder: int
    deal: tuple[tuple[Tile, ...], ...]
    widow: Tile | None
    bids: tuple[tuple[int, Action], ...]
    declarer: int | None
    bid: int | None
    discard: Tile | None
    trump: int | None
    tricks: tuple[Trick, ...]
    tricks_won: tuple[int, ...]
    finished: bool
    made: bool | None
    points: tuple[int, ...] | None
    scores: tuple[int, ...]
    to_move: int | None

    @property
    def passed_out(self) -> bool:
        """Everyone passed: the hand is void."""
        return self.finished and self.declarer is None

    def to_json(self) -> dict[str, Any]:
        """The hand in the `--json` shape of RECORD.md."""
        return {
            "declarer": self.declarer,
            "bid": self.bid,
            "trump": None if self.trump is None else TRUMP_NAMES[self.trump],
            "tricks": [
                {"leader": t.leader, "plays": [str(tile) for _, tile in t.plays],
                 "winner": t.winner}
                for t in self.tricks
            ],
            "tricks_won": list(self.tricks_won),
            "made": self.made,
            "points": None if self.points is None else list(self.points),
            "scores": list(self.scores),
        }


@dataclass(frozen=True, slots=True)
class GameReplay:
    """A whole record replayed: its hands, the scores, the outcome, or the first fault."""

    record: Record
    hands: tuple[HandReplay, ...]
    """Every hand, unless the replay was told not to keep them (`keep_hands=False`)."""
    scores: tuple[int, ...]
    outcome: Outcome | None
    error: IllegalRecordError | None
    hand_count: int
    """How many hands were replayed (kept or not)."""

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def complete(self) -> bool:
        return self.outcome is not None

    def to_json(self) -> dict[str, Any]:
        """Exactly the `moon-rules replay --json` shape of RECORD.md."""
        if self.error is not None:
            return {"ok": False, "error": self.error.to_dict()}
        return {
            "ok": True,
            "hands": [h.to_json() for h in self.hands],
            "scores": list(self.scores),
            "complete": self.complete,
            "winner": None if self.outcome is None else self.outcome.winner,
        }


def _snapshot(state: GameState, number: int) -> HandReplay:
    """What the record's hand `number` came to, read from the state right after it."""
    log = state.logs[-1]
    finished = state.phase in (Phase.DEAL, Phase.OVER)
    # The last result only: copying them all for every hand made a replay quadratic.
    result = state.last_result if finished else None
    auction_over = state.phase is not Phase.BID
    tricks = state.tricks
    open_trick = state.current_trick
    if open_trick is not None and open_trick.plays:
        tricks += (open_trick,)
    return HandReplay(
        number=number,
        first_bidder=result.first_bidder if result is not None else state.first_bidder,
        deal=tuple(tiles_of(m) for m in log.deal_masks),
        widow=log.widow,
        bids=result.bids if result is not None else state.bids,
        declarer=state.declarer if auction_over else None,
        bid=state.bid if auction_over and state.declarer is not None else None,
        discard=log.discard,
        trump=state.trump,
        tricks=tricks,
        tricks_won=state.tricks_won,
        finished=finished,
        made=result.made if result is not None else None,
        points=result.points if result is not None else None,
        scores=state.scores,
        to_move=None if finished else state.current_player(),
    )


def replay_game(record: Record | Mapping[str, Any] | str,
                on_hand: Callable[[HandReplay], None] | None = None, *,
                keep_hands: bool = True) -> GameReplay:
    """Replay a record through the rules. A malformed record raises `RecordFormatError`;
    an illegal one comes back with the hands up to the fault and `error` set.

    `on_hand` hears each hand as soon as it is replayed; with `keep_hands=False` neither
    the hands nor the game's history are kept (a report printed as it goes holds one
    hand at a time, not 250,000), and without `on_hand` either, the replay only checks.
    """
    rec = as_record(record)
    hands: list[HandReplay] = []
    count = 0
    scores = (0,) * rec.rules.sides
    error: IllegalRecordError | None = None
    looked_at = keep_hands or on_hand is not None
    decisions: list[int] = []
    """Per hand, the decisions it holds: what `seat_changes` may point at."""

    def observe(state: GameState, number: int) -> None:
        nonlocal count, scores
        count += 1
        scores = state.scores
        if rec.seat_changes:
            decisions.append(decisions_in(state.logs[-1]))
        if looked_at:
            hand = _snapshot(state, number)
            if keep_hands:
                hands.append(hand)
            if on_hand is not None:
                on_hand(hand)
        if not keep_hands:
            state.clear_history()

    state: GameState | None = None
    try:
        state = game_from_record(rec, observe)
    except IllegalRecordError as exc:
        error = exc
    if state is not None:
        fault = check_against(rec.seat_changes, decisions)
        if fault is not None:
            _, change, reason = fault
            state, error = None, IllegalRecordError(change.hand, None, change.seat, reason)
    if state is None:
        return GameReplay(rec, tuple(hands), scores, None, error, count)
    return GameReplay(rec, tuple(hands), state.scores, state.outcome(), None, count)


def write_json(record: Record, write: Callable[[str], object]) -> GameReplay:
    """Write the `--json` answer (`json.dumps(replay_game(record).to_json())`) a hand at a
    time. An illegal record's answer is its fault alone, so the record is first replayed
    only to check it: what is written is never taken back."""
    checked = replay_game(record, keep_hands=False)
    if checked.error is not None:
        write(json.dumps(checked.to_json(), ensure_ascii=False))
        return checked
    write('{"ok": true, "hands": [')
    separator = ""

    def on_hand(hand: HandReplay) -> None:
        nonlocal separator
        write(separator + json.dumps(hand.to_json(), ensure_ascii=False))
        separator = ", "

    game = replay_game(record, on_hand, keep_hands=False)
    if game.error is not None:
        raise RecordFormatError("the file changed while it was read")
    rest = json.dumps({k: v for k, v in game.to_json().items() if k not in ("ok", "hands")},
                      ensure_ascii=False)
    write("], " + rest[1:])
    return game


def replay(record: Record | Mapping[str, Any] | str) -> dict[str, Any]:
    """The `moon-rules replay --json` answer for a record (RECORD.md).

    An illegal record gives `{"ok": false, "error": {...}}`; a malformed one raises
    `RecordFormatError` (it is not a record at all).
    """
    return replay_game(record).to_json()


__all__ = ["GameReplay", "HandReplay", "RecordFormatError", "replay", "replay_game",
           "write_json"]
