"""The `moon/1` game record (RECORD.md): read it, write it, and rebuild the game from it.

Like PGN, a record stores only the decisions: the deal and, for each hand, the bids, the
discard, the trump and the tiles in the order played. Everything else (whose turn, who won a
trick, the scores) is rebuilt by replaying those decisions through `GameState`.

Two kinds of bad input, kept apart because `moon-rules replay` answers them differently:
- `RecordFormatError`: not a `moon/1` record at all (bad JSON, wrong shape, unknown tile);
  the message says what is wrong and where (`hands[1].deal[2][3]: ...`).
- `IllegalRecordError`: a well-formed record whose decisions break a rule; it carries the
  hand, the play (index in `plays`, or None), the seat and the rule broken.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Final

from ..json_stream import CHUNK, JsonStream, JsonSyntaxError, NotUtf8Error
from ..shown import brief
from .actions import BIDS, PASS, Action
from .illegal import IllegalActionError
from .options import Rules, RulesError
from .seat_changes import SeatChange, SeatChangeError, seat_changes_from
from .state import GameState, HandLog
from .tiles import (
    TILES,
    TRUMP_NAMES,
    Tile,
    TileError,
    parse_trump,
    spelled_tiles,
    tiles_of,
)
from .view import Phase

FORMAT: Final = "moon/1"

SEAT_NAME_MAX: Final = 16
"""The longest seat name a record may hold: the server's own name limit (a 10 MB name
once cost 2.3 GB to report). Computer seats are named like "expert bot"."""

Bid = int | str
"""A bid as the record stores it: `"pass"` or a number."""


class RecordFormatError(ValueError):
    """The text is not a `moon/1` record; `where` locates the fault (`""` for the whole)."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(f"not a moon/1 record: {where + ': ' if where else ''}{message}")
        self.detail = message
        self.where = where
        self.hand = _hand_of_path(where)


class IllegalRecordError(ValueError):
    """A decision of the record breaks a rule: which hand, which play, which seat, why."""

    def __init__(self, hand: int | None, play: int | None, seat: int | None,
                 reason: str) -> None:
        where = [] if hand is None else [f"hand {hand}"]
        if play is not None:
            where.append(f"play {play}")
        if seat is not None:
            where.append(f"seat {seat}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)
        self.hand = hand
        self.play = play
        self.seat = seat
        self.reason = reason

    def to_dict(self) -> dict[str, Any]:
        return {"hand": self.hand, "play": self.play, "seat": self.seat, "reason": self.reason}


def _hand_of_path(where: str) -> int | None:
    if where.startswith("hands[") and "]" in where:
        inside = where[len("hands["):where.index("]")]
        if inside.isdecimal():
            return int(inside)
    return None


@dataclass(frozen=True, slots=True)
class RecordHand:
    """One hand of a record; fields not reached yet (or not in this variant) are None."""

    deal: tuple[tuple[Tile, ...], ...]
    widow: Tile | None
    bids: tuple[Bid, ...]
    discard: Tile | None = None
    trump: int | None = None
    plays: tuple[Tile, ...] = ()
    has_plays: bool = False
    """True when the record lists `plays` (even empty): the play has begun."""

    def to_dict(self) -> dict[str, Any]:
        """The hand as RECORD.md writes it: keys in a fixed order, absent when unknown."""
        out: dict[str, Any] = {"deal": [[str(t) for t in hand] for hand in self.deal]}
        if self.widow is not None:
            out["widow"] = str(self.widow)
        out["bids"] = list(self.bids)
        if self.discard is not None:
            out["discard"] = str(self.discard)
        if self.trump is not None:
            out["trump"] = TRUMP_NAMES[self.trump]
        if self.plays or self.has_plays:
            out["plays"] = [str(t) for t in self.plays]
        return out


@dataclass(frozen=True, slots=True)
class Record:
    """A parsed `moon/1` record: well-formed, but not yet checked against the rules."""

    rules: Rules
    seats: tuple[str, ...]
    first_bidder: int
    hands: Iterable[RecordHand]
    """A tuple, or for a record read from a file (`read_record`) the hands read from it
    again each time they are walked."""
    seat_changes: tuple[SeatChange, ...] = ()
    """Who played a seat when it was not the person named (a server's record)."""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "seats": list(self.seats),
            "first_bidder": self.first_bidder,
            "hands": [h.to_dict() for h in self.hands],
        }
        if self.seat_changes:
            out["seat_changes"] = [c.to_dict() for c in self.seat_changes]
        return out


