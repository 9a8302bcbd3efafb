"""A JSON document read from a binary file a piece at a time, with the errors and positions
`json.loads` would give for the whole text.

`moon-rules replay` decoded a record whole: a game of 250,000 hands held a gigabyte to
print its report (issue 31). With this, the outer object and one of its lists are walked
by hand, and each member is decoded alone by the standard decoder (`raw_decode`) from a
buffer that holds a chunk of the file, so memory follows the largest member, not the
document. A member cut by the end of the buffer is decoded again once more text is read.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

CHUNK: Final = 1 << 16
"""Bytes read at a time."""

_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
_DECODER: Final = json.JSONDecoder()
_BOM: Final = "\ufeff"
_NUMBER_LOOKAHEAD: Final = 2
"""Characters after a decoded value that must be in the buffer before it is taken: a
number's "e+" or "." is only part of it when a digit follows."""


class JsonSyntaxError(ValueError):
    """Not JSON: `json.loads`'s message, line and column for the whole text."""

    def __init__(self, msg: str, line: int, column: int) -> None:
        super().__init__(f"{msg} at line {line} column {column}")
        self.msg = msg
        self.line = line
        self.column = column


class NotUtf8Error(ValueError):
    """The bytes are not UTF-8; `at` is the offset of the first bad byte in the file."""

    def __init__(self, at: int) -> None:
        super().__init__(f"not UTF-8 text (byte {at})")
        self.at = at


