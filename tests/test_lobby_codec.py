"""The wire format: every message round-trips, any other bytes are one clear refusal."""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import json
import types
import typing
from typing import Any, Literal, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moon_tui.lobby import codec
from moon_tui.lobby.codec import MESSAGE_TYPES, VALUE_TYPES, CodecError, decode, encode
from moon_tui.lobby.messages import Act, Resync, TableInfo, TableUpdate
from moon_tui.rules import Action, GameState, Rules, Tile
from moon_tui.rules.actions import BY_CODE
from moon_tui.rules.tiles import TILES

RULES = st.builds(
    lambda players, scoring, options: Rules.make(players=players, scoring=scoring, **options),
    st.sampled_from((3, 4)), st.sampled_from(("points", "marks")),
    st.fixed_dictionaries({}, optional={
        "min_bid": st.sampled_from((3, 4, 5)), "target": st.integers(1, 1000),
        "all_pass": st.sampled_from(("redeal", "force_last")),
        "tie_break": st.sampled_from(("continue", "declarer")),
        "doubles_trump": st.booleans(), "no_trump": st.booleans(),
        "discard_shown": st.booleans(), "trump_before_widow": st.booleans()}))

SPECIAL: dict[object, st.SearchStrategy[Any]] = {
    int: st.integers(), str: st.text(max_size=12), bool: st.booleans(),
    float: st.floats(allow_nan=False, allow_infinity=False), type(None): st.none(),
    Tile: st.sampled_from(TILES), Action: st.sampled_from(tuple(BY_CODE.values())),
    Rules: RULES,
}


def values(hint: Any) -> st.SearchStrategy[Any]:
    """Random values of the type `hint` names, built from its type hints (as the codec
    reads them), with the rules layer's own values for tiles, actions and rules."""
    if hint in SPECIAL:
        return SPECIAL[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return st.sampled_from(args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(values(args[0]), max_size=4).map(tuple)
        return st.tuples(*(values(a) for a in args))
    if origin in (collections.abc.Mapping, dict):
        return st.dictionaries(st.text(max_size=6), values(args[1]), max_size=3)
    if origin in (Union, types.UnionType):
        return st.one_of(*(values(a) for a in args))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    assert dataclasses.is_dataclass(hint), hint
    hints = typing.get_type_hints(hint)
    return st.builds(hint, **{f.name: values(hints[f.name])  # type: ignore[arg-type]
                              for f in dataclasses.fields(hint)})


@pytest.mark.parametrize("kind", MESSAGE_TYPES, ids=lambda k: k.__name__)
@settings(max_examples=40)
@given(data=st.data())
def test_every_message_round_trips(kind: type, data: st.DataObject) -> None:
    message = data.draw(values(kind))
    assert decode(encode(message)) == message


def test_the_messages_carry_every_value_type() -> None:
    """The round trips above reach every value the codec has a form for."""
    reached: set[object] = set()

    def walk(hint: Any) -> None:
        if hint in reached:
            return
        reached.add(hint)
        for arg in typing.get_args(hint):
            walk(arg)
        if dataclasses.is_dataclass(hint):
            for inner in typing.get_type_hints(hint).values():
                walk(inner)

    for kind in MESSAGE_TYPES:
        walk(kind)
    assert set(VALUE_TYPES) <= reached


def a_real_update() -> TableUpdate:
    import random

    state = GameState.new_game(Rules.make(), random.Random(1))
    rng = random.Random(2)
    while state.hand_number < 1 and not state.is_terminal():
        if state.current_player() < 0:
            state.deal(rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    info = TableInfo("t1", "x", "ann", Rules.make(), (), "playing", False, True, (), None)
    return TableUpdate(info, 0, state.view(0), 3, 1.5)


def test_a_message_says_its_version_and_type_and_writes_values_as_text() -> None:
    plain = json.loads(encode(Act("t1", Action.parse("play 6-4"))))
    assert plain == {"v": codec.VERSION, "t": "Act", "table_id": "t1", "action": "play 6-4"}
    update = a_real_update()
    assert decode(encode(update)) == update


def test_another_version_is_refused_in_words() -> None:
    plain = codec.to_plain(Resync("t1", 3))
    plain["v"] = codec.VERSION + 1
    with pytest.raises(CodecError, match=f"version {codec.VERSION + 1} is not understood"):
        decode(json.dumps(plain).encode())
    del plain["v"]
    with pytest.raises(CodecError, match="version None"):
        decode(json.dumps(plain).encode())


def test_a_message_too_long_or_too_deep_is_refused() -> None:
    with pytest.raises(CodecError):
        decode(b" " * (codec.MAX_MESSAGE_BYTES + 1))
    with pytest.raises(CodecError):
        decode(b"[" * 100_000 + b"]" * 100_000)


def decoded_or_refused(data: bytes) -> None:
    try:
        message = decode(data)
    except CodecError:
        return
    assert isinstance(message, MESSAGE_TYPES)
    assert decode(encode(message)) == message


@given(st.binary(max_size=200))
def test_random_bytes_are_refused_with_one_error(data: bytes) -> None:
    decoded_or_refused(data)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=20)


@given(JSON)
def test_random_json_is_refused_with_one_error(plain: Any) -> None:
    decoded_or_refused(json.dumps(plain).encode())


def replace_somewhere(plain: Any, path: list[int], new: Any) -> Any:
    """`plain` with the part that `path` picks (each step an index among the children)
    replaced by `new`."""
    if not path or not isinstance(plain, dict | list) or not plain:
        return new
    keys = list(plain) if isinstance(plain, dict) else list(range(len(plain)))
    key = keys[path[0] % len(keys)]
    copy = dict(plain) if isinstance(plain, dict) else list(plain)
    copy[key] = replace_somewhere(plain[key], path[1:], new)
    return copy


@pytest.mark.parametrize("kind", MESSAGE_TYPES, ids=lambda k: k.__name__)
@settings(max_examples=25)
@given(data=st.data(), path=st.lists(st.integers(0, 30), max_size=6), new=JSON)
def test_a_message_with_any_part_replaced_is_read_or_refused(
        kind: type, data: st.DataObject, path: list[int], new: Any) -> None:
    plain = codec.to_plain(data.draw(values(kind)))
    decoded_or_refused(json.dumps(replace_somewhere(plain, path, new)).encode())


def test_what_has_no_form_is_refused_when_encoding() -> None:
    with pytest.raises(CodecError):
        encode(object())
    with pytest.raises(CodecError):
        encode(Resync("t1", float("nan")))  # type: ignore[arg-type]
