"""Counters of the whole lobby: hands and games played (the server's status, the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LobbyStats:
    hands: int = 0
    games: int = 0

    def played(self, hands: int, games: int) -> None:
        """A table finished `hands` hands and `games` games since it last said."""
        self.hands += hands
        self.games += games
