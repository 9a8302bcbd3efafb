"""Claiming the rest (issue 30, item 6): the proof against plain minimax over every order
of play, and the table's core as a function (a claim asked, proven off the table, and
played out at once; refused when it cannot be proven, or not the claimant's lead)."""

from __future__ import annotations

import random

from test_bots_solver import minimax
from test_lobby_core import sent, started

from moon_tui.bots.claim import ClaimProof, can_claim, claim_plays
from moon_tui.lobby.core import TableState
from moon_tui.lobby.effects import Prove
from moon_tui.lobby.internal import BotMoved, ClaimChecked, DealNow, FromMember, ToMember
from moon_tui.lobby.messages import Act, Claim, Notice, Rejected, StartGame, TableUpdate
from moon_tui.lobby.notices import Tell
from moon_tui.lobby.refusals import Refusal
from moon_tui.rules import CHANCE, Action, GameState, Phase, Rules
from moon_tui.rules.tiles import mask_of


def leads(players: int, games: int, seed: int, most: int):  # type: ignore[no-untyped-def]
    """Every lead with at most `most` tricks left in random games: (state, leader)."""
    rng = random.Random(seed)
    for _ in range(games):
        state = GameState.new_game(Rules.make(players=players), rng)
        while state.phase is not Phase.DEAL and not state.is_terminal():
            seat = state.current_player()
            if can_claim(state, seat) and len(state.hand_of(seat)) <= most:
                yield state, seat
            state.apply_action(rng.choice(state.legal_actions()))


def test_a_claim_is_proven_exactly_when_the_leader_takes_every_trick_against_any_play() -> None:
    proven = refused = 0
    for players in (3, 4):
        for state, seat in leads(players, 60, players, most=3):
            hands = [mask_of(state.hand_of(s)) for s in range(players)]
            assert state.trump is not None
            side = [s == seat for s in range(players)]
            left = len(state.hand_of(seat))
            plays = claim_plays(state, seat)
            every_play = minimax(hands, seat, [], state.trump, side) == left
            assert (plays is not None) == every_play, state.describe()
            if plays is None:
                refused += 1
                continue
            proven += 1
            copy, before = state.clone(), state.tricks_won[seat]
            for action in plays:
                copy.apply_action(action)
            assert copy.phase is not Phase.PLAY and copy.tricks_won[seat] == before + left
            assert len(state.hand_of(seat)) == left, "the game itself is left alone"
    assert proven > 20 and refused > 20, (proven, refused)


def ann_to_lead(core: TableState, want_proven: bool) -> None:
    """Play ann's table (ann bids the most she may and plays her lowest tile; the
    computers pass and play their lowest) until ann is to lead and her claim would be
    proven, or not, as `want_proven`."""
    game = core.game
    assert game is not None
    for step in range(2000):
        seat = game.current_player()
        if seat == 0 and can_claim(game, 0) and \
                (claim_plays(game, 0) is not None) == want_proven:
            return
        legal = game.legal_actions()
        if game.phase is Phase.BID:
            action = legal[-1] if seat == 0 else (Action.make_pass() if Action.make_pass()
                                                  in legal else legal[0])
        elif seat == CHANCE:
            core.handle(DealNow(core.generation), 20.0 + step)
            continue
        else:
            action = legal[0]
        message = FromMember("ann", Act("t1", action)) if seat == 0 \
            else BotMoved(core.generation, seat, action, False)
        core.handle(message, 20.0 + step)
    raise AssertionError("ann never came to lead such a claim")


def proof_of(effects: list[object]) -> Prove:
    (prove,) = [e for e in effects if isinstance(e, Prove)]
    return prove


def test_a_proven_claim_plays_the_rest_out_at_once_and_tells_everyone() -> None:
    core = started()
    core.handle(FromMember("ann", StartGame("t1")), 10.0)
    ann_to_lead(core, want_proven=True)
    game = core.game
    assert game is not None
    left, hand = len(game.hand_of(0)), game.hand_number
    before = game.tricks_won[0]
    _, effects = core.handle(FromMember("ann", Claim("t1")), 100.0)
    prove = proof_of(effects)
    assert len(game.hand_of(0)) == left, "nothing is played before the proof is back"
    plays = prove.proof()
    assert plays is not None
    _, effects = core.handle(ClaimChecked(prove.generation, 0, plays, True), 101.0)
    assert game.phase is not Phase.PLAY and game.hand_number == hand, "the hand is over"
    assert game.logs[-1].plays[-len(plays):] == [a.tile.index for a in plays if a.tile], \
        "every play is in the game's log (the record)"
    told = [o.event for o in sent(effects) if isinstance(o, ToMember) and o.name == "ann"]
    notice = next(e for e in told if isinstance(e, Notice))
    assert notice.code is Tell.CLAIMED and notice.params["tricks"] == left
    assert notice.params["plays"] == tuple(str(a.tile) for a in plays)
    update = next(e for e in told if isinstance(e, TableUpdate))
    assert update.view is not None and update.view.results[-1].tricks_won[0] == before + left
    _, effects = core.handle(ClaimChecked(prove.generation, 0, plays, True), 102.0)
    assert effects == [], "a proof of a game since moved on does nothing"


def test_a_claim_that_cannot_be_proven_or_is_not_at_ann_s_lead_is_refused() -> None:
    core = started()
    core.handle(FromMember("ann", StartGame("t1")), 10.0)
    _, effects = core.handle(FromMember("ann", Claim("t1")), 11.0)
    (refused,) = [o.event for o in sent(effects) if isinstance(o, ToMember)]
    assert isinstance(refused, Rejected) and refused.code is Refusal.CLAIM_NOT_YOUR_LEAD
    ann_to_lead(core, want_proven=False)
    game = core.game
    assert game is not None
    left = len(game.hand_of(0))
    _, effects = core.handle(FromMember("ann", Claim("t1")), 100.0)
    prove = proof_of(effects)
    _, again = core.handle(FromMember("ann", Claim("t1")), 100.5)
    (checking,) = [o.event for o in sent(again) if isinstance(o, ToMember)]
    assert isinstance(checking, Rejected) and checking.code is Refusal.CLAIM_CHECKING
    assert ClaimProof(prove.proof.game, 0)() is None
    _, effects = core.handle(ClaimChecked(prove.generation, 0, (), True), 101.0)
    (refused,) = [o.event for o in sent(effects) if isinstance(o, ToMember)]
    assert isinstance(refused, Rejected) and refused.code is Refusal.CLAIM_NOT_PROVEN
    assert refused.params == {"tricks": left} and len(game.hand_of(0)) == left
    _, effects = core.handle(FromMember("ann", Claim("t1")), 102.0)
    _, effects = core.handle(ClaimChecked(proof_of(effects).generation, 0, (), False), 103.0)
    (unchecked,) = [o.event for o in sent(effects) if isinstance(o, ToMember)]
    assert isinstance(unchecked, Rejected) and unchecked.code is Refusal.CLAIM_UNCHECKED


def test_a_proof_out_of_time_is_not_checked_rather_than_a_failure() -> None:
    for state, seat in leads(3, 5, 7, most=7):
        if len(state.hand_of(seat)) == 7:
            assert ClaimProof(state, seat, seconds=0.0)() == ()
            return
    raise AssertionError("no hand's first lead")
