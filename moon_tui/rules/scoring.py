"""Scoring one hand (RULES.md section 9): the one place both the state and playouts use."""

from __future__ import annotations

from collections.abc import Sequence

from .options import MOON, Rules

HAND_SIZE = 7


def score_hand(rules: Rules, declarer: int, bid: int,
               tricks_won: Sequence[int]) -> tuple[bool, list[int]]:
    """(made, points per side) for a hand the `declarer` won the auction of with `bid`."""
    sides = rules.sides
    points = [0] * sides
    side_tricks = [0] * sides
    for seat, won in enumerate(tricks_won):
        side_tricks[rules.side_of(seat)] += won
    dside = rules.side_of(declarer)
    taken = side_tricks[dside]
    made = taken >= (HAND_SIZE if bid == MOON else bid)
    if rules.scoring == "marks":
        for side in range(sides):
            if (side == dside) == made:
                points[side] = 1
        return made, points
    for side in range(sides):
        if side != dside:
            points[side] = side_tricks[side]
    if not made:
        points[dside] = -bid
    elif bid == MOON:
        points[dside] = MOON
    elif rules.players == 4 and rules.team_scoring == "tricks":
        points[dside] = taken
    else:
        points[dside] = bid
    return made, points
