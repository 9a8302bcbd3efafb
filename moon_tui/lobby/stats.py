"""Counters the benchmark reads: hands played, and how long a state change takes to reach
every subscriber's queue."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class LobbyStats:
    hands: int = 0
    games: int = 0
    fanout_seconds: deque[float] = field(default_factory=lambda: deque(maxlen=200_000))
    """Per table state change: seconds from the change to the event on every queue."""
