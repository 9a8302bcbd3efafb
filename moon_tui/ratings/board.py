"""What the leaderboard and a player card show, as plain values (and their JSON).

The server reads them from its database (`server/ratings.py`); the screens and the
`leaderboard` and `stats` commands over plain ssh show them. The JSON is a contract,
documented in the README.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LISTED_GAMES = 5
"""A newcomer with fewer games is not placed on the board (their own row still shows)."""
TREND_GAMES = 5
"""The trend is the change of the shown rating over this many last games."""
PAGE_ROWS = 20
"""Rows of one leaderboard page (a screen or the `leaderboard` command)."""
CHART_GAMES = 60
"""Points of the rating-over-time chart on a player card."""
LAST_GAMES = 10
"""Games listed on a player card."""


def _round(value: float) -> float:
    return round(value, 2)


@dataclass(frozen=True, slots=True)
class LeaderRow:
    place: int | None
    """1 for the best; None for a newcomer (fewer than `LISTED_GAMES` games)."""
    name: str
    bot: bool
    rating: float
    games: int
    wins: int
    trend: float | None
    """Change of the rating over the last `TREND_GAMES` games (None: fewer games)."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "name": self.name, "bot": self.bot,
                "rating": _round(self.rating), "games": self.games, "wins": self.wins,
                "win_rate": _round(self.win_rate),
                "trend": None if self.trend is None else _round(self.trend)}


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    players: int
    """The pool: 3 or 4."""
    listed: int
    """How many are placed on the board in this pool."""
    offset: int
    rows: tuple[LeaderRow, ...]
    me: LeaderRow | None
    """The asking player's own row in this pool (None: no rated game in it yet)."""

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players, "listed": self.listed, "offset": self.offset,
                "rows": [row.to_json() for row in self.rows],
                "me": None if self.me is None else self.me.to_json()}


@dataclass(frozen=True, slots=True)
class PoolRecord:
    """A player's record in one pool (3 or 4 players)."""

    players: int
    place: int | None
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int
    hands: int
    points: int
    bids_tried: int
    bids_made: int
    moons_tried: int
    moons_made: int
    trumps: tuple[tuple[str, int], ...]
    """How often they named each trump (RECORD.md names), most often first."""
    history: tuple[float, ...]
    """The shown rating after each of the last `CHART_GAMES` games, oldest first."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def points_per_hand(self) -> float:
        return self.points / self.hands if self.hands else 0.0

    @property
    def favourite_trump(self) -> str | None:
        return self.trumps[0][0] if self.trumps else None

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players, "place": self.place, "rating": _round(self.rating),
                "mu": _round(self.mu), "sigma": _round(self.sigma), "games": self.games,
                "wins": self.wins, "win_rate": _round(self.win_rate), "hands": self.hands,
                "points_per_hand": _round(self.points_per_hand),
                "bids_made": self.bids_made, "bids_tried": self.bids_tried,
                "moons_made": self.moons_made, "moons_tried": self.moons_tried,
                "favourite_trump": self.favourite_trump,
                "history": [_round(value) for value in self.history]}


@dataclass(frozen=True, slots=True)
class GameLine:
    """One of a player's last rated games."""

    record_id: int
    at: float
    """Unix time the game was saved."""
    players: int
    seats: tuple[str, ...]
    place: int
    won: bool
    rating: float
    """Their shown rating after it."""
    code: str | None = None
    """The game's short code (what the replay viewer opens), None if it has none."""

    def to_json(self) -> dict[str, Any]:
        return {"game": self.record_id, "code": self.code, "at": round(self.at),
                "players": self.players, "seats": list(self.seats), "place": self.place,
                "won": self.won, "rating": _round(self.rating)}


@dataclass(frozen=True, slots=True)
class PlayerCard:
    name: str
    bot: bool
    pools: tuple[PoolRecord, ...]
    """Only the pools they have played rated games in, 3 before 4."""
    last_games: tuple[GameLine, ...]
    """Latest first, both pools."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "bot": self.bot,
                "pools": [pool.to_json() for pool in self.pools],
                "last_games": [game.to_json() for game in self.last_games]}
