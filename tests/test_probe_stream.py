"""The scripted player's screen and stream (tools/fast_terminal.py) end exactly as pyte's own
screen and byte stream do, whatever the bytes and wherever the chunks are cut."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.fast_terminal import LONGEST_HELD, FastByteStream, FastScreen

_PIECES = [
    "plain", "é", "╭─╮", "●", "中", "e\u0301", "\u200b", "\x01", "\x9c", " ",
    "\x1b[0m", "\x1b[1;4m", "\x1b[38;2;10;200;30m", "\x1b[48;5;17m", "\x1b[7m", "\x1b[m",
    "\x1b[H", "\x1b[3;7H", "\x1b[;5H", "\x1b[2J", "\x1b[K", "\x1b[1K", "\x1b[2A", "\x1b[C",
    "\x1b[?25l", "\x1b[?25h", "\x1b[?1049h", "\x1b[?7l", "\x1b[4h", "\x1b[2;3r", "\x1b[2P",
    "\x1b[99999;99999H", "\x1b[1?h", "\x1b[>1u", "\x1b[1 q", "\x1b[?2026$p", "\x1b[1;2:3m",
    "\x1b]2;Moon — you\x07", "\x1b]0;both\x1b\\", "\x1b]22;default\x07", "\x1b]Rx",
    "\x1b7", "\x1b8", "\x1bM", "\x1bc", "\x1b(B", "\x1b#8", "\x1b%G", "\x1b\x1b",
    "\r", "\n", "\x08", "\t", "\x0b", "\x07", "\x00", "\x7f", "\x0e", "\x0f",
    "\x1b[1\x18x", "\x1b[2\nA", "\x1b]2;a\x1bXb\x07", "\x9b2J",
]

_pieces = st.one_of(
    st.sampled_from(_PIECES).map(str.encode),
    st.builds(
        lambda private, numbers, final: (
            f"\x1b[{private}{';'.join(map(str, numbers))}{final}".encode()
        ),
        st.sampled_from(["", "?"]),
        st.lists(st.integers(0, 12000), max_size=4),
        st.sampled_from("@ABCDEFGHJKLMPXacdefghlmnr'z~"),
    ),
    st.binary(max_size=3),
)


def _state(screen: pyte.Screen) -> tuple[Any, ...]:
    buffer = [
        [screen.buffer[y][x] for x in range(screen.columns)] for y in range(screen.lines)
    ]
    cursor = screen.cursor
    return (buffer, cursor.x, cursor.y, cursor.attrs, cursor.hidden, screen.title,
            screen.icon_name, set(screen.mode), screen.margins, set(screen.dirty))


def _fed(feed: Callable[[bytes], None], chunk: bytes) -> str:
    """The error a chunk raised ("" if none): pyte refuses a few sequences outright
    (`ESC [ ? @`: a private mode its handler does not take)."""
    try:
        feed(chunk)
    except Exception as error:  # noqa: BLE001 - compared, not hidden
        return type(error).__name__
    return ""


def _both(chunks: list[bytes]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Both screens after the chunks (up to the first chunk pyte refused, which must be
    refused by both)."""
    theirs, ours = pyte.Screen(12, 5), FastScreen(12, 5)
    reference, fast = pyte.ByteStream(theirs), FastByteStream(ours)
    for chunk in chunks:
        refused = _fed(reference.feed, chunk), _fed(fast.feed, chunk)
        assert refused[0] == refused[1]
        if refused[0]:
            break
    return _state(theirs), _state(ours)


def _cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, max_size=40), st.lists(st.integers(0, 10_000), max_size=8))
def test_any_bytes_cut_anywhere_leave_the_screen_as_pyte_leaves_it(
    pieces: list[bytes], cuts: list[int]
) -> None:
    theirs, ours = _both(_cut(b"".join(pieces), cuts))
    assert ours == theirs


def test_a_sequence_cut_in_two_is_taken_whole_once_its_end_arrives() -> None:
    screen = pyte.Screen(20, 3)
    stream = FastByteStream(screen)
    stream.feed(b"ab\x1b[2;")
    assert screen.display[0].rstrip() == "ab"
    stream.feed(b"5Hc\x1b]2;Mo")
    stream.feed(b"on\x07\xe2\x96")  # a character cut inside its UTF-8 bytes as well
    stream.feed(b"\xb6")
    assert screen.display[1].rstrip() == "    c▶"
    assert screen.title == "Moon"


def test_a_sequence_that_never_ends_is_left_to_pyte_and_nothing_is_held() -> None:
    theirs, ours = _both([b"\x1b]2;" + b"x" * LONGEST_HELD, b"\x07after"])
    assert ours == theirs
    assert ours[0][0][0].data == "a"
