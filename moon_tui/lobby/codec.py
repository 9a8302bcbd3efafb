"""The wire format of the lobby's messages: versioned JSON, every message and its values.

A table and its players may one day live in different processes (or machines), so what
crosses between them must be bytes that any version of the code can recognise, and that a
hostile sender cannot turn into anything but a refusal. Pickle could do neither. Here:

- every message is one JSON object `{"v": VERSION, "t": "<type>", <fields>...}`; a
  message of another version is refused with a `CodecError` that says which;
- values use the text forms the rules layer already has: a tile `"6-4"` (`Tile.parse`),
  an action `"play 6-4"` (`Action.parse`), rules as `Rules.to_dict()`, an enum by value;
- the shape of each message is read from its dataclass's type hints once, and compiled
  into an encoder and a decoder (`_compile`): no hand-written field lists to drift;
- `decode` checks every value against its declared type and raises `CodecError` (a
  `ValueError`), and nothing else, for any bytes at all (`tests/test_lobby_codec.py`).

JSON, not msgpack: most of the time goes in walking the values, which both share, so
over a whole round trip they measured within noise of each other (`bench/codec.py`, runs
on a shared machine: a `TableUpdate` 240-280 us with JSON, 225-270 us with msgpack; an
`Act` 16 us against 7-10 us); JSON needs no dependency and its bytes can be read.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import json
import math
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

from ..rules import Action, HandResult, Outcome, Rules, SeatView, Tile, Trick
from . import internal, messages

VERSION = 7
"""The version of the wire format: bump it whenever a message's shape changes (2: tables
say whether they are practice tables, `CreateTable` may play on from a record; 3: a
worker's share names the process that runs its tables; 4: a table says which of its
spectators a restart left who are not back yet; 5: a refusal is its code and parameters
only, no English; 6: a seat says whether a computer played for its absent player; 7: a
worker's busy alarm says how much of its stalls it ran)."""
MAX_MESSAGE_BYTES = 4 << 20
"""The largest message read (a whole game's results fit in a few tens of kilobytes)."""


class CodecError(ValueError):
    """Bytes that are not a message of this version: the one error `decode` raises."""


Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]


def _fail(what: str, value: object) -> typing.NoReturn:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise CodecError(f"expected {what}, got {shown}")


# --- the pieces: one encoder and one decoder per kind of value ---------------------------

def _exact(kind: type, what: str) -> Decoder:
    def decode(value: Any) -> Any:
        if type(value) is not kind:
            _fail(what, value)
        return value
    return decode


def _both(check: Decoder) -> tuple[Encoder, Decoder]:
    """A plain value is written as it is read: checked, and kept."""
    return check, check


def _float(value: Any) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        _fail("a number", value)
    return float(value)


def _none(value: Any) -> None:
    if value is not None:
        _fail("null", value)


def _tile_text(tile: Any) -> str:
    if type(tile) is not Tile:
        _fail("a tile", tile)
    return str(tile)


def _tile(value: Any) -> Tile:
    if type(value) is not str:
        _fail("a tile", value)
    return Tile.parse(value)


_ACTION_TEXT: dict[Action, str] = {}
_ACTIONS: dict[str, Action] = {}


def _action_text(action: Any) -> str:
    if type(action) is not Action:
        _fail("an action", action)
    text = _ACTION_TEXT.get(action)
    if text is None:
        text = _ACTION_TEXT[action] = str(action)
        _ACTIONS[text] = action
    return text


def _action(value: Any) -> Action:
    if type(value) is not str:
        _fail("an action", value)
    known = _ACTIONS.get(value)
    return known if known is not None else Action.parse(value)


def _rules_dict(rules: Any) -> dict[str, Any]:
    if type(rules) is not Rules:
        _fail("rules", rules)
    return _rules_written(rules)


@functools.lru_cache(maxsize=64)
def _rules_written(rules: Rules) -> dict[str, Any]:
    """A club's tables share a few rule sets: each is written out once (read-only)."""
    return rules.to_dict()


@functools.lru_cache(maxsize=64)
def _rules_of(items: tuple[tuple[str, Any], ...]) -> Rules:
    return Rules.from_dict(dict(items))


def _rules(value: Any) -> Rules:
    if type(value) is not dict or not all(type(v) in (int, str, bool) for v in value.values()):
        _fail("rules", value)
    return _rules_of(tuple(value.items()))


def _literal(allowed: tuple[object, ...]) -> Decoder:
    def decode(value: Any) -> Any:
        if value not in allowed or type(value) not in {type(a) for a in allowed}:
            _fail(f"one of {allowed}", value)
        return value
    return decode


def _enum(cls: type[enum.Enum]) -> tuple[Encoder, Decoder]:
    by_value = {member.value: member for member in cls}

    def encode(member: Any) -> Any:
        if not isinstance(member, cls):
            _fail(f"a {cls.__name__}", member)
        return member.value

    def decode(value: Any) -> Any:
        if type(value) is not str or value not in by_value:
            _fail(f"a {cls.__name__}", value)
        return by_value[value]
    return encode, decode


