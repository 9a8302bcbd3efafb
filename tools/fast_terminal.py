"""pyte's screen and byte stream, doing less for what a Textual app writes.

The scripted players (`tools/probe.py`) read their screens through pyte, and on the
club bench (`bench/ssh_load.py`) they share the machine with the server being measured:
pyte was about 70% of their CPU. Three quarters of the bytes a Textual app writes are
escape sequences (cursor moves and colours), which pyte's parser reads one character
at a time through a generator, and pyte's screen makes a new character cell for every
character drawn. Here plain text and the usual CSI sequences are matched by one regular
expression and handed to the screen as pyte's parser would hand them (everything else
goes to pyte's own parser as a whole unit), a run of narrow characters is written with
cells made once per colour and character, and the same colour change on the same
colours is worked out once. `tests/test_probe_stream.py` checks every screen against
pyte's own, byte for byte.
"""

from __future__ import annotations

import codecs
import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Any, TypeVar

import pyte
from pyte import modes
from pyte.screens import Char
from wcwidth import wcwidth

_PLAIN = "[^\x00\x07-\x0f\x1b\x7f\x9b\x9d]+"  # as pyte's own `Stream._text_pattern`
_CSI = "\x1b\\[(\\??)([0-9;]*)([@-~])"
_CONTROL = "[\x00\x07-\x0f\x7f]"
# The rest as pyte's parser reads it (`Stream._parser_fsm`): in a CSI, digits, `;`, `?`,
# space, `>` and the controls BEL to CR go on, `$` takes one more character, anything
# else ends it; an OSC's first character is its code (R and P end it at once), and it
# ends at BEL, ST or ESC backslash (another escape inside it is part of it).
_CSI_GOES_ON = "[0-9;?\x20>\x07-\x0d]*"
_OSC_GOES_ON = "(?:[^\x07\x1b\x9c]|\x1b[^\\\\])*"
_UNIT = (
    f"\x1b\\[{_CSI_GOES_ON}(?:\\$.|[^0-9;?\x20>$\x07-\x0d])"
    f"|\x1b\\](?:[RP]|.{_OSC_GOES_ON}(?:\x07|\x1b\\\\|\x9c))"
    "|\x1b[#%()]."  # an escape taking one more character
    "|\x1b[^\\[\\]#%()]"  # a two-character escape
)
_TOKEN = re.compile(f"({_PLAIN})|{_CSI}|({_CONTROL})|({_UNIT})", re.DOTALL)
_CUT_SHORT = re.compile(
    f"\x1b(?:\\[{_CSI_GOES_ON}\\$?|\\](?:[^RP]{_OSC_GOES_ON}\x1b?)?|[#%()])?", re.DOTALL
)
"""The start of a sequence the token pattern would take once the rest arrives."""
LONGEST_HELD = 4096
"""A sequence still open after this many characters is left to pyte's parser from there
on: it is not one a Textual app writes."""


class FastByteStream:
    """Feeds a `pyte.Screen` from bytes as `pyte.ByteStream` does (UTF-8, errors
    replaced), faster for what Textual writes."""

    def __init__(self, screen: pyte.Screen) -> None:
        self.screen = screen
        self._pyte = pyte.Stream(screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._held = ""
        self._only_pyte = False
        self._csi: dict[str, Callable[..., Any]] = {
            final: getattr(screen, name) for final, name in pyte.Stream.csi.items()
        }
        self._basic: dict[str, Callable[[], Any]] = {
            char: getattr(screen, name) for char, name in pyte.Stream.basic.items()
            if name not in ("shift_in", "shift_out")  # pyte ignores them in UTF-8
        }

    def feed(self, data: bytes) -> None:
        text = self._held + self._decoder.decode(data)
        self._held = ""
        if self._only_pyte:
            self._pyte.feed(text)
            return
        screen = self.screen
        draw, csi, basic, unit = screen.draw, self._csi, self._basic, self._pyte.feed
        at, end = 0, len(text)
        while at < end:
            token = _TOKEN.match(text, at)
            if token is None:
                break
            plain, private, params, final, control, whole = token.groups()
            if plain is not None:
                draw(plain)
            elif final is not None:
                numbers = [min(int(p or 0), 9999) for p in params.split(";")]
                handler: Callable[..., Any] = csi.get(final) or screen.debug
                if private:
                    handler(*numbers, private=True)
                else:
                    handler(*numbers)
            elif control is not None:
                if control in basic:  # NUL and DEL do nothing, as in pyte
                    basic[control]()
            else:
                unit(whole)
            at = token.end()
        if at < end:
            self._hold_or_hand_over(text[at:])

    def _hold_or_hand_over(self, rest: str) -> None:
        """`rest` begins with a sequence not yet complete (kept for the next chunk) or
        one this stream does not know (pyte's parser reads everything from there on)."""
        if len(rest) < LONGEST_HELD and _CUT_SHORT.fullmatch(rest):
            self._held = rest
            return
        self._only_pyte = True
        self._pyte.feed(rest)


K = TypeVar("K")
V = TypeVar("V")
MOST_REMEMBERED = 50_000
"""Each cache below is emptied when it grows past this."""
_CELLS: dict[Char, dict[str, Char]] = {}
"""One cell per colour and character, shared by every screen (cells are tuples)."""
_AFTER_SGR: dict[tuple[Char, tuple[int, ...], bool], Char] = {}
"""The cursor's colours after a colour change, by the colours before it."""


def _room(cache: dict[K, V]) -> dict[K, V]:
    """`cache`, emptied first if it holds `MOST_REMEMBERED` entries already."""
    if len(cache) >= MOST_REMEMBERED:
        cache.clear()
    return cache


@functools.lru_cache(maxsize=MOST_REMEMBERED)
def _narrow_char(char: str) -> bool:
    return bool(wcwidth(char) == 1 and not unicodedata.combining(char))


def _narrow(text: str) -> bool:
    """Every character of `text` takes one cell and is not one pyte combines."""
    if text.isascii():
        return text.isprintable()
    return all(map(_narrow_char, text))


class FastScreen(pyte.Screen):
    """A `pyte.Screen` that draws a run of narrow characters that fits on the line in
    one step, and remembers what a colour change makes of the cursor's colours."""

    def draw(self, data: str) -> None:
        cursor = self.cursor
        text = data.translate(self.g0_charset)
        if (self.charset or modes.IRM in self.mode or not text
                or cursor.x + len(text) > self.columns or not _narrow(text)):
            super().draw(data)
            return
        attrs = cursor.attrs
        cells = _CELLS.get(attrs)
        if cells is None:
            cells = _room(_CELLS)[attrs] = {}
        line = self.buffer[cursor.y]
        x = cursor.x
        for char in text:
            cell = cells.get(char)
            if cell is None:
                cell = cells[char] = attrs._replace(data=char)
            line[x] = cell
            x += 1
        cursor.x = x
        self.dirty.add(cursor.y)

    def select_graphic_rendition(self, *attrs: int, **private: bool) -> None:
        key = (self.cursor.attrs, attrs, modes.DECSCNM in self.mode)
        after = _AFTER_SGR.get(key)
        if after is None or private:
            super().select_graphic_rendition(*attrs, **private)
            _room(_AFTER_SGR)[key] = self.cursor.attrs
        else:
            self.cursor.attrs = after
