"""Turning a player's raw input bytes into Textual events, cheaply and within limits.

Textual's `XTermParser` costs about 20 microseconds per character and each key event
costs the app about 2 ms, so a flood of garbage or a megabyte paste fed straight in
would stall every other player. Pastes and escape strings are cut out before the
parser (found with `str.find` and a regex, truncated or dropped), and events are
metered by a token bucket.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from textual import events
from textual._parser import Parser
from textual._xterm_parser import XTermParser
from textual.message import Message

from .config import Limits
from .internals import Internal

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_DEFAULTS = Limits()
"""The bounds (paste, escape strings) when none are given: the server's defaults."""

_SPECIAL_START = re.compile(r"\x1b(?:\[200~|[\]P_^X])")
"""A paste, or an escape string a terminal may send: OSC, DCS, APC, PM or SOS."""
_STRING_END = re.compile(r"\x07|\x1b\\")

OVERRIDDEN = (
    Internal("textual", XTermParser, "_parse_extended_key", "a parser cache that leaked apps"),
    Internal("textual", XTermParser, "feed", "pastes and escape strings cut out before it"),
    Internal("textual", Parser, "tick", "InputDecoder.waiting reads its _timeout_time"),
)
"""Textual's private parser methods `SessionParser` overrides or relies on (internals.py)."""


class SessionParser(XTermParser):
    """Textual's xterm parser without the class-wide cache that leaks whole apps.

    `XTermParser._parse_extended_key` is an `lru_cache` on the class keyed on the parser
    instance, so every ended session's parser (and through its key events, its App)
    stays alive. This calls the undecorated function instead.
    """

    def _parse_extended_key(  # type: ignore[override]
        self, sequence: str
    ) -> list[events.Key] | None:
        uncached: Any = XTermParser._parse_extended_key.__wrapped__
        result: list[events.Key] | None = uncached(self, sequence)
        return result


def _prefix_tail(text: str, marker: str, minimum: int) -> int:
    """Length of the longest end of `text` that starts `marker` (0 if none)."""
    for length in range(min(len(marker) - 1, len(text)), minimum - 1, -1):
        if marker.startswith(text[-length:]):
            return length
    return 0


