"""The easy level slips the way beginners do, not at random."""

from __future__ import annotations

import random

from moon_tui.bots.easy import EasyBot, longest_suit
from moon_tui.bots.heuristic import HeuristicBot
from moon_tui.rules import GameState, Phase, Rules, SeatView, Tile
from moon_tui.rules.tiles import IS_TRUMP, TRUMP_DOUBLES, mask_of


def leads(count: int, seed: int) -> list[SeatView]:
    """Views of a seat about to lead a trick, holding a double that is not a trump."""
    rng = random.Random(seed)
    state = GameState(Rules.make(), 0)
    bot = HeuristicBot()
    found: list[SeatView] = []
    while len(found) < count:
        if state.is_terminal():
            state = GameState(Rules.make(), 0)
        if state.phase is Phase.DEAL:
            state.deal(rng)
            continue
        view = state.view(state.current_player())
        trick = view.current_trick
        if view.phase is Phase.PLAY and (trick is None or not trick.plays):
            assert view.trump is not None
            doubles = mask_of(view.hand) & IS_TRUMP[TRUMP_DOUBLES] & ~IS_TRUMP[view.trump]
            if doubles and len(view.legal) > 1:
                found.append(view)
        state.apply_action(bot.choose(view, rng))
    return found


def is_plain_double(view: SeatView, tile: Tile | None) -> bool:
    assert tile is not None and view.trump is not None
    return tile.high == tile.low and not IS_TRUMP[view.trump] >> tile.index & 1


def test_easy_leads_its_doubles_early() -> None:
    views = leads(60, seed=2)
    rng = random.Random(1)
    easy = sum(is_plain_double(v, EasyBot().choose(v, rng).tile) for v in views)
    normal = sum(is_plain_double(v, HeuristicBot().choose(v, rng).tile) for v in views)
    assert easy >= 0.8 * len(views)
    assert normal < easy


def test_the_longest_suit_is_the_number_held_most() -> None:
    hand = mask_of(Tile.parse(t) for t in ("6-6", "6-4", "6-1", "5-5", "5-2", "3-1", "4-4"))
    assert longest_suit(hand) == (6, 3)