def _tuple(item: tuple[Encoder, Decoder]) -> tuple[Encoder, Decoder]:
    enc, dec = item

    def encode(value: Any) -> Any:
        if type(value) is not tuple:
            _fail("a tuple", value)
        return [enc(v) for v in value]

    def decode(value: Any) -> Any:
        if type(value) is not list:
            _fail("a list", value)
        return tuple(dec(v) for v in value)
    return encode, decode


def _fixed(items: list[tuple[Encoder, Decoder]]) -> tuple[Encoder, Decoder]:
    encs = [e for e, _ in items]
    decs = [d for _, d in items]
    size = len(items)

    def encode(value: Any) -> Any:
        if type(value) is not tuple or len(value) != size:
            _fail(f"a tuple of {size}", value)
        return [e(v) for e, v in zip(encs, value, strict=True)]

    def decode(value: Any) -> Any:
        if type(value) is not list or len(value) != size:
            _fail(f"a list of {size}", value)
        return tuple(d(v) for d, v in zip(decs, value, strict=True))
    return encode, decode


def _mapping(item: tuple[Encoder, Decoder]) -> tuple[Encoder, Decoder]:
    enc, dec = item

    def encode(value: Any) -> Any:
        if not isinstance(value, collections.abc.Mapping) \
                or any(type(k) is not str for k in value):
            _fail("a mapping of text", value)
        return {k: enc(v) for k, v in value.items()}

    def decode(value: Any) -> Any:
        if type(value) is not dict or any(type(k) is not str for k in value):
            _fail("an object", value)
        return {k: dec(v) for k, v in value.items()}
    return encode, decode


def _optional(item: tuple[Encoder, Decoder]) -> tuple[Encoder, Decoder]:
    enc, dec = item

    def encode(value: Any) -> Any:
        return None if value is None else enc(value)

    def decode(value: Any) -> Any:
        return None if value is None else dec(value)
    return encode, decode


_JSON_KIND: dict[type, type] = {int: int, str: str, bool: bool, float: float, tuple: list}


def _by_kind(members: list[Any]) -> tuple[Encoder, Decoder]:
    """A union of plain values of different JSON kinds (`Param`: int | str | tuple)."""
    coders: dict[type, tuple[Encoder, Decoder]] = {}
    for member in members:
        kind = typing.get_origin(member) or member
        if kind not in _JSON_KIND or _JSON_KIND[kind] in coders:
            raise TypeError(f"the codec cannot tell the members of {members} apart")
        coders[_JSON_KIND[kind]] = _compile(member)
    by_python = {python: coders[kind] for python, kind in _JSON_KIND.items() if kind in coders}

    def encode(value: Any) -> Any:
        coder = by_python.get(type(value))
        if coder is None:
            _fail("a plain value", value)
        return coder[0](value)

    def decode(value: Any) -> Any:
        coder = coders.get(type(value))
        if coder is None:
            _fail("a plain value", value)
        return coder[1](value)
    return encode, decode


def _enums(members: list[type[enum.Enum]]) -> tuple[Encoder, Decoder]:
    """A union of enums (`RuleBroken | Refusal`): `[enum name, value]`."""
    coders = {cls.__name__: _enum(cls)[1] for cls in members}

    def encode(member: Any) -> Any:
        if type(member) not in members:
            _fail(f"one of {sorted(coders)}", member)
        return [type(member).__name__, member.value]

    def decode(value: Any) -> Any:
        if type(value) is not list or len(value) != 2 or value[0] not in coders:
            _fail(f"one of {sorted(coders)}", value)
        return coders[value[0]](value[1])
    return encode, decode


def _dataclass(cls: type, tag: str | None) -> tuple[Encoder, Decoder]:
    """A dataclass as an object of its fields (with `"t": tag` when a union holds it)."""
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    expected = set(names) | ({"t"} if tag is not None else set())
    # Compiled lazily: a type may hold itself in a union (a command inside `Rejected`).
    coders: list[tuple[str, Encoder, Decoder]] = []

    def ready() -> list[tuple[str, Encoder, Decoder]]:
        if not coders:
            coders.extend((n, *_compile(hints[n])) for n in names)
        return coders

    def encode(value: Any) -> Any:
        if type(value) is not cls:
            _fail(f"a {cls.__name__}", value)
        out = {name: enc(getattr(value, name)) for name, enc, _ in ready()}
        if tag is not None:
            out["t"] = tag
        return out

    def decode(value: Any) -> Any:
        if type(value) is not dict or value.keys() != expected:
            _fail(f"the fields of {cls.__name__}", value)
        return cls(**{name: dec(value[name]) for name, _, dec in ready()})
    return encode, decode


