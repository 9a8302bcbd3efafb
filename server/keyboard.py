"""Turning a player's raw input bytes into Textual events, cheaply and within limits.

Textual's `XTermParser` costs about 20 microseconds per character and each key event
costs the app about 2 ms, so a flood of garbage or a megabyte paste fed straight in
would stall every other player. Pastes are cut out before the parser (found with
`str.find`, truncated), and events are metered by a token bucket.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from textual import events
from textual._xterm_parser import XTermParser
from textual.message import Message

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
PASTE_LIMIT = 4096
"""Characters kept from one paste; the rest is dropped (chat lines are far shorter)."""


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
    """Splits bracketed pastes out of the stream; everything else goes to the parser.

    Markers split across reads are kept back until the next read or `tick()`. A lone
    trailing Esc is *not* kept back, so the parser's own escape delay still applies.
    """

    def __init__(self, paste_limit: int = PASTE_LIMIT) -> None:
        self.parser = SessionParser()
        self._paste_limit = paste_limit
        self._in_paste = False
        self._paste: list[str] = []
        self._paste_size = 0
        self._held = ""

    def feed(self, text: str) -> Iterator[Message]:
        text = self._held + text
        self._held = ""
        while text:
            if self._in_paste:
                end = text.find(PASTE_END)
                if end < 0:
                    keep = _prefix_tail(text, PASTE_END, 1)
                    self._add_paste(text[: len(text) - keep])
                    self._held = text[len(text) - keep :]
                    return
                self._add_paste(text[:end])
                text = text[end + len(PASTE_END) :]
                yield self._finish_paste()
            else:
                start = text.find(PASTE_START)
                if start < 0:
                    keep = _prefix_tail(text, PASTE_START, 2)
                    self._held = text[len(text) - keep :]
                    yield from self.parser.feed(text[: len(text) - keep])
                    return
                if start:
                    yield from self.parser.feed(text[:start])
                text = text[start + len(PASTE_START) :]
                self._in_paste = True

    def tick(self) -> Iterator[Message]:
        """Release what waited for more input (a held partial marker, a lone Esc)."""
        if self._held and not self._in_paste:
            held, self._held = self._held, ""
            yield from self.parser.feed(held)
        yield from self.parser.tick()

    @property
    def waiting(self) -> bool:
        """True when `tick()` has something to release later."""
        return bool(self._held and not self._in_paste) or self.parser._timeout_time is not None

    def _add_paste(self, chunk: str) -> None:
        room = self._paste_limit - self._paste_size
        if room > 0 and chunk:
            kept = chunk[:room]
            self._paste.append(kept)
            self._paste_size += len(kept)

    def _finish_paste(self) -> events.Paste:
        text = "".join(self._paste).replace("\x00", "")
        self._paste.clear()
        self._paste_size = 0
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
