"""A record read a hand at a time (issue 31: a replay of 250,000 hands held a gigabyte).

`moon-rules replay` no longer decodes a record whole: it checks the file in one pass and
replays it from the file in another. These tests hold it to what decoding the whole text
said (same verdict, same message, same line and column, whatever the size of the pieces it
reads), and to memory that does not grow with the number of hands.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import random
import tracemalloc
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from moon_tui.files import MEGABYTE
from moon_tui.rules import GameState, Rules
from moon_tui.rules.cli import random_game, replay_command
from moon_tui.rules.record import (
    RecordFormatError,
    dumps_record,
    read_record,
    record_from_dict,
    record_hand,
    record_of,
)
from moon_tui.rules.replay import replay_game

NAMES = ["alice", "bob", "carol"]


def whole_text_verdict(data: bytes) -> Any:
    """What reading the whole text says: the record (as a dict) or the error's words.
    The reference is the standard library's `json.loads` of the decoded text."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not a moon/1 record: not UTF-8 text (byte {exc.start})"
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return "not a moon/1 record: the file is empty"
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        return (f"not a moon/1 record: not JSON: {exc.msg} at line {exc.lineno} column "
                f"{exc.colno}")
    try:
        return record_from_dict(document).to_dict()
    except RecordFormatError as exc:
        return str(exc)


def streamed_verdict(data: bytes, chunk: int) -> Any:
    try:
        return read_record(io.BytesIO(data), chunk=chunk).to_dict()
    except RecordFormatError as exc:
        return str(exc)


BASE = record_of(random_game(Rules.make(), random.Random(5), 2), NAMES)


def members_in_order(order: list[str], twice: str | None) -> bytes:
    """The record's members in another order, one perhaps twice (the last one counts, as
    in `json.loads`), written with a line per hand as `dumps_record` writes them."""
    parts = [f"{json.dumps(key)}: {json.dumps(BASE[key], ensure_ascii=False)}"
             for key in order]
    if twice is not None:
        parts.insert(0, f"{json.dumps(twice)}: {json.dumps(BASE[twice])}")
        parts.insert(1, '"rules": {"players": 4}' if twice != "rules" else '"rules": 3')
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode()


PIECES = [b"{", b"}", b"[", b"]", b",", b":", b'"', b" ", b"\n", b"\t", "é".encode(),
          "\u3000".encode(), "\ufeff".encode(), b"\xff", b"\xc3", b"1", b"-", b"x", b"null",
          b'"6-4"', b"\\", b"\\u12", b"1e5", b"NaN"]


@settings(max_examples=1000, deadline=None)
@given(data=st.data())
def test_read_a_piece_at_a_time_says_what_the_whole_text_says(data: st.DataObject) -> None:
    keys = list(BASE)
    order = data.draw(st.permutations(keys))
    twice = data.draw(st.none() | st.sampled_from(keys))
    text = bytearray(dumps_record(BASE).encode() if data.draw(st.booleans())
                     else members_in_order(list(order), twice))
    if data.draw(st.booleans()):
        text[:0] = "\ufeff".encode()
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(text)))
        edit = data.draw(st.sampled_from(["insert", "delete", "cut"]))
        if edit == "insert":
            text[at:at] = data.draw(st.sampled_from(PIECES))
        elif edit == "delete":
            del text[at:at + data.draw(st.integers(1, 6))]
        else:
            del text[at:]
    chunk = data.draw(st.sampled_from([1, 1, 2, 3, 5, 64, 1 << 16]))
    assert streamed_verdict(bytes(text), chunk) == whole_text_verdict(bytes(text))


def test_blank_files_byte_order_marks_and_cut_numbers_as_the_whole_text() -> None:
    for text in ["", "   \n", "\ufeff", "\u3000 \x1c", "\ufeff\ufeff{}", " \u3000{}", "{} x",
                 "[1, 2]", "\ufeff" + json.dumps(BASE), json.dumps(BASE) + "\n\u3000",
                 '{"format": "moon/1", "hands": [], "hands": 5}', "1e5{}", "12345 x",
                 '{"format": -1.25e+5}', '{"first_bidder": 1e0, "format": 1.}', "-", "1e"]:
        for chunk in (1, 2, 3, 4, 1 << 16):
            data = text.encode()
            assert streamed_verdict(data, chunk) == whole_text_verdict(data), (text, chunk)


def test_a_bad_byte_anywhere_is_found_before_a_json_fault_earlier() -> None:
    # Decoding the whole file came first: bytes that are not UTF-8 at the end are the
    # verdict even when the JSON breaks at the start.
    data = b'{"format" oops, ' + b"x" * 300_000 + b"\xff"
    for chunk in (5, 1 << 16):
        verdict = streamed_verdict(data, chunk)
        assert verdict == whole_text_verdict(data) == \
            f"not a moon/1 record: not UTF-8 text (byte {len(data) - 1})"