def _tagged(members: list[type]) -> tuple[Encoder, Decoder]:
    """A union of dataclasses (a `Command`): each object names its type in `"t"`."""
    coders = {cls: _dataclass(cls, cls.__name__) for cls in members}
    by_tag = {cls.__name__: dec for cls, (_, dec) in coders.items()}

    def encode(value: Any) -> Any:
        coder = coders.get(type(value))
        if coder is None:
            _fail(f"one of {sorted(by_tag)}", value)
        return coder[0](value)

    def decode(value: Any) -> Any:
        if type(value) is not dict or value.get("t") not in by_tag:
            _fail(f"one of {sorted(by_tag)}", value)
        return by_tag[value["t"]](value)
    return encode, decode


_compiled: dict[object, tuple[Encoder, Decoder]] = {}


def _compile(hint: Any) -> tuple[Encoder, Decoder]:
    """The encoder and decoder of values of type `hint` (cached)."""
    try:
        return _compiled[hint]
    except KeyError:
        pass
    coder = _build(hint)
    _compiled[hint] = coder
    return coder


SPECIAL: dict[object, tuple[Encoder, Decoder]] = {
    # Encoding checks each value as strictly as decoding: what a sender cannot write
    # faithfully is refused before it leaves, not misread on the other side.
    int: _both(_exact(int, "a whole number")),
    str: _both(_exact(str, "text")),
    bool: _both(_exact(bool, "true or false")),
    float: (_float, _float),
    type(None): (_none, _none),
    Tile: (_tile_text, _tile),
    Action: (_action_text, _action),
    Rules: (_rules_dict, _rules),
}


def _build(hint: Any) -> tuple[Encoder, Decoder]:
    if hint in SPECIAL:
        return SPECIAL[hint]
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        return _both(_literal(args))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple(_compile(args[0]))
        return _fixed([_compile(a) for a in args])
    if origin in (collections.abc.Mapping, dict):
        return _mapping(_compile(args[1]))
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if len(members) < len(args):  # X | None
            inner = members[0] if len(members) == 1 else Union[tuple(members)]  # noqa: UP007
            return _optional(_compile(inner))
        if all(dataclasses.is_dataclass(m) for m in members):
            return _tagged(members)
        if all(isinstance(m, type) and issubclass(m, enum.Enum) for m in members):
            return _enums(members)
        return _by_kind(members)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint, None)
    raise TypeError(f"the codec has no form for {hint!r}")


# --- the messages ---------------------------------------------------------------------------

MESSAGE_TYPES: tuple[type, ...] = (
    *typing.get_args(messages.Command),
    *typing.get_args(messages.Event),
    *typing.get_args(internal.TableMessage),
    *typing.get_args(internal.TableOutput),
    internal.ClubShare,
    *typing.get_args(internal.ClubNews),
)
"""Every message that may cross between a table and the rest: players' commands, the
events they read, what goes into a table and what comes out of it; and what one worker
of a club shows the others (`internal.ClubShare`) and tells them (`internal.ClubNews`)."""
VALUE_TYPES: tuple[type, ...] = (SeatView, Trick, HandResult, Outcome, messages.TableInfo,
                                 messages.SeatInfo, Rules, Action, Tile)
"""The values the messages carry (each has its form above; the tests round-trip them)."""

Message = Any
"""An instance of one of `MESSAGE_TYPES`."""

_message_coder = _tagged(list(MESSAGE_TYPES))
_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
_loads = json.JSONDecoder().decode


def to_plain(message: Message) -> dict[str, Any]:
    """The message as JSON-safe values, its version and type first among its keys."""
    return {"v": VERSION, **_message_coder[0](message)}


def from_plain(plain: object) -> Message:
    """The message from JSON-safe values; `CodecError` for anything else."""
    if type(plain) is not dict:
        _fail("a message object", plain)
    version = plain.get("v")
    if version != VERSION or type(version) is not int:
        raise CodecError(f"message version {_short(version)} is not understood "
                         f"(this side reads version {VERSION})")
    body = dict(plain)
    del body["v"]
    try:
        return _message_coder[1](body)
    except CodecError:
        raise
    except (ValueError, TypeError) as exc:  # a rules value's own check (Tile.parse...)
        raise CodecError(f"a bad value: {_short(str(exc))}") from None


def encode(message: Message) -> bytes:
    """The message as UTF-8 JSON bytes (`CodecError` if it holds what has no form)."""
    try:
        return _dumps(to_plain(message)).encode()
    except CodecError:
        raise
    except (ValueError, TypeError, AttributeError) as exc:
        raise CodecError(f"cannot encode {type(message).__name__}: {_short(str(exc))}") \
            from None


def decode(data: bytes) -> Message:
    """The message `data` holds; `CodecError` (and nothing else) for any other bytes."""
    if not isinstance(data, bytes | bytearray | memoryview):
        _fail("bytes", data)
    if len(data) > MAX_MESSAGE_BYTES:
        raise CodecError(f"a message of {len(data)} bytes is over {MAX_MESSAGE_BYTES}")
    try:
        plain = _loads(bytes(data).decode())
    except (ValueError, RecursionError) as exc:  # bad UTF-8, bad JSON, a huge number
        raise CodecError(f"not JSON: {_short(str(exc))}") from None
    return from_plain(plain)


def _short(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
