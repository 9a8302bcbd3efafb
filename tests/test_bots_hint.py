"""The hint: the expert's ranking of the legal actions, each with its worth."""

from __future__ import annotations

import math
import random

import pytest

from moon_tui.bots.expert import ExpertBot
from moon_tui.bots.heuristic import HeuristicBot
from moon_tui.bots.hint import hint
from moon_tui.rules import GameState, Phase, Rules, SeatView

pytestmark = pytest.mark.slow  # real simulations of every phase: about 20 s


def turns(players: int, seed: int) -> dict[Phase, SeatView]:
    """One view with a real choice per phase, from a game the heuristic plays."""
    rng = random.Random(seed)
    state = GameState(Rules.make(players=players), 0)
    bot = HeuristicBot()
    found: dict[Phase, SeatView] = {}
    while not state.is_terminal() and len(found) < 4:
        if state.phase is Phase.DEAL:
            state.deal(rng)
            continue
        view = state.view(state.current_player())
        if len(view.legal) > 2:
            found.setdefault(view.phase, view)
        state.apply_action(bot.choose(view, rng))
    return found


@pytest.mark.parametrize("players", [3, 4])
def test_a_hint_ranks_every_legal_action(players: int) -> None:
    views = turns(players, seed=4)
    assert {Phase.BID, Phase.PLAY} <= set(views)
    for phase, view in views.items():
        ranked = hint(view, samples=6)
        assert sorted(c.action.code for c in ranked) == sorted(a.code for a in view.legal)
        weighed = [c for c in ranked if not math.isnan(c.value)]
        assert weighed == ranked, phase  # every action simulated, none left out
        assert [c.value for c in weighed] == sorted((c.value for c in weighed), reverse=True) \
            or phase is Phase.BID  # a bid the expert never advises is listed last
        for c in weighed:
            assert 0.0 <= c.tricks <= 7.0
        if phase in (Phase.BID, Phase.PLAY):  # the bot's own short list is the whole list
            expert = ExpertBot(max_samples=6, fixed_samples=True)
            assert ranked[0].action == expert.choose(view, random.Random(0)), phase
        assert hint(view, samples=6) == ranked  # the same view, the same hint


def test_a_hint_needs_the_seats_turn() -> None:
    view = turns(3, seed=4)[Phase.PLAY]
    state_view = SeatView(**{f: getattr(view, f) for f in view.__dataclass_fields__
                             if f not in ("legal", "to_move")},
                          legal=(), to_move=None)
    with pytest.raises(ValueError, match="not its turn"):
        hint(state_view)
