"""Per-address and total limits, decided before a connection gets to authenticate.

asyncssh has no built-in limit on connections or login attempts; these counters are the
server's own. Everything is in memory: a restart forgives.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from .config import Limits

_MAX_BACKOFF = 15 * 60.0


@dataclass
class _Failures:
    count: int = 0
    strikes: int = 0
    blocked_until: float = 0.0


@dataclass
class Gate:
    """Counts connections and failed logins per address; says who must wait and why."""

    limits: Limits
    connections: Counter[str] = field(default_factory=Counter)
    sessions: int = 0
    _failures: dict[str, _Failures] = field(default_factory=dict)
    _banned_addresses: dict[str, str] = field(default_factory=dict)

    def refusal(self, address: str) -> str | None:
        """Why a new connection from `address` is refused right now, or None."""
        now = time.monotonic()
        if address in self._banned_addresses:
            return f"You are banned from this server: {self._banned_addresses[address]}"
        failures = self._failures.get(address)
        if failures is not None and failures.blocked_until > now:
            wait = int(failures.blocked_until - now) + 1
            return f"Too many failed logins from your address: try again in {wait} seconds."
        if self.connections[address] > self.limits.connections_per_address:
            return (
                f"Too many connections from your address (at most "
                f"{self.limits.connections_per_address}): close one and try again."
            )
        return None

    def session_refusal(self) -> str | None:
        if self.sessions >= self.limits.max_sessions:
            return (
                f"The server is full ({self.limits.max_sessions} players): "
                "please try again in a few minutes."
            )
        return None

    def opened(self, address: str) -> None:
        self.connections[address] += 1

    def closed(self, address: str, *, logged_in: bool) -> None:
        self.connections[address] -= 1
        if self.connections[address] <= 0:
            del self.connections[address]
        if logged_in:
            self._failures.pop(address, None)
            return
        failures = self._failures.setdefault(address, _Failures())
        failures.count += 1
        if failures.count >= self.limits.failed_logins_per_address:
            failures.count = 0
            backoff = self.limits.failure_backoff_seconds * 2**failures.strikes
            failures.strikes += 1
            failures.blocked_until = time.monotonic() + min(backoff, _MAX_BACKOFF)

    def ban_address(self, address: str, reason: str) -> None:
        """For guests, who have no key or account to ban: lasts until a restart."""
        self._banned_addresses[address] = reason or "no reason given"