class InputDecoder:
    """Splits bracketed pastes and escape strings out of the stream; the rest goes to the
    parser.

    Nothing a client leaves open can hold the keyboard: Textual's parser turned an
    unfinished `ESC ] 0;abc` into key presses (the `c` focused the chat), and a paste
    without its end marker took every later key as pasted text. Here an escape string
    (OSC, DCS, APC...) is dropped whole, or once it passes `escape_limit` characters or
    `escape_timeout` seconds; a paste is ended after `escape_timeout` seconds without
    input, and what passes `paste_limit` is dropped as it arrives (`discarded` counts
    what was dropped, so the reader need not meter it like keys).

    Markers split across reads are kept back until the next read or `tick()`. A lone
    trailing Esc is *not* kept back, so the parser's own escape delay still applies.
    """

    def __init__(
        self,
        paste_limit: int = _DEFAULTS.paste_max_chars,
        escape_limit: int = _DEFAULTS.escape_max_chars,
        escape_timeout: float = _DEFAULTS.escape_timeout_seconds,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.parser = SessionParser()
        self.paste_limit = paste_limit
        self._escape_limit = escape_limit
        self._escape_timeout = escape_timeout
        self._clock = clock
        self._in_paste = False
        self._paste: list[str] = []
        self._paste_size = 0
        self._paste_seen = 0
        self._in_string = False
        self._string_size = 0
        self._opened = 0.0
        """When the open paste last got input, or when the open escape string began."""
        self._held = ""
        self.discarded = 0
        """Characters dropped so far (escape strings, the excess of pastes)."""
        self.cut_paste = 0
        """Length of the last paste that was cut (0: none); the reader resets it."""

    def feed(self, text: str) -> Iterator[Message]:
        text = self._held + text
        self._held = ""
        while text:
            if self._in_paste:
                text = yield from self._feed_paste(text)
            elif self._in_string:
                text = self._feed_string(text)
            else:
                found = _SPECIAL_START.search(text)
                if found is None:
                    keep = _prefix_tail(text, PASTE_START, 2)
                    self._held = text[len(text) - keep :]
                    yield from self.parser.feed(text[: len(text) - keep])
                    return
                if found.start():
                    yield from self.parser.feed(text[: found.start()])
                text = text[found.end() :]
                self._opened = self._clock()
                if found.group() == PASTE_START:
                    self._in_paste = True
                else:
                    self._in_string = True
                    self._string_size = 0

    def _feed_paste(self, text: str) -> Generator[Message, None, str]:
        """Take paste text up to its end marker; return what follows it."""
        self._opened = self._clock()
        end = text.find(PASTE_END)
        if end < 0:
            keep = _prefix_tail(text, PASTE_END, 1)
            self._add_paste(text[: len(text) - keep])
            self._held = text[len(text) - keep :]
            return ""
        self._add_paste(text[:end])
        yield self._finish_paste()
        return text[end + len(PASTE_END) :]

    def _feed_string(self, text: str) -> str:
        """Drop escape-string text up to its end (or the limit); return what follows."""
        room = self._escape_limit - self._string_size
        end = _STRING_END.search(text, 0, room + 2)
        if end is not None:
            self.discarded += end.end()
            self._in_string = False
            return text[end.end() :]
        if len(text) > room:  # too long: give it up, what follows is input again
            self.discarded += room
            self._in_string = False
            return text[room:]
        keep = 1 if text.endswith("\x1b") else 0  # perhaps the start of ESC \
        self._held = text[len(text) - keep :]
        self._string_size += len(text) - keep
        self.discarded += len(text) - keep
        return ""

    def tick(self) -> Iterator[Message]:
        """Release what waited for more input (a held partial marker, a lone Esc), and
        give up an escape string or a paste left open for `escape_timeout` seconds."""
        overdue = self._clock() - self._opened >= self._escape_timeout
        if self._in_string and overdue:
            self._in_string = False
            self.discarded += len(self._held)
            self._held = ""
        elif self._in_paste and overdue:
            self._add_paste(self._held)
            self._held = ""
            yield self._finish_paste()
        if self._held and not self._in_paste and not self._in_string:
            held, self._held = self._held, ""
            yield from self.parser.feed(held)
        yield from self.parser.tick()

    @property
    def waiting(self) -> bool:
        """True when `tick()` has something to release or give up later."""
        return (bool(self._held) or self._in_paste or self._in_string
                or self.parser._timeout_time is not None)

    def _add_paste(self, chunk: str) -> None:
        self._paste_seen += len(chunk)
        room = self.paste_limit - self._paste_size
        kept = chunk[: max(room, 0)]
        if kept:
            self._paste.append(kept)
            self._paste_size += len(kept)
        self.discarded += len(chunk) - len(kept)

    def _finish_paste(self) -> events.Paste:
        text = "".join(self._paste).replace("\x00", "")
        if self._paste_seen > self._paste_size:
            self.cut_paste = self._paste_seen
        self._paste.clear()
        self._paste_size = 0
        self._paste_seen = 0
        self._in_paste = False
        return events.Paste(text)


class TokenBucket:
    """At most `rate` units per second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = burst
        self._stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def take(self, cost: float) -> bool:
        """Spend `cost` if at least one token is there; the balance may go negative."""
        self._refill()
        if self._tokens < 1:
            return False
        self._tokens -= cost
        return True

    def charge(self, cost: float) -> None:
        """Spend unconditionally (reading bytes costs whether or not they make events)."""
        self._refill()
        self._tokens -= cost

    def wait_time(self) -> float:
        """Seconds until at least one token is there again."""
        self._refill()
        return 0.0 if self._tokens >= 1 else (1 - self._tokens) / self.rate