class JsonStream:
    """The text of a seekable `file` from `offset` (by default where it is), decoded as
    UTF-8 a chunk at a time. Each read seeks first: streams on one file do not disturb
    each other.

    Positions in errors count characters as `json.loads` does in the whole text (a BOM at
    the start of the file is dropped first, as a record's reader drops it).
    `keys` stops at each member of an object and the caller reads its value (`value`, or
    `items` for a long list) before asking for the next key.
    """

    def __init__(self, file: BinaryIO, offset: int | None = None, chunk: int = CHUNK) -> None:
        self.file = file
        self.chunk = chunk
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._read_bytes = file.tell() if offset is None else offset
        """Offset in the file of the next byte to read."""
        self._buffer = ""
        self._pos = 0
        """Index in `_buffer` of the next character to read."""
        self._buffer_char = 0
        """Characters of the text before `_buffer`, and bytes of the file before it."""
        self._buffer_byte = self._read_bytes
        self._lines = 0
        """Newlines before `_buffer`, and the position of the last one (-1: none yet)."""
        self._last_newline = -1
        self.ended = False
        """The whole file has been read (the buffer may still hold text)."""

    # -- reading more --------------------------------------------------------------------
    def _read(self, size: int) -> str:
        self.file.seek(self._read_bytes)
        return self._decode(self.file.read(size))

    def _decode(self, data: bytes) -> str:
        pending = self._decoder.getstate()[0]
        try:
            text = self._decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise NotUtf8Error(self._read_bytes - len(pending) + exc.start) from None
        self._read_bytes += len(data)
        if not data:
            self.ended = True
        return text

    def _more(self) -> None:
        """Read at least a chunk more, and as much as the buffer holds unread (a member
        read again and again as it grows costs twice its length, not its square)."""
        text = self._read(max(self.chunk, len(self._buffer) - self._pos))
        gone = self._buffer[:self._pos]
        if gone:
            newlines = gone.count("\n")
            if newlines:
                self._lines += newlines
                self._last_newline = self._buffer_char + gone.rindex("\n")
            self._buffer_char += len(gone)
            self._buffer_byte += len(gone.encode("utf-8"))
        self._buffer = self._buffer[self._pos:] + text
        self._pos = 0

    def drain(self) -> None:
        """Read the rest of the file, only to find bytes that are not UTF-8 (`NotUtf8Error`):
        like `json.loads` of a decoded file, a file that is not text is that first."""
        while not self.ended:
            self._read(self.chunk)

    # -- positions and errors ------------------------------------------------------------
    def byte_offset(self) -> int:
        """Offset in the file of the next character (after whitespace, if `peek` ran)."""
        return self._buffer_byte + len(self._buffer[:self._pos].encode("utf-8"))

    def error(self, msg: str, index: int | None = None) -> JsonSyntaxError:
        """`msg` at `index` of the buffer (the next character by default), placed as
        `json.JSONDecodeError` places it in the whole text."""
        at = self._pos if index is None else index
        newlines = self._buffer.count("\n", 0, at)
        line = self._lines + newlines + 1
        if newlines:
            column = at - self._buffer.rindex("\n", 0, at)
        else:
            column = self._buffer_char + at - self._last_newline
        return JsonSyntaxError(msg, line, column)

    # -- the grammar ---------------------------------------------------------------------
    def begin(self) -> str:
        """Drop one BOM and return the first character of the document; `EOFError` when
        there is none (nothing but whitespace, as `str.strip` sees it)."""
        while not self._buffer and not self.ended:
            self._more()
        if self._buffer.startswith(_BOM):
            self._buffer = self._buffer[1:]
            self._buffer_byte += len(_BOM.encode("utf-8"))
        first = self.peek()
        if first == "":
            raise EOFError
        if first.isspace():  # not JSON's whitespace, but blank to `str.strip`
            problem = self.error("Expecting value")
            if self._rest_is_blank():
                raise EOFError
            raise problem
        if first == _BOM and self._buffer_char + self._pos == 0:
            raise self.error("Unexpected UTF-8 BOM (decode using utf-8-sig)")
        return first

    def _rest_is_blank(self) -> bool:
        blank = not self._buffer[self._pos:].strip()
        while not self.ended:
            if self._read(self.chunk).strip():
                blank = False
        return blank

    def peek(self) -> str:
        """The next character after JSON whitespace (which is passed), "" at the end."""
        while True:
            spaces = _WHITESPACE.match(self._buffer, self._pos)
            assert spaces is not None  # it matches the empty text too
            self._pos = spaces.end()
            if self._pos < len(self._buffer):
                return self._buffer[self._pos]
            if self.ended:
                return ""
            self._more()

    def value(self) -> Any:
        """Decode the value that comes next, as `json.loads` would (`JsonSyntaxError`)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buffer, self._pos)
            except json.JSONDecodeError as exc:
                if self.ended:
                    raise self.error(exc.msg, exc.pos) from None
            else:
                # A number cut by the end of the buffer may look whole: "1" of "12", "1"
                # of "1e5" (the "e" needs two more characters to count).
                if end + _NUMBER_LOOKAHEAD < len(self._buffer) or self.ended:
                    self._pos = end
                    return value
            self._more()

    def end(self) -> None:
        """Only whitespace may follow the document."""
        if self.peek() != "":
            raise self.error("Extra data")

    def keys(self) -> Iterator[str]:
        """The keys of the object that starts next, one at a time: after each, the caller
        reads its value before asking for the next key."""
        self._expect("{")
        found = self.peek()
        if found == "}":
            self._pos += 1
            return
        while True:
            if found != '"':
                raise self.error("Expecting property name enclosed in double quotes")
            key = self.value()
            if self.peek() != ":":
                raise self.error("Expecting ':' delimiter")
            self._pos += 1
            yield key
            found = self.peek()
            if found == "}":
                self._pos += 1
                return
            if found != ",":
                raise self.error("Expecting ',' delimiter")
            self._pos += 1
            found = self.peek()

    def items(self) -> Iterator[Any]:
        """The members of the list that starts next, decoded one at a time."""
        self._expect("[")
        if self.peek() == "]":
            self._pos += 1
            return
        while True:
            yield self.value()
            found = self.peek()
            if found == "]":
                self._pos += 1
                return
            if found != ",":
                raise self.error("Expecting ',' delimiter")
            self._pos += 1

    def _expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"Expecting {char!r}")
        self._pos += 1
