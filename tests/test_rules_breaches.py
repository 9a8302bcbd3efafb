"""Errors and tricks as the engine's data, checked against the engine over random games.

An illegal action names the rule it breaks (`RuleBroken`) and the facts that go with it;
each fact must agree with the state (a `MUST_FOLLOW` names the suit led and exactly the
tiles that follow it). A trick says which suit was led and who is winning it; that must
agree with the tables of the rules and, at the end of the trick, with the engine's winner.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_properties import rules_strategy

from moon_tui.lobby.messages import Act, Claim, CreateTable, Rejected
from moon_tui.lobby.refusals import Refusal, Refused
from moon_tui.rules import (
    CHANCE,
    MOON,
    Action,
    Breach,
    GameState,
    IllegalActionError,
    Phase,
    RuleBroken,
    Rules,
    Tile,
    Trick,
)
from moon_tui.rules.actions import BY_CODE
from moon_tui.rules.tiles import FOLLOW, LEAD_SUIT, WIN_RANK, mask_of
from moon_tui.ui import refusals as words

ALL_ACTIONS = sorted(BY_CODE.values())


def check_breach(state: GameState, action: Action, breach: Breach) -> None:
    """The rule and every fact of `breach` agree with the state `action` was tried in."""
    seat = state.current_player()
    rule = breach.rule
    if state.phase is Phase.OVER:
        assert rule is RuleBroken.GAME_OVER
        return
    if state.phase is Phase.DEAL:
        assert rule is RuleBroken.NOT_DEALT
        return
    assert breach.seat == seat
    kinds = {a.kind for a in state.legal_actions()}
    if state.phase is Phase.BID:
        kinds |= {"pass", "bid"}
    assert (rule is RuleBroken.WRONG_ACTION) == (action.kind not in kinds)
    if rule is RuleBroken.WRONG_ACTION:
        assert breach.phase is state.phase and breach.kind == action.kind
        return
    hand = state.hand_of(seat)
    if rule is RuleBroken.NOT_IN_HAND:
        assert breach.tile == action.tile and action.tile not in hand
        assert breach.kind == action.kind
    elif rule is RuleBroken.MUST_FOLLOW:
        assert action.tile in hand and state.phase is Phase.PLAY
        trick = state.current_trick
        assert trick is not None and trick.suit_led == breach.suit
        assert state.trump is not None
        follow = FOLLOW[state.trump][breach.suit]
        # The tiles named are exactly the seat's tiles of the suit led, and the seat's
        # legal plays; the tile tried is not one of them.
        assert breach.held and all(t in hand for t in breach.held)
        assert mask_of(breach.held) == mask_of(hand) & follow
        assert set(breach.held) == {a.tile for a in state.legal_actions()}
        assert not follow >> action.tile.index & 1
    elif rule is RuleBroken.MUST_BID:
        assert action.kind == "pass" and state.rules.all_pass == "force_last"
        assert len(state.bids) == state.players - 1 and state.bid is None
    elif rule is RuleBroken.BID_TOO_LOW:
        assert action.bid == breach.bid and breach.limit == state.rules.min_bid
        assert breach.bid is not None and breach.bid < state.rules.min_bid
        assert breach.bid != MOON
    elif rule is RuleBroken.BID_NOT_HIGHER:
        high = state.bid or 0
        assert action.bid == breach.bid and breach.limit == high
        assert breach.bid is not None and breach.bid <= high
    elif rule is RuleBroken.TRUMP_NOT_ALLOWED:
        assert action.trump == breach.trump and breach.trump not in state.rules.trumps
    else:
        raise AssertionError(f"{rule} cannot come from an action in play")


def reference_winner(trick: Trick, trump: int) -> int:
    """Who wins the trick so far, worked out from the rules' tables (not the engine)."""
    led = LEAD_SUIT[trump][trick.plays[0][1].index]
    ranks = WIN_RANK[trump][led]
    return max(trick.plays, key=lambda p: ranks[p[1].index])[0]