# -- writing ---------------------------------------------------------------------------------

def record_of(state: GameState, seats: Sequence[str],
              seat_changes: Sequence[SeatChange] = ()) -> dict[str, Any]:
    """The `moon/1` record of a game, finished or in progress, as a JSON-ready dict;
    `seat_changes`: who played a seat when it was not the person named (a server's)."""
    if len(seats) != state.players:
        raise ValueError(f"a {state.players}-player record needs {state.players} seat names, "
                         f"not {len(seats)}")
    hands = tuple(record_hand(log) for log in state.logs)
    return Record(state.rules, tuple(seats), state.game_first_bidder, hands,
                  tuple(seat_changes)).to_dict()


def record_hand(log: HandLog, *, deal: bool = True) -> RecordHand:
    """One hand of a game as its record holds it (`.to_dict()` is the hand in `moon/1`);
    without the deal if told (`deal=()`: a caller that keeps it already)."""
    return RecordHand(
        deal=tuple(tiles_of(m) for m in log.deal_masks) if deal else (),
        widow=log.widow,
        bids=tuple(log.bids),
        discard=log.discard,
        trump=log.trump,
        plays=tuple(TILES[i] for i in log.plays),
        has_plays=log.trump is not None,
    )


def dumps_record(record: Mapping[str, Any] | Record) -> str:
    """The record as JSON text: one key per line, each hand's lists kept on one line each."""
    data = record.to_dict() if isinstance(record, Record) else dict(record)

    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = ["{"]
    top = [(k, v) for k, v in data.items() if k != "hands"]
    for key, value in top:
        lines.append(f"  {compact(key)}: {compact(value)},")
    hands = data.get("hands", [])
    if not hands:
        lines.append('  "hands": []')
    else:
        lines.append('  "hands": [')
        for i, hand in enumerate(hands):
            inner = ",\n".join(f"      {compact(k)}: {compact(v)}" for k, v in hand.items())
            lines.append("    {\n" + inner + "\n    }" + ("," if i < len(hands) - 1 else ""))
        lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- reading ---------------------------------------------------------------------------------

def parse_record(text: str) -> Record:
    """Parse the text of a `moon/1` record; `RecordFormatError` says what is wrong and where."""
    if not isinstance(text, str):
        raise RecordFormatError(f"a record is text, not {type(text).__name__}")
    record = read_record(io.BytesIO(text.encode("utf-8", "surrogatepass")))
    return dataclasses.replace(record, hands=tuple(record.hands))


def read_record(file: BinaryIO, *, chunk: int = CHUNK) -> Record:
    """The record in a seekable binary `file`, from its current offset, checked whole
    (JSON, the rules and seats, the shape of every hand: `RecordFormatError` says what is
    wrong and where, as for the whole text) but not held: its `hands` are read again from
    the file, a hand at a time, each time they are walked. The file must stay open as long
    as the record is used.

    A record of 250,000 hands decoded whole held a gigabyte (issue 31); read this way, a
    replay holds one hand. Errors are found in the order of a reading of the whole text:
    bytes that are not UTF-8, then JSON, then the shape, key by key and hand by hand.
    `chunk` is how many bytes are read at a time.
    """
    stream = JsonStream(file, chunk=chunk)
    try:
        try:
            found = _scan(stream)
        except JsonSyntaxError as exc:
            stream.drain()  # bytes that are not UTF-8, later on, come first
            raise RecordFormatError(f"not JSON: {exc.msg} at line {exc.line} column "
                                    f"{exc.column}") from None
        except RecursionError as exc:
            stream.drain()
            raise RecordFormatError(f"not JSON: {exc}") from None
    except EOFError:
        raise RecordFormatError("the file is empty") from None
    except NotUtf8Error as exc:
        raise RecordFormatError(str(exc)) from None
    rules, seats, first = _record_head(found.document)
    hands = found.hands
    if hands is None:  # no list of hands, or something else
        return _record_from(found.document)
    if hands.checked != found.rules_read:  # the rules came after the hands
        hands.fault = hands.first_fault(rules)
    if hands.fault is not None:
        raise hands.fault
    hands.rules = rules
    return Record(rules, seats, first, hands, _seat_changes(found.document, rules))


