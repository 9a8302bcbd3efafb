"""New ratings after a game, with openskill's Plackett-Luce model (pinned in pyproject).

A rating is a belief about a player's strength: `mu`, and `sigma`, how unsure it is. What
the board shows is the conservative figure `mu - 3 sigma` (a newcomer starts at 0 and
climbs as the games make the model surer). Three players are ranked by the game's result;
four are two teams of two. The same computer level at two seats of one game is one rated
entity: it takes the mean of its seats' new ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .game import GameResult

MODEL = PlackettLuce()
"""openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (sigma grows a little
before each game, so a rating keeps moving)."""

SHOWN_SIGMAS = 3.0


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def shown(self) -> float:
        """The conservative figure the board sorts and shows."""
        return self.mu - SHOWN_SIGMAS * self.sigma


NEWCOMER = Rating()


def rate(result: GameResult, before: Sequence[Rating]) -> tuple[Rating, ...]:
    """Each seat's rating after the game, from `before` (one per seat)."""
    teams = result.teams
    made = [[MODEL.rating(mu=before[s].mu, sigma=before[s].sigma) for s in team]
            for team in teams]
    ranks = [float(min(result.places[s] for s in team)) for team in teams]
    rated = MODEL.rate(made, ranks=ranks)
    after: dict[int, Rating] = {}
    for team, ratings in zip(teams, rated, strict=True):
        for seat, new in zip(team, ratings, strict=True):
            after[seat] = Rating(float(new.mu), float(new.sigma))
    return merged(result.names, tuple(after[s] for s in range(result.players)))


def merged(names: Sequence[str], ratings: tuple[Rating, ...]) -> tuple[Rating, ...]:
    """Seats of the same name (two computers of one level) share the mean of their
    ratings."""
    if len(set(names)) == len(names):
        return ratings
    out = list(ratings)
    for name in set(names):
        seats = [s for s, n in enumerate(names) if n == name]
        if len(seats) > 1:
            mean = Rating(sum(ratings[s].mu for s in seats) / len(seats),
                          sum(ratings[s].sigma for s in seats) / len(seats))
            for s in seats:
                out[s] = mean
    return tuple(out)