def check_trick(state: GameState) -> None:
    trick = state.current_trick
    if trick is None:
        return
    if not trick.plays:
        assert trick.suit_led is None and trick.winning_seat is None
        return
    trump = state.trump
    assert trump is not None
    assert trick.suit_led == LEAD_SUIT[trump][trick.plays[0][1].index]
    assert trick.winning_seat == reference_winner(trick, trump)
    assert trick.winner is None
    # The suit led is the one the next seat must follow when it can.
    follow = FOLLOW[trump][trick.suit_led]
    hand = mask_of(state.hand_of(state.current_player()))
    allowed = mask_of(a.tile for a in state.legal_actions() if a.tile is not None)
    assert allowed == (hand & follow or hand)


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32))
def test_every_illegal_action_names_its_rule_and_facts_that_agree_with_the_engine(
        rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    state = GameState.new_game(rules, rng)
    seen: set[RuleBroken] = set()
    for _ in range(400):
        if state.current_player() == CHANCE:
            state.deal(rng)
        legal = set(state.legal_actions())
        for action in ALL_ACTIONS:
            breach = state.breach(action)
            assert (breach is None) == (action in legal), (action, breach)
            if breach is None:
                continue
            check_breach(state, action, breach)
            seen.add(breach.rule)
            if rng.random() < 0.05:
                before = state.view(None)
                try:
                    state.apply_action(action)
                except IllegalActionError as exc:
                    assert exc.breach == breach and exc.seat == breach.seat
                    assert exc.reason == str(breach) and str(exc).endswith(str(breach))
                    refused = Refused.illegal(exc.breach)
                    assert refused.code is breach.rule
                    rejected = Rejected.because(Act("t1", action), refused)
                    assert rejected.code is breach.rule
                    assert json.loads(json.dumps(dict(rejected.params))) == {
                        k: list(v) if isinstance(v, tuple) else v
                        for k, v in rejected.params.items()}
                    assert words.refusal_words(rejected)
                else:
                    raise AssertionError(f"{action} was applied despite {breach}")
                assert state.view(None) == before
        if state.is_terminal():
            break
        state.apply_action(rng.choice(sorted(legal)))
    assert RuleBroken.WRONG_ACTION in seen


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32))
def test_the_trick_says_the_suit_led_and_who_is_winning_as_the_engine_plays_it(
        rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    state = GameState.new_game(rules, rng)
    tricks_seen = 0
    while not state.is_terminal() and len(state.logs) <= 4:
        if state.current_player() == CHANCE:
            state.deal(rng)
            continue
        check_trick(state)
        predicted = None
        trick = state.current_trick
        if trick is not None and len(trick.plays) == state.players - 1:
            predicted = trick  # the next tile closes this trick
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        if predicted is not None:
            closed = state.tricks[-1] if state.tricks else None
            assert closed is not None and closed.plays[:-1] == predicted.plays
            assert closed.winner == closed.winning_seat == reference_winner(closed,
                                                                           state.trump or 0)
            assert closed.suit_led == predicted.suit_led
            tricks_seen += 1
        for seat in (None, *range(state.players)):
            view = state.view(seat)
            assert view.current_trick == state.current_trick
            assert view.tricks == state.tricks
    for done in state.tricks:
        assert done.winner == done.winning_seat
    assert tricks_seen or not any(r.declarer is not None for r in state.results)


def test_every_rule_and_refusal_has_words_for_the_player() -> None:
    assert set(words.RULES) == set(RuleBroken)
    assert set(words.LOBBY) | set(words.NEEDS_COMMAND) == set(Refusal)
    assert not set(words.LOBBY) & set(words.NEEDS_COMMAND)


WIDEST = {"seat": 3, "to_move": 3, "kind": "discard", "phase": "trump", "tile": "6-6",
          "suit": 6, "held": ("5-4", "5-3", "5-2", "5-1", "5-0", "6-5", "5-5"), "bid": 7,
          "lowest": 7, "limit": 7, "count": 28, "trump": 7, "tricks": 7,
          "table_id": "t12345", "owner": "w" * 16, "by": "w" * 16, "last": 3,
          "level": "'genius'", "levels": "easy, normal, expert", "command": "LeaveTable",
          "action": "'play 6-6'", "set": "moon28", "tile_set": "moon28"}
"""Parameters of the widest words: seats, tiles and names as long as they come."""
TABLE_SCOPE = [code for code in Refusal if list(Refusal).index(code)
               >= list(Refusal).index(Refusal.TABLE_FAILED)]


def test_a_refusal_at_the_table_fits_the_prompt_of_an_80_column_screen() -> None:
    # The table says what it refused in place of the prompt, one line of 78 cells, "✗ "
    # first: words cut there lost their end ("...still takes one fr…").
    for code in [*RuleBroken, *TABLE_SCOPE]:
        said = words.refusal_words(Rejected(Act("t1", Action.make_pass()), code, WIDEST))
        assert len(said) <= 76, (code, said)


def test_a_broken_rule_is_worded_from_its_code_not_its_english() -> None:
    breach = Breach(RuleBroken.MUST_FOLLOW, seat=1, suit=5,
                    held=(Tile.parse("5-4"), Tile.parse("5-2")))
    assert str(breach) == "seat 1 must follow 5s: holds 5-4 5-2"
    rejected = Rejected(Act("t1", Action.parse("3-2")), breach.rule, breach.params())
    assert words.refusal_words(rejected) == "You must follow 5s: you hold 5-4 5-2"
    turn = Breach(RuleBroken.NOT_YOUR_TURN, seat=0, to_move=2)
    rejected = Rejected(Act("t1", Action.make_pass()), turn.rule, turn.params())
    assert words.refusal_words(rejected) == "It is not your turn: seat 3 is to move"
    taken = Refused(Refusal.SEAT_TAKEN, seat=0, by="ann")
    assert str(taken) == "seat_taken {'seat': 0, 'by': 'ann'}"  # for logs
    assert words.refusal_words(Rejected.because(Act("t1", Action.make_pass()), taken)) == \
        "seat 1 is taken by ann"
    play_on = Rejected(CreateTable("p"), Refusal.BAD_PLAY_ON,
                       {"why": "seat", "seat": 3, "players": 3})
    assert words.refusal_words(play_on) == \
        "cannot play on from there: there is no seat 4 in a game of 3"
    claim = Rejected(Claim("t1"), Refusal.CLAIM_NOT_PROVEN, {"tricks": 1})
    assert words.refusal_words(claim) == "not claimed: the others could still take the last " \
        "trick. Play on"
    over = Rejected(CreateTable("p"), Refusal.BAD_PLAY_ON, {"why": "over"})
    assert words.refusal_words(over) == "cannot play on from there: the game is over at that point"
    illegal = Rejected(CreateTable("p"), Refusal.BAD_PLAY_ON, {"why": "illegal"})
    assert words.refusal_words(illegal) == \
        "cannot play on from there: that saved game's record cannot be read"