@dataclass(slots=True)
class _Scanned:
    document: object
    """The whole document when it is not an object, else its members but `hands`."""
    hands: HandsInFile | None = None
    rules_read: int = 0
    """How many times a `rules` member was read (a later one replaces an earlier)."""


def _scan(stream: JsonStream) -> _Scanned:
    """Read the document once to its end: every member but the list of hands, and where
    that list starts; each hand's shape is checked as it goes by when the rules came
    before it (as `moon-rules random` and the server write them)."""
    if stream.begin() != "{":
        document = stream.value()
        stream.end()
        return _Scanned(document)
    members: dict[str, Any] = {}
    found = _Scanned(members)
    for key in stream.keys():
        if key != "hands" or stream.peek() != "[":
            members[key] = stream.value()
            if key == "rules":
                found.rules_read += 1
            elif key == "hands":
                found.hands = None
            continue
        members.pop("hands", None)
        hands = found.hands = HandsInFile(stream, stream.byte_offset())
        try:
            rules: Rules | None = _rules_from(members.get("rules", {}))
        except RecordFormatError:
            rules = None
        for i, raw in enumerate(stream.items()):
            if rules is not None and hands.fault is None:
                try:
                    _hand_from_dict(raw, f"hands[{i}]", rules)
                except RecordFormatError as exc:
                    hands.fault = exc
        if rules is not None:
            hands.checked = found.rules_read
    stream.end()
    return found


class HandsInFile:
    """The hands of a record in a file, read (and their shape checked) again each time they
    are walked: the hands of a `Record` that `read_record` gives."""

    def __init__(self, stream: JsonStream, offset: int) -> None:
        self.file = stream.file
        self.chunk = stream.chunk
        self.offset = offset
        """Where the list starts in the file (its `[`)."""
        self.rules: Rules | None = None
        self.fault: RecordFormatError | None = None
        self.checked: int | None = None
        """The `_Scanned.rules_read` the hands were checked against, if they were."""

    def __iter__(self) -> Iterator[RecordHand]:
        assert self.rules is not None, "read_record sets the rules"
        for i, raw in enumerate(self._raw()):
            yield _hand_from_dict(raw, f"hands[{i}]", self.rules)

    def first_fault(self, rules: Rules) -> RecordFormatError | None:
        """Why the first malformed hand is not a hand of a game with these rules."""
        for i, raw in enumerate(self._raw()):
            try:
                _hand_from_dict(raw, f"hands[{i}]", rules)
            except RecordFormatError as exc:
                return exc
        return None

    def _raw(self) -> Iterator[Any]:
        try:
            yield from JsonStream(self.file, self.offset, self.chunk).items()
        except (JsonSyntaxError, NotUtf8Error, RecursionError):
            raise RecordFormatError("the file changed while it was read", "hands") from None


