"""Chat limits, clean text and guess limits: what a player types is shown on other people's
terminals, and an invite code must not be found by trying them all."""

from __future__ import annotations

import time
import unicodedata
from collections import deque

from .refusals import Refusal, Refused

WINDOW = 10.0
CHAT_KEPT = 50
"""Lines a chat room (the lobby, each table) keeps for who arrives or comes back."""


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


class RateLimit:
    """Per player: at most `count` events in any `window` seconds."""

    def __init__(self, count: int, window: float) -> None:
        self.count = count
        self.window = window
        self._seen: dict[str, deque[float]] = {}

    def full(self, name: str, now: float | None = None) -> bool:
        """True when `name` has used up the limit (counts nothing)."""
        now = time.monotonic() if now is None else now
        seen = self._seen.get(name)
        if seen is None:
            return False
        while seen and seen[0] <= now - self.window:
            seen.popleft()
        return len(seen) >= self.count

    def wait(self, name: str, now: float | None = None) -> float:
        """Seconds until `name` may count one more (0: now)."""
        now = time.monotonic() if now is None else now
        if not self.full(name, now):
            return 0.0
        return self._seen[name][-self.count] + self.window - now

    def allow(self, name: str, now: float | None = None) -> bool:
        """Count one event for `name` unless it is over the limit (then count nothing)."""
        now = time.monotonic() if now is None else now
        if self.full(name, now):
            return False
        self._seen.setdefault(name, deque()).append(now)
        return True

    def forget_idle(self, now: float | None = None) -> None:
        """Drop players with nothing in the window (keeps the map small)."""
        now = time.monotonic() if now is None else now
        for name in [n for n, s in self._seen.items() if not s or s[-1] <= now - self.window]:
            del self._seen[name]


class ChatLimiter:
    """Per player: at most `lines` lines in any 10 seconds, each at most `max_chars` long."""

    def __init__(self, max_chars: int, lines_per_10s: int) -> None:
        self.max_chars = max_chars
        self.lines = lines_per_10s
        self._rate = RateLimit(lines_per_10s, WINDOW)

    def check(self, name: str, text: str,
              now: float | None = None) -> tuple[str, Refused | None]:
        """The cleaned line and None, or why it is refused (and nothing is counted)."""
        line = clean_text(text)
        if not line:
            return line, Refused(Refusal.CHAT_EMPTY)
        if len(line) > self.max_chars:
            return line, Refused(Refusal.CHAT_TOO_LONG, limit=self.max_chars, length=len(line))
        if not self._rate.allow(name, now):
            return line, Refused(Refusal.CHAT_TOO_FAST, lines=self.lines, seconds=round(WINDOW))
        return line, None

    def forget_idle(self, now: float | None = None) -> None:
        self._rate.forget_idle(now)
