"""The compact playout path agrees with GameState when both make the same choices."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moon_tui.rules import GameState, Phase, Rules
from moon_tui.rules.playout import random_hand, random_tricks
from moon_tui.rules.tiles import mask_of


class Lowest(random.Random):
    """`random()` always 0: every uniform pick takes the first (lowest) choice."""

    def random(self) -> float:
        return 0.0


class Highest(random.Random):
    """`random()` just under 1: every uniform pick takes the last (highest) choice."""

    def random(self) -> float:
        return 0.999999999


def engine_hand(rules: Rules, rng: random.Random, first: int, pick_last: bool) -> GameState:
    """The same hand through GameState, always taking the first (or last) legal action."""
    state = GameState(rules, first)
    state.deal(rng)
    legal = state.legal_actions()
    while legal:
        state.apply_action(legal[-1] if pick_last else legal[0])
        legal = state.legal_actions()
    return state


@pytest.mark.parametrize("options", [
    {"all_pass": "force_last"},
    {"all_pass": "force_last", "players": 4, "team_scoring": "bid"},
    {"all_pass": "force_last", "set": "moon21", "min_bid": 3},
    {"all_pass": "force_last", "trump_before_widow": True, "scoring": "marks"},
])
@pytest.mark.parametrize("seed", range(6))
def test_random_hand_matches_the_engine_taking_the_lowest_choices(
        options: dict[str, object], seed: int) -> None:
    rules = Rules.make(**options)
    first = seed % rules.players
    compact = random_hand(rules, Lowest(seed), first)
    state = engine_hand(rules, Lowest(seed), first, pick_last=False)
    result = state.results[-1]
    assert (compact.declarer, compact.bid, compact.trump) == \
        (result.declarer, result.bid, result.trump)
    assert compact.tricks_won == result.tricks_won
    assert (compact.made, compact.points) == (result.made, result.points)


@pytest.mark.parametrize("options", [{}, {"players": 4}, {"no_trump": False},
                                     {"doubles_trump": False, "no_trump": False}])
@pytest.mark.parametrize("seed", range(6))
def test_random_hand_matches_the_engine_taking_the_highest_choices(
        options: dict[str, object], seed: int) -> None:
    rules = Rules.make(**options)
    first = seed % rules.players
    compact = random_hand(rules, Highest(seed), first)
    state = engine_hand(rules, Highest(seed), first, pick_last=True)
    result = state.results[-1]
    assert compact.bid == 21 and result.bid == 21
    assert (compact.declarer, compact.trump, compact.tricks_won, compact.points) == \
        (result.declarer, result.trump, result.tricks_won, result.points)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([3, 4]),
       stop=st.integers(0, 20))
def test_random_tricks_from_the_middle_of_a_hand_matches_the_engine(
        seed: int, players: int, stop: int) -> None:
    rng = random.Random(seed)
    rules = Rules.make(players=players, all_pass="force_last")
    state = GameState(rules, rng.randrange(players))
    state.deal(rng)
    while state.phase is not Phase.PLAY:
        state.apply_action(rng.choice(state.legal_actions()))
    for _ in range(stop):
        state.apply_action(rng.choice(state.legal_actions()))
    before = state.tricks_won
    trick = state.current_trick
    assert trick is not None and state.trump is not None
    hands = [mask_of(state.hand_of(s)) for s in range(players)]
    open_tiles = [t.index for _, t in trick.plays]
    won = random_tricks(hands, state.trump, trick.leader, open_tiles, Lowest(0))
    while state.phase is Phase.PLAY:
        state.apply_action(state.legal_actions()[0])
    after = state.results[-1].tricks_won
    assert [a - b for a, b in zip(after, before, strict=True)] == won
    assert sum(won) + sum(before) == 7


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([3, 4]))
def test_random_hands_score_like_the_rules(seed: int, players: int) -> None:
    rules = Rules.make(players=players)
    result = random_hand(rules, random.Random(seed), seed % players)
    if result.declarer is None:
        assert result.points == (0,) * rules.sides and sum(result.tricks_won) == 0
    else:
        assert sum(result.tricks_won) == 7
        assert len(result.points) == rules.sides