def _kind(value: object) -> str:
    """The JSON name of a value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {brief(value)}"
    if isinstance(value, str):
        return f"the text {brief(value)}" if len(value) <= 20 else "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _tile(value: object, where: str) -> Tile:
    if not isinstance(value, str):
        raise RecordFormatError(f"a tile is text like \"6-4\", not {_kind(value)}", where)
    try:
        return Tile.parse(value)
    except TileError as exc:
        raise RecordFormatError(f"unknown tile {brief(value)} ({exc})",
                                where) from None


def _tiles(value: object, where: str, what: str) -> tuple[Tile, ...]:
    """A list of tiles; the location of a bad one is worked out only when there is one
    (a record of 250,000 hands has ten million tiles)."""
    items = _list(value, where, what)
    tiles = spelled_tiles(items)
    if tiles is None:
        tiles = tuple(_tile(t, f"{where}[{j}]") for j, t in enumerate(items))
    return tiles


def _optional_tile(value: object, where: str) -> Tile | None:
    return None if value is None else _tile(value, where)


def _list(value: object, where: str, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordFormatError(f"{what} must be a list, not {_kind(value)}", where)
    return value


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def record_from_dict(data: object) -> Record:
    """Check the shape of a decoded record and build a `Record` (rules not yet checked)."""
    return _record_from(data)


def _record_from(data: object) -> Record:
    rules, seats, first = _record_head(data)
    assert isinstance(data, dict)
    hands_raw = _list(data.get("hands", []), "hands", "hands")
    hands = tuple(_hand_from_dict(raw, f"hands[{i}]", rules) for i, raw in enumerate(hands_raw))
    return Record(rules, seats, first, hands, _seat_changes(data, rules))


def _seat_changes(data: object, rules: Rules) -> tuple[SeatChange, ...]:
    """The record's `seat_changes`, checked for shape (seat_changes.py)."""
    raw = data.get("seat_changes") if isinstance(data, dict) else None
    try:
        return seat_changes_from(raw, rules.players)
    except SeatChangeError as exc:
        raise RecordFormatError(str(exc), exc.where) from None


def _record_head(data: object) -> tuple[Rules, tuple[str, ...], int]:
    """The rules, the seats and the first bidder of a decoded record, checked."""
    if not isinstance(data, dict):
        raise RecordFormatError(f"the document is {_kind(data)}, not an object")
    fmt = data.get("format")
    if fmt != FORMAT:
        shown = "missing" if "format" not in data else _kind(fmt)
        raise RecordFormatError(f"\"format\" is {shown}, not \"{FORMAT}\"", "format")
    rules = _rules_from(data.get("rules", {}))
    n = rules.players

    if "seats" not in data:
        raise RecordFormatError("missing: a list of the seats' names", "seats")
    seats = _list(data["seats"], "seats", "seats")
    if len(seats) != n:
        raise RecordFormatError(f"a {n}-player record has {n} seats, not {len(seats)}", "seats")
    for i, name in enumerate(seats):
        problem = seat_name_problem(name)
        if problem is not None:
            raise RecordFormatError(problem, f"seats[{i}]")

    if "first_bidder" not in data:
        raise RecordFormatError(f"missing: the first bidder's seat (0 to {n - 1})",
                                "first_bidder")
    first = data["first_bidder"]
    if not _whole(first) or not 0 <= first < n:
        raise RecordFormatError(f"must be a seat from 0 to {n - 1}, not {_kind(first)}",
                                "first_bidder")
    return rules, tuple(seats), first


def _rules_from(raw_rules: object) -> Rules:
    if not isinstance(raw_rules, dict):
        raise RecordFormatError(f"must be an object, not {_kind(raw_rules)}", "rules")
    try:
        return Rules.from_dict(raw_rules)
    except RulesError as exc:
        raise RecordFormatError(str(exc), "rules") from None
    except TypeError as exc:  # a key Python cannot take as an argument
        raise RecordFormatError(f"unknown rule option ({exc})", "rules") from None


def seat_name_problem(name: object) -> str | None:
    """Why `name` cannot be a seat's name in a record, or None when it can: text of at most
    `SEAT_NAME_MAX` characters (anything unprintable in it is shown escaped)."""
    if not isinstance(name, str):
        return f"a seat's name is text, not {_kind(name)}"
    if len(name) > SEAT_NAME_MAX:
        return f"a seat's name is at most {SEAT_NAME_MAX} characters, not {len(name):,}"
    return None