def test_a_malformed_last_hand_is_refused_before_an_illegal_first_one(tmp_path: Path) -> None:
    # Exit 2 (not a record) wins over exit 1 (illegal), and nothing is printed: the file is
    # checked whole before the first hand is replayed.
    record = record_of(random_game(Rules.make(), random.Random(8), 6), NAMES)
    record["hands"][0]["bids"] = [9]
    record["hands"][5]["deal"][1][2] = "7-7"
    path = tmp_path / "both.json"
    path.write_text(dumps_record(record))
    for as_json in (False, True):
        out, err = io.StringIO(), io.StringIO()
        assert replay_command(str(path), as_json, out, err) == 2
        assert "hands[5].deal[1][2]: unknown tile '7-7'" in err.getvalue()
        assert out.getvalue() == ("" if not as_json else out.getvalue())
        if as_json:
            assert json.loads(out.getvalue())["error"]["hand"] == 5


def test_a_record_that_changes_while_it_is_replayed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "changing.json"
    path.write_text(dumps_record(BASE))
    with path.open("rb") as file:
        record = read_record(file)
        path.write_text(dumps_record(BASE).replace('"hands": [', '"hands": {', 1))
        try:
            list(record.hands)
        except RecordFormatError as exc:
            assert "the file changed while it was read" in str(exc)
        else:
            raise AssertionError("the change went unnoticed")


# -- the game lets go of the hands that are over -------------------------------------------

def test_clear_history_changes_nothing_but_what_is_kept() -> None:
    rules = Rules.make(target=1000, moon_wins_game=False)
    kept, cleared = GameState(rules, 1), GameState(rules, 1)
    rng_kept, rng_cleared = random.Random(3), random.Random(3)
    for _ in range(400):  # about a dozen hands
        for state, rng in ((kept, rng_kept), (cleared, rng_cleared)):
            if state.current_player() < 0:
                state.deal(rng)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        cleared.clear_history()
        assert cleared.hand_number == kept.hand_number
        assert cleared.last_result == kept.last_result
        assert len(cleared.logs) <= 1 and cleared.results == ()
        assert cleared.logs == kept.logs[len(kept.logs) - len(cleared.logs):]
        for seat in (0, 1, 2, None):  # every view the same but the results let go
            assert cleared.view(seat) == dataclasses.replace(kept.view(seat), results=())
    assert kept.hand_number > 8 and cleared.scores == kept.scores
    assert [r.number for r in kept.results] == list(range(len(kept.results)))


# -- memory: what one hand needs, not what the game holds ------------------------------------

def long_record(tmp_path: Path, hands: int) -> Path:
    """The first `hands` hands of a long random game (a target nobody reaches)."""
    rules = Rules.make(target=1000, moon_wins_game=False)
    state = random_game(rules, random.Random(11), hands)
    assert len(state.logs) == hands
    head = json.dumps({"format": "moon/1", "rules": rules.to_dict(), "seats": NAMES,
                       "first_bidder": state.game_first_bidder})
    path = tmp_path / f"record-{hands}.json"
    with path.open("w") as out:
        out.write(head[:-1] + ', "hands": [\n')
        out.write(",\n".join(json.dumps(record_hand(log).to_dict()) for log in state.logs))
        out.write("\n]}\n")
    return path


def replay_peak(path: Path, as_json: bool) -> int:
    """The most memory Python held during `moon-rules replay` (output to /dev/null)."""
    with open(os.devnull, "w") as out:
        tracemalloc.start()
        try:
            # A bound of 2 MB (the records are 80 KB and 800 KB): reading a file whole once
            # set aside the whole bound (64 MB by default), which would hide the rest.
            code = replay_command(str(path), as_json, out, io.StringIO(),
                                  max_bytes=2 * MEGABYTE)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert code == 0
    return peak


def test_a_ten_times_longer_record_replays_in_the_same_memory(tmp_path: Path) -> None:
    short, long = long_record(tmp_path, 200), long_record(tmp_path, 2000)
    for as_json in (False, True):
        small, large = replay_peak(short, as_json), replay_peak(long, as_json)
        # Holding the game grew by ~5 KB a hand: 9 MB more for 1,800 more hands.
        assert large < small * 1.25 + 200_000, (as_json, small, large)


def test_replay_game_without_hands_forgets_the_game_as_it_goes() -> None:
    record = record_of(random_game(Rules.make(target=1000, moon_wins_game=False),
                                   random.Random(2), 30), NAMES)
    whole = replay_game(record)
    seen: list[int] = []
    streamed = replay_game(record, lambda hand: seen.append(hand.number), keep_hands=False)
    assert seen == list(range(30)) and streamed.hand_count == 30
    assert streamed.scores == whole.scores and streamed.hands == ()
    checked = replay_game(record, keep_hands=False)
    assert checked.ok and checked.scores == whole.scores and checked.hand_count == 30
