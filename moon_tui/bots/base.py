"""The one interface every computer player has: a seat's view in, a legal action out.

A bot never receives the game state, only the `SeatView` of its own seat, so it cannot see
a tile its seat may not see.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..rules import Action, SeatView


class Bot(Protocol):
    """A computer player. `choose` is only called when `view.my_turn` is true."""

    name: str

    def choose(self, view: SeatView, rng: random.Random) -> Action:
        """A legal action for the seat of `view` (one of `view.legal`)."""
        ...


class RandomBot:
    """Any legal action, uniformly: the floor every other level must beat."""

    name = "random"

    def choose(self, view: SeatView, rng: random.Random) -> Action:
        if not view.legal:
            raise ValueError(f"seat {view.seat} has nothing to do: it is not its turn")
        return rng.choice(view.legal)