def _hand_from_dict(data: object, where: str, rules: Rules) -> RecordHand:
    if not isinstance(data, dict):
        raise RecordFormatError(f"a hand must be an object, not {_kind(data)}", where)
    n = rules.players
    if "deal" not in data:
        raise RecordFormatError("missing: the deal", f"{where}.deal")
    deal_raw = _list(data["deal"], f"{where}.deal", "the deal")
    if len(deal_raw) != n:
        raise RecordFormatError(f"the deal of a {n}-player game has {n} hands, "
                                f"not {len(deal_raw)}", f"{where}.deal")
    deal = tuple(_tiles(hand, f"{where}.deal[{s}]", "a seat's deal")
                 for s, hand in enumerate(deal_raw))
    widow = _optional_tile(data.get("widow"), f"{where}.widow")

    bids: list[Bid] = []
    for j, bid in enumerate(_list(data.get("bids", []), f"{where}.bids", "bids")):
        if bid == "pass" or _whole(bid):
            bids.append(bid)
        else:
            raise RecordFormatError(f"a bid is \"pass\" or a number, not {_kind(bid)}",
                                    f"{where}.bids[{j}]")

    discard = _optional_tile(data.get("discard"), f"{where}.discard")

    trump_raw = data.get("trump")
    trump: int | None = None
    if trump_raw is not None:
        if _whole(trump_raw) and 0 <= trump_raw <= 6:
            trump = trump_raw
        elif isinstance(trump_raw, str):
            try:
                trump = parse_trump(trump_raw)
            except ValueError:
                raise RecordFormatError(
                    f"unknown trump {brief(trump_raw)} (\"0\" to \"6\", "
                    "\"doubles\" or \"none\")", f"{where}.trump") from None
        else:
            raise RecordFormatError(f"a trump is text like \"5\", \"doubles\" or \"none\", "
                                    f"not {_kind(trump_raw)}", f"{where}.trump")

    plays_raw = data.get("plays")
    plays: tuple[Tile, ...] = ()
    if plays_raw is not None:
        plays = _tiles(plays_raw, f"{where}.plays", "plays")
    return RecordHand(deal, widow, tuple(bids), discard, trump, plays,
                      has_plays=plays_raw is not None)


def as_record(record: Record | Mapping[str, Any] | str) -> Record:
    """A `Record` from a parsed record, its dict, or its text."""
    if isinstance(record, Record):
        return record
    if isinstance(record, str):
        return parse_record(record)
    return record_from_dict(dict(record))


# -- rebuilding the game ---------------------------------------------------------------------

HandObserver = Callable[[GameState, int], None]
"""Called with the state after each hand's recorded decisions (complete or not)."""


def game_from_record(record: Record | Mapping[str, Any] | str,
                     observe: HandObserver | None = None) -> GameState:
    """Replay every decision of the record through the rules and return the game state.

    Raises `RecordFormatError` for a malformed record and `IllegalRecordError` (hand, play,
    seat, reason) at the first decision the rules do not allow.
    """
    rec = as_record(record)
    state = GameState(rec.rules, rec.first_bidder)
    for number, hand in enumerate(rec.hands):
        _check_can_start(state, number)
        try:
            state.deal_tiles(hand.deal, hand.widow)
        except IllegalActionError as exc:
            raise IllegalRecordError(number, None, exc.seat, exc.reason) from None
        try:
            _replay_hand(state, number, hand)
        finally:
            if observe is not None:
                observe(state, number)
    return state


def _check_can_start(state: GameState, number: int) -> None:
    """Only the last hand may stop early, and no hand may follow the end of the game."""
    if number == 0:
        return
    if state.is_terminal():
        outcome = state.outcome()
        assert outcome is not None
        raise IllegalRecordError(number, None, None,
                                 f"the game was over after hand {number - 1} (side "
                                 f"{outcome.winner} won): no hand may follow")
    if state.current_player() >= 0:
        seat = state.current_player()
        raise IllegalRecordError(
            number - 1, None, seat,
            f"hand {number - 1} stops in the {state.phase.value} phase (seat {seat} to act) "
            "but another hand follows: only the last hand may be unfinished")


