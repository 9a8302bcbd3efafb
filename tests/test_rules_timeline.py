"""The replay viewer's model (rules/timeline.py): every position rebuilt by the rules,
jumps by trick and by hand, and what an unfinished game may not show refused."""

from __future__ import annotations

import random

import pytest

from moon_tui.rules import GameState, Phase, Rules, record_of
from moon_tui.rules.cli import random_game
from moon_tui.rules.record import as_record
from moon_tui.rules.timeline import HiddenSeat, Timeline


def game(seed: int, players: int = 3) -> Timeline:
    state = random_game(Rules.make(players=players), random.Random(seed))
    return Timeline(as_record(record_of(state, tuple("abcd"[:players]))))


@pytest.mark.parametrize(("seed", "players"), [(8, 3), (7, 4), (3, 3)])
def test_every_position_is_the_game_after_that_many_decisions(seed: int, players: int
                                                               ) -> None:
    timeline = game(seed, players)
    state = random_game(Rules.make(players=players), random.Random(seed))
    assert sum(len(s) for s in timeline.steps) == sum(
        len(log.bids) + (log.discard is not None) + (log.trump is not None) + len(log.plays)
        for log in state.logs)
    end = timeline.view(timeline.last, 0)
    assert end.outcome == state.outcome() and end.scores == state.scores
    for index in range(1, timeline.last + 1):
        hand, k = timeline.at(index)
        step = timeline.step_to(index)
        if k:
            assert step is not None and (step.hand, step.index) == (hand, k - 1)
            before = timeline.state(index - 1)
            assert before.current_player() == step.seat and before.is_legal(step.action)


def test_trick_and_hand_jumps_stop_at_each_tricks_end_and_each_deal() -> None:
    timeline = game(12)
    players = timeline.players
    index, seen = 0, []
    while index < timeline.last:
        index = timeline.next_trick(index, 1)
        seen.append(timeline.at(index))
    for hand, k in seen:
        view = timeline.state(timeline.index_of((hand, k))).view(0)
        # at the end of a trick (or when the play begins, or a hand's end or start)
        assert k == 0 or k == len(timeline.steps[hand]) or view.phase is Phase.PLAY and (
            view.current_trick is None or not view.current_trick.plays)
    assert timeline.next_trick(timeline.last, 1) == timeline.last
    starts = [i for i, (_, k) in enumerate(timeline.positions) if k == 0]
    assert timeline.next_hand(0, 1) == starts[1]
    assert timeline.next_hand(starts[1] + 3, -1) == starts[1]
    assert timeline.next_hand(starts[1], -1) == 0
    assert players == 3


def test_an_unfinished_game_shows_only_the_seats_it_was_opened_for() -> None:
    rng = random.Random(5)
    state = GameState(Rules.make(players=3), 0)
    state.deal(rng)
    for _ in range(8):
        state.apply_action(rng.choice(state.legal_actions()))
    timeline = Timeline(as_record(record_of(state, ("a", "b", "c"))), frozenset({1}))
    assert timeline.view(timeline.last, 1).hand == state.hand_of(1)
    for refused in (lambda: timeline.view(3, 0), lambda: timeline.view(3, None),
                    lambda: timeline.hands(3), lambda: timeline.widow_and_discard(3)):
        with pytest.raises(HiddenSeat):
            refused()
