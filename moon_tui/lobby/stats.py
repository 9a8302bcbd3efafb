"""Counters of the whole lobby: hands and games played (the server's status, the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LobbyStats:
    hands: int = 0
    games: int = 0