def _replay_hand(state: GameState, number: int, hand: RecordHand) -> None:
    rules = state.rules

    def apply(action: Action, play: int | None) -> None:
        try:
            state.apply_action(action)
        except IllegalActionError as exc:
            raise IllegalRecordError(number, play, exc.seat, exc.reason) from None

    for bid in hand.bids:
        seat = state.current_player()
        if state.phase is not Phase.BID:
            raise IllegalRecordError(number, None, None, _auction_over(state, len(hand.bids)))
        if bid == "pass":
            apply(PASS, None)
        elif isinstance(bid, int) and bid in BIDS:
            apply(BIDS[bid], None)
        else:
            raise IllegalRecordError(number, None, seat,
                                     f"seat {seat} bid {bid}: a bid is a whole number from "
                                     f"{rules.min_bid} to 7, or 21 (the moon)")

    # An empty `plays` list decides nothing, so it is no fault anywhere.
    later = {"discard": hand.discard is not None, "trump": hand.trump is not None,
             "plays": bool(hand.plays)}
    if state.phase is Phase.BID:
        if any(later.values()):
            seat = state.current_player()
            what = next(k for k, v in later.items() if v)
            raise IllegalRecordError(number, None, seat,
                                     f"the hand has a {what} but the auction is not over "
                                     f"(seat {seat} to bid)")
        return
    after_auction = state.phase
    if after_auction is not Phase.DISCARD and after_auction is not Phase.TRUMP:
        if any(later.values()):
            what = next(k for k, v in later.items() if v)
            raise IllegalRecordError(number, None, None,
                                     f"everyone passed, so the hand has no {what}")
        return

    if hand.discard is not None and not rules.has_widow:
        raise IllegalRecordError(number, None, state.declarer,
                                 f"a {rules.set} hand has no widow, so no discard")
    order = ["discard", "trump"] if after_auction is Phase.DISCARD else ["trump", "discard"]
    if not rules.has_widow:
        order = ["trump"]
    for i, step in enumerate(order):
        if not later[step]:
            missing_before = [k for k in [*order[i + 1:], "plays"] if later[k]]
            if missing_before:
                raise IllegalRecordError(
                    number, None, state.current_player(),
                    f"the hand has a {missing_before[0]} but no {step} (the declarer, seat "
                    f"{state.declarer}, {'discards' if step == 'discard' else 'names trump'}"
                    " first)")
            return
        if step == "discard":
            assert hand.discard is not None
            apply(Action.make_discard(hand.discard), None)
        else:
            assert hand.trump is not None
            apply(Action.make_trump(hand.trump), None)

    # The plays are most of a record: one tight loop (a long replay spends its time here).
    apply_action = state.apply_action
    make_play = Action.make_play
    for j, tile in enumerate(hand.plays):
        if state.phase is not Phase.PLAY:
            raise IllegalRecordError(number, j, None,
                                     f"the hand is over after {j} plays: play {j} ({tile}) is "
                                     "one too many")
        try:
            apply_action(make_play(tile))
        except IllegalActionError as exc:
            raise IllegalRecordError(number, j, exc.seat, exc.reason) from None


def _auction_over(state: GameState, bids: int) -> str:
    if state.declarer is not None and state.bid == 21:
        return f"the auction ended with the moon: the hand has {bids} bids, too many"
    return f"the auction ended when every seat had spoken: the hand has {bids} bids, too many"


__all__ = ["FORMAT", "SEAT_NAME_MAX", "IllegalRecordError", "Record", "RecordFormatError",
           "RecordHand", "as_record", "dumps_record", "game_from_record", "parse_record",
           "read_record", "record_from_dict", "record_hand", "record_of", "seat_name_problem"]
