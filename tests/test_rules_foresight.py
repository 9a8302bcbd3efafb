"""A seat's own move foreseen from its view (`rules/foresight.py`) is exactly the view the
table then sends, under every rule option; it is None only where the move reveals a tile
(the widow), and for anything the seat could not send."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_properties import rules_strategy

from moon_tui.rules import CHANCE, Action, GameState, Phase, Rules, Tile
from moon_tui.rules.foresight import foresee


def _reveals_the_widow(rules: Rules, before: GameState, action: Action) -> bool:
    """Whether `action` hands the widow to the seat that takes it (its face is new)."""
    if not rules.has_widow:
        return False
    after = before.clone()
    after.apply_action(action)
    return after.view(after.declarer).widow_taken and not before.view(None).widow_taken \
        and after.declarer == before.current_player()


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32))
def test_every_move_foreseen_is_the_view_the_table_then_sends(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    state = GameState.new_game(rules, rng)
    foreseen = 0
    for _ in range(400):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.deal(rng)
            continue
        seat = state.current_player()
        view = state.view(seat)
        action = rng.choice(state.legal_actions())
        widow = _reveals_the_widow(rules, state, action)
        guess = foresee(view, action)
        state.apply_action(action)
        if widow:
            assert guess is None, f"{action} shows the widow: only the table knows it"
        else:
            assert guess == state.view(seat), action
            foreseen += 1
    assert foreseen > 0


def _a_turn(seed: int, phase: Phase, rules: Rules | None = None) -> GameState:
    """A game at the first turn of `phase`."""
    rng = random.Random(seed)
    state = GameState.new_game(rules, rng)
    while state.phase is not phase:
        if state.current_player() == CHANCE:
            state.deal(rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_the_tile_played_leaves_the_hand_and_lies_in_the_trick() -> None:
    state = _a_turn(1, Phase.PLAY)
    seat = state.current_player()
    view = state.view(seat)
    tile = view.hand[0]
    after = foresee(view, Action.make_play(tile))
    assert after is not None
    assert tile not in after.hand and after.current_trick is not None
    assert after.current_trick.plays == ((seat, tile),)
    assert not after.my_turn and after.legal == ()


def test_nothing_is_foreseen_for_a_move_the_seat_could_not_send() -> None:
    state = _a_turn(2, Phase.PLAY)
    seat = state.current_player()
    view = state.view(seat)
    others = state.view((seat + 1) % state.players)
    held_elsewhere: Tile = others.hand[0]
    assert foresee(view, Action.make_play(held_elsewhere)) is None  # not in the hand
    assert foresee(others, Action.make_play(held_elsewhere)) is None  # not their turn
    assert foresee(state.view(None), Action.make_play(view.hand[0])) is None  # spectator
    assert foresee(view, Action.make_pass()) is None  # not the phase's kind of move


def test_a_view_that_does_not_hold_together_foresees_nothing() -> None:
    """A view no deal could give (a tile both held and played) is not replayed into a
    guess: the screen waits for the table instead of showing something false."""
    state = _a_turn(3, Phase.PLAY)
    state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    view = state.view(seat)
    assert view.current_trick is not None
    played = view.current_trick.plays[0][1]
    move = view.legal[0]
    forged = dataclasses.replace(view, hand=(*view.hand[:-1], played))
    assert foresee(forged, move) is None
    scored = foresee(dataclasses.replace(view, scores=(1,) * len(view.scores)), move)
    assert scored is not None and scored.scores == (1,) * len(view.scores)  # carried over
