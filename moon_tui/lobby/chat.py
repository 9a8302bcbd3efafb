"""Chat limits and clean text: what a player types is shown on other people's terminals."""

from __future__ import annotations

import time
import unicodedata
from collections import deque

WINDOW = 10.0


def clean_text(text: str) -> str:
    """Drop control and format characters (escape sequences would reach other terminals),
    turn whitespace runs into single spaces."""
    kept = []
    for ch in text:
        if ch.isspace():
            kept.append(" ")
        elif not unicodedata.category(ch).startswith("C"):
            kept.append(ch)
    return " ".join("".join(kept).split())


class ChatLimiter:
    """Per player: at most `lines` lines in any 10 seconds, each at most `max_chars` long."""

    def __init__(self, max_chars: int, lines_per_10s: int) -> None:
        self.max_chars = max_chars
        self.lines = lines_per_10s
        self._sent: dict[str, deque[float]] = {}

    def check(self, name: str, text: str, now: float | None = None) -> tuple[str, str | None]:
        """The cleaned line and None, or the reason it is refused (and nothing is counted)."""
        line = clean_text(text)
        if not line:
            return line, "an empty chat line"
        if len(line) > self.max_chars:
            return line, f"a chat line is at most {self.max_chars} characters, not {len(line)}"
        now = time.monotonic() if now is None else now
        sent = self._sent.setdefault(name, deque())
        while sent and sent[0] <= now - WINDOW:
            sent.popleft()
        if len(sent) >= self.lines:
            return line, f"at most {self.lines} chat lines every {WINDOW:g} seconds: wait a moment"
        sent.append(now)
        return line, None

    def forget_idle(self, now: float | None = None) -> None:
        """Drop players with no line in the window (keeps the map small)."""
        now = time.monotonic() if now is None else now
        for name in [n for n, s in self._sent.items() if not s or s[-1] <= now - WINDOW]:
            del self._sent[name]
