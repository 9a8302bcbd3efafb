"""Scripted hands with fixed deals: every example and edge of RULES.md, checked by hand.

Each deal is written out in full so the expected legal plays and trick winners can be
checked against the rules by a reader, not against the engine.
"""

from __future__ import annotations

import pytest

from moon_tui.rules import (
    CHANCE,
    TERMINAL,
    Action,
    Breach,
    GameState,
    IllegalActionError,
    Outcome,
    Phase,
    RuleBroken,
    Rules,
    Termination,
    Tile,
)

# moon21 (no 0s): 6-6 6-5 6-4 6-3 6-2 6-1 5-5 5-4 5-3 5-2 5-1 4-4 4-3 4-2 4-1 3-3 3-2 3-1
# 2-2 2-1 1-1


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(Tile.parse(t) for t in text.split())


def new_game(deal: list[str], widow: str | None = None, first_bidder: int = 0,
             **options: object) -> GameState:
    state = GameState(Rules.make(**options), first_bidder)
    state.deal_tiles([tiles(h) for h in deal], Tile.parse(widow) if widow else None)
    return state


def do(state: GameState, *actions: str) -> None:
    for text in actions:
        state.apply_action(Action.parse(text))


def legal(state: GameState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def plays(text: str) -> set[str]:
    return {f"play {t}" for t in tiles(text)}


def auction(state: GameState, declarer: int, bid: int | str) -> None:
    """Everyone passes except `declarer`, who bids `bid`."""
    while state.phase is Phase.BID:
        seat = state.current_player()
        do(state, f"bid {bid}" if seat == declarer else "pass")


def play_out(state: GameState) -> None:
    """Finish the hand, each seat playing its highest legal tile (used where every order
    of play gives the same tricks)."""
    while state.phase is Phase.PLAY:
        state.apply_action(state.legal_actions()[-1])


# -- RULES.md section 8: the three follow-suit examples -------------------------------------

def test_trump_six_five_three_led_six_five_is_not_a_five() -> None:
    state = new_game(["5-3 6-6 6-4 6-3 6-2 6-1 3-2",
                      "6-5 4-4 4-3 4-2 3-3 2-2 1-1",
                      "5-5 5-4 5-2 5-1 4-1 3-1 2-1"], set="moon21")
    auction(state, 0, 4)
    do(state, "trump 6", "play 5-3")
    # Seat 1's only tile with a 5 is 6-5, a trump: 5s are led, so it may play anything.
    assert legal(state) == plays("6-5 4-4 4-3 4-2 3-3 2-2 1-1")
    do(state, "play 6-5")
    assert legal(state) == plays("5-5 5-4 5-2 5-1")
    with pytest.raises(IllegalActionError, match="seat 2 must follow 5s: holds 5-5 5-4 5-2 5-1"):
        do(state, "play 4-1")
    do(state, "play 5-5")
    assert state.tricks[-1].winner == 1  # the trump beats the double of the suit led


def test_no_trump_five_three_led_means_fives_not_threes() -> None:
    state = new_game(["5-3 5-5 5-4 5-2 3-3 3-2 6-6",
                      "3-1 6-4 6-2 6-1 4-4 4-2 2-2",
                      "6-5 6-3 5-1 4-3 4-1 2-1 1-1"], set="moon21")
    auction(state, 0, 4)
    do(state, "trump none", "play 5-3")
    assert legal(state) == plays("3-1 6-4 6-2 6-1 4-4 4-2 2-2")  # 3-1 is not a 5
    do(state, "play 3-1")
    assert legal(state) == plays("6-5 5-1")  # must play a 5; 6-3 and 4-3 are not 5s
    do(state, "play 5-1")
    assert state.tricks[-1].winner == 0


def test_doubles_trump_four_two_led_four_four_is_a_trump_and_six_four_wins() -> None:
    state = new_game(["4-2 6-6 6-5 6-3 5-5 3-3 2-2",
                      "4-4 4-1 2-1 5-2 3-2 1-1 6-2",
                      "6-4 6-1 5-4 5-3 5-1 4-3 3-1"], set="moon21")
    auction(state, 0, 4)
    do(state, "trump doubles", "play 4-2")
    assert legal(state) == plays("4-1")  # 4-4 is a trump, not a 4; 2s are not led
    do(state, "play 4-1")
    assert legal(state) == plays("6-4 5-4 4-3")
    do(state, "play 6-4")
    assert state.tricks[-1].winner == 2


def test_doubles_trump_the_four_four_holder_without_a_four_may_trump() -> None:
    state = new_game(["4-2 6-6 6-5 6-3 5-5 3-3 2-2",
                      "4-4 2-1 5-2 3-2 1-1 6-2 6-1",
                      "6-4 5-4 5-3 5-1 4-3 4-1 3-1"], set="moon21")
    auction(state, 0, 4)
    do(state, "trump doubles", "play 4-2")
    assert legal(state) == plays("4-4 2-1 5-2 3-2 1-1 6-2 6-1")
    do(state, "play 4-4", "play 6-4")
    assert state.tricks[-1].winner == 1


def test_follow_me_the_double_is_highest() -> None:
    state = new_game(["5-4 6-6 6-4 6-2 4-4 3-3 2-2",
                      "5-5 5-1 3-2 3-1 2-1 1-1 4-1",
                      "6-5 6-3 6-1 5-3 5-2 4-3 4-2"], set="moon21")
    auction(state, 0, 4)
    do(state, "trump none", "play 5-4")
    assert legal(state) == plays("5-5 5-1")
    do(state, "play 5-5")
    assert legal(state) == plays("6-5 5-3 5-2")
    do(state, "play 6-5")
    assert state.tricks[-1].winner == 1


def test_trump_zero_in_moon22_makes_zero_zero_the_only_trump() -> None:
    state = new_game(["6-6 6-5 6-4 6-3 6-2 6-1 5-5",
                      "0-0 5-4 5-3 5-2 5-1 4-4 4-3",
                      "4-2 4-1 3-3 3-2 3-1 2-2 2-1"], widow="1-1")
    auction(state, 0, 4)
    do(state, "discard 1-1", "trump 0", "play 6-6")
    assert legal(state) == plays("0-0 5-4 5-3 5-2 5-1 4-4 4-3")  # void in 6s
    do(state, "play 0-0", "play 2-1")
    assert state.tricks[-1].winner == 1  # 0-0, the only trump, beats 6-6

    # 0-0 led calls for trumps; nobody else holds one, so anything may follow.
    state = new_game(["0-0 6-6 6-5 6-4 6-3 6-2 6-1",
                      "5-5 5-4 5-3 5-2 5-1 4-4 4-3",
                      "4-2 4-1 3-3 3-2 3-1 2-2 2-1"], widow="1-1")
    auction(state, 0, 4)
    do(state, "discard 1-1", "trump 0", "play 0-0")
    assert legal(state) == plays("5-5 5-4 5-3 5-2 5-1 4-4 4-3")
    do(state, "play 5-5")
    assert legal(state) == plays("4-2 4-1 3-3 3-2 3-1 2-2 2-1")
    do(state, "play 4-2")
    assert state.tricks[-1].winner == 0


def test_trump_number_rank_double_first_then_by_other_end() -> None:
    # Trump 2: 2-2 beats 6-2, which beats 5-2 ... and 2-1 loses to 3-2.
    state = new_game(["2-1 6-6 6-5 6-4 6-3 5-5 5-4",
                      "6-2 5-3 5-1 4-4 4-3 3-3 1-1",
                      "2-2 5-2 4-2 3-2 6-1 4-1 3-1"], set="moon21")
    auction(state, 0, 4)
    do(state, "trump 2", "play 2-1")
    assert legal(state) == plays("6-2")
    do(state, "play 6-2")
    assert legal(state) == plays("2-2 5-2 4-2 3-2")
    with pytest.raises(IllegalActionError, match="seat 2 must follow trumps"):
        do(state, "play 6-1")
    do(state, "play 2-2")
    assert state.tricks[-1].winner == 2  # the double tops the trump suit
    do(state, "play 6-1")  # 6s led: seat 1's 6-2 is a trump, not a 6
    assert legal(state) == plays("6-6 6-5 6-4 6-3")
    do(state, "play 6-3")
    assert legal(state) == plays("5-3 5-1 4-4 4-3 3-3 1-1")
    do(state, "play 5-3")
    assert state.tricks[-1].winner == 0


# -- scoring --------------------------------------------------------------------------------

SET_DEAL = ["6-6 6-5 6-4 6-3 1-1 2-1 3-1",
            "5-5 5-4 5-3 5-2 5-1 4-4 4-3",
            "6-2 6-1 4-2 4-1 3-3 3-2 2-2"]
SET_PLAYS = ["6-6 4-3 6-1", "6-5 5-1 6-2", "6-4 5-2 2-2", "6-3 5-3 3-2",  # seat 0 wins 4
             "3-1 4-4 3-3",   # 3s led: seat 2's 3-3 wins
             "4-2 2-1 5-4",   # seat 2 leads 4s: seat 1's 5-4 wins
             "5-5 4-1 1-1"]   # seat 1 leads 5s and wins with 5-5


def set_hand(state: GameState, declarer: int, bid: int) -> None:
    """SET_DEAL turned so that `declarer` holds its first hand: the declarer takes 4
    tricks, the next seat 2, the one after 1."""
    deal = [tiles(SET_DEAL[(seat - declarer) % 3]) for seat in range(3)]
    state.deal_tiles(deal)
    auction(state, declarer, bid)
    do(state, "trump 6")
    for trick in SET_PLAYS:
        do(state, *(f"play {t}" for t in trick.split()))
    assert [state.tricks_won[(declarer + i) % 3] for i in range(3)] == [4, 2, 1]


def scripted_set_hand(bid: int, **options: object) -> GameState:
    state = GameState(Rules.make(set="moon21", **options), 0)
    set_hand(state, 0, bid)
    return state


def test_three_players_set_loses_the_bid_and_others_score_their_tricks() -> None:
    state = scripted_set_hand(5)
    result = state.results[-1]
    assert (result.declarer, result.bid, result.made) == (0, 5, False)
    assert result.points == (-5, 2, 1)
    assert state.scores == (-5, 2, 1)
    assert state.current_player() == CHANCE


def test_three_players_made_at_least_the_bid_scores_the_bid() -> None:
    state = scripted_set_hand(4)  # 4 tricks for a bid of 4: made ("at least")
    assert state.results[-1].made is True
    assert state.scores == (4, 2, 1)


def test_marks_made_gives_the_declarer_a_mark_set_gives_every_other_side_one() -> None:
    assert scripted_set_hand(4, scoring="marks").scores == (1, 0, 0)
    state = scripted_set_hand(5, scoring="marks")
    assert state.scores == (0, 1, 1)
    assert state.rules.target == 7


def all_sixes(seat: int) -> list[str]:
    """A moon21 deal where `seat` holds every 6 and 5-5: with 6s trump it takes all 7."""
    strong = "6-6 6-5 6-4 6-3 6-2 6-1 5-5"
    rest = ["5-4 5-3 5-2 5-1 4-4 4-3 4-2", "4-1 3-3 3-2 3-1 2-2 2-1 1-1"]
    deal = rest[:]
    deal.insert(seat, strong)
    return deal


def sixes_hand(state: GameState, strong: int, declarer: int, bid: int | str) -> None:
    state.deal_tiles([tiles(h) for h in all_sixes(strong)])
    auction(state, declarer, bid)
    do(state, "trump 6")
    play_out(state)


def test_a_made_moon_wins_the_game_at_once() -> None:
    state = GameState(Rules.make(set="moon21"), 0)
    sixes_hand(state, 0, 0, 21)
    assert state.scores == (21, 0, 0)
    assert state.outcome() == Outcome(0, Termination.MOON)
    assert state.current_player() == TERMINAL and state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="game is over"):
        do(state, "pass")


def test_a_made_moon_with_moon_wins_game_off_only_scores_21() -> None:
    state = GameState(Rules.make(set="moon21", moon_wins_game=False, target=50), 0)
    sixes_hand(state, 0, 0, 21)
    assert state.scores == (21, 0, 0)
    assert state.outcome() is None and state.current_player() == CHANCE


def test_a_set_moon_loses_21() -> None:
    state = GameState(Rules.make(set="moon21"), 0)
    sixes_hand(state, 1, 0, 21)  # seat 1 holds the trumps
    assert state.scores == (-21, 7, 0)
    assert state.outcome() is None


def test_four_players_made_scores_the_tricks_or_the_bid() -> None:
    deal = ["6-6 6-5 6-4 6-3 6-2 6-1 6-0",
            "5-5 5-4 5-3 5-2 5-1 5-0 4-4",
            "4-3 4-2 4-1 4-0 3-3 3-2 3-1",
            "3-0 2-2 2-1 2-0 1-1 1-0 0-0"]
    for team_scoring, expected in (("tricks", (7, 0)), ("bid", (5, 0))):
        state = new_game(deal, players=4, team_scoring=team_scoring, target=50)
        auction(state, 0, 5)
        do(state, "trump 6")
        play_out(state)
        assert state.tricks_won == (7, 0, 0, 0)
        assert state.scores == expected
        assert state.results[-1].made is True


def test_four_players_set_loses_the_bid_and_the_other_team_scores_its_tricks() -> None:
    deal = ["5-5 5-4 5-3 5-2 5-1 5-0 4-4",
            "6-6 6-5 6-4 6-3 6-2 6-1 6-0",  # seat 1 (team 1) holds every trump
            "4-3 4-2 4-1 4-0 3-3 3-2 3-1",
            "3-0 2-2 2-1 2-0 1-1 1-0 0-0"]
    state = new_game(deal, players=4)
    auction(state, 2, 4)  # seat 2, team 0, declares and names 6s
    do(state, "trump 6")
    play_out(state)
    assert state.tricks_won == (0, 7, 0, 0)
    assert state.results[-1].made is False
    assert state.scores == (-4, 7)


# -- winning the game ----------------------------------------------------------------------

def test_reaching_the_target_alone_wins() -> None:
    state = GameState(Rules.make(set="moon21", target=7), 0)
    sixes_hand(state, 1, 0, 4)       # seat 0 set: -4; seat 1 takes all 7 tricks
    assert state.scores == (-4, 7, 0) and state.outcome() == Outcome(1, Termination.TARGET)


def test_a_tie_at_the_target_goes_on_until_one_side_is_alone_at_the_top() -> None:
    state = GameState(Rules.make(set="moon21", target=7), 0)
    sixes_hand(state, 0, 0, 4)       # seat 0 makes 4
    sixes_hand(state, 1, 1, 6)       # seat 1 makes 6
    assert state.scores == (4, 6, 0) and state.outcome() is None
    set_hand(state, 0, 4)            # seat 0 makes 4, seat 1 takes 2 tricks, seat 2 one
    assert state.scores == (8, 8, 1)
    assert state.outcome() is None and state.current_player() == CHANCE
    set_hand(state, 1, 4)            # seat 1 makes 4, seat 2 takes 2, seat 0 one
    assert state.scores == (9, 12, 3)
    assert state.outcome() == Outcome(1, Termination.TARGET)


def test_a_tie_above_the_target_continues_then_the_declarer_may_go_out() -> None:
    games = {}
    for tie_break, expected in (("continue", None), ("declarer", Outcome(0, "tie_break"))):
        state = games[tie_break] = GameState(Rules.make(set="moon21", scoring="marks", target=1,
                                     tie_break=tie_break), 0)
        sixes_hand(state, 1, 0, 4)   # seat 0 set: seats 1 and 2 get a mark each
        assert state.scores == (0, 1, 1)
        assert state.outcome() is None and state.current_player() == CHANCE
        sixes_hand(state, 0, 0, 4)   # seat 0 makes it: all three have 1 mark
        assert state.scores == (1, 1, 1)
        assert state.outcome() == expected
    # Played on under "continue": the next made bid puts its side alone at the top.
    state = games["continue"]
    sixes_hand(state, 2, 2, 5)
    assert state.scores == (1, 1, 2)
    assert state.outcome() == Outcome(2, "target")


def test_tie_break_declarer_wins_even_behind_another_side() -> None:
    state = GameState(Rules.make(set="moon21", target=7, tie_break="declarer"), 0)
    sixes_hand(state, 1, 2, 4)       # seat 2 set: seat 1 takes 7 tricks and wins alone
    assert state.outcome() == Outcome(1, Termination.TARGET)
    state = GameState(Rules.make(set="moon21", target=8, tie_break="declarer"), 0)
    sixes_hand(state, 1, 1, 7)       # seat 1: 7 points
    sixes_hand(state, 0, 0, 5)       # seat 0: 5 points
    assert state.scores == (5, 7, 0) and state.outcome() is None
    sixes_hand(state, 0, 0, 4)       # seat 0 made, 9 >= 8: goes out
    assert state.outcome() == Outcome(0, "tie_break")


# -- bidding, the widow, the rotation -------------------------------------------------------

def test_all_pass_redeal_voids_the_hand_and_moves_the_first_bidder() -> None:
    state = GameState(Rules.make(set="moon21"), 2)
    state.deal_tiles([tiles(h) for h in all_sixes(0)])
    assert state.current_player() == 2
    do(state, "pass", "pass", "pass")
    assert state.current_player() == CHANCE and state.scores == (0, 0, 0)
    assert state.results[-1].redeal and state.results[-1].first_bidder == 2
    state.deal_tiles([tiles(h) for h in all_sixes(0)])
    assert state.current_player() == 0 and state.first_bidder == 0
    auction(state, 1, 4)
    do(state, "trump 6")
    play_out(state)
    state.deal_tiles([tiles(h) for h in all_sixes(0)])
    assert state.current_player() == 1


def test_all_pass_force_last_the_last_seat_must_bid() -> None:
    state = new_game(all_sixes(0), set="moon21", all_pass="force_last", first_bidder=1)
    do(state, "pass", "pass")
    assert "pass" not in legal(state)
    assert legal(state) == {"bid 4", "bid 5", "bid 6", "bid 7", "bid 21"}
    with pytest.raises(IllegalActionError, match=r"seat 0 must bid.*force_last"):
        do(state, "pass")
    do(state, "bid 4")
    assert state.declarer == 0


def test_bids_must_rise_and_respect_min_bid_and_the_moon_ends_the_auction() -> None:
    state = new_game(all_sixes(0), set="moon21", min_bid=5)
    assert legal(state) == {"pass", "bid 5", "bid 6", "bid 7", "bid 21"}
    with pytest.raises(IllegalActionError, match="seat 0 bid 4: the lowest bid is 5"):
        do(state, "bid 4")
    do(state, "bid 6")
    with pytest.raises(IllegalActionError, match="seat 1 bid 6: a bid must be higher than 6"):
        do(state, "bid 6")
    do(state, "bid 21")
    assert state.phase is Phase.TRUMP and state.declarer == 1 and state.current_player() == 1
    assert [a.bid for _, a in state.bids] == [6, 21]


def test_widow_then_discard_then_trump_and_only_the_declarer_sees_them() -> None:
    state = new_game(["6-6 6-5 6-4 6-3 6-2 6-1 5-5",
                      "0-0 5-4 5-3 5-2 5-1 4-4 4-3",
                      "4-2 4-1 3-3 3-2 3-1 2-2 2-1"], widow="1-1")
    auction(state, 1, 5)
    assert state.phase is Phase.DISCARD
    assert state.view(1).widow == Tile.parse("1-1") and len(state.view(1).hand) == 8
    assert state.view(0).widow is None and state.view(None).widow is None
    do(state, "discard 5-1")
    assert state.view(1).discard == Tile.parse("5-1")
    assert state.view(0).discard is None and state.view(2).discard is None
    assert Tile.parse("1-1") in state.view(1).hand
    assert state.phase is Phase.TRUMP
    do(state, "trump 5")
    assert state.phase is Phase.PLAY and state.current_player() == 1


def test_trump_before_widow_names_trump_first_and_sees_the_widow_only_after() -> None:
    state = new_game(["6-6 6-5 6-4 6-3 6-2 6-1 5-5",
                      "0-0 5-4 5-3 5-2 5-1 4-4 4-3",
                      "4-2 4-1 3-3 3-2 3-1 2-2 2-1"], widow="1-1", trump_before_widow=True)
    auction(state, 2, 4)
    assert state.phase is Phase.TRUMP
    assert state.view(2).widow is None and len(state.view(2).hand) == 7
    assert not state.view(2).widow_taken
    with pytest.raises(IllegalActionError, match="name trump, not to discard"):
        do(state, "discard 2-1")
    do(state, "trump 2")
    assert state.phase is Phase.DISCARD
    assert state.view(2).widow == Tile.parse("1-1") and len(state.view(2).hand) == 8
    assert state.view(0).widow is None
    do(state, "discard 1-1")  # the widow itself may go
    assert state.phase is Phase.PLAY and state.view(2).discard == Tile.parse("1-1")


def test_doubles_and_none_can_be_forbidden() -> None:
    state = new_game(all_sixes(0), set="moon21", doubles_trump=False, no_trump=False)
    auction(state, 0, 4)
    assert legal(state) == {f"trump {n}" for n in range(1, 7)}
    with pytest.raises(IllegalActionError, match="doubles_trump = false"):
        do(state, "trump doubles")
    with pytest.raises(IllegalActionError, match="no_trump = false"):
        do(state, "trump none")


@pytest.mark.parametrize("tile_set", ["moon21", "moon22"])
def test_only_a_number_some_tile_carries_can_be_trump(tile_set: str) -> None:
    # moon21 has no tile with a 0: trump 0 there was no trump at all, a back door at a
    # table that forbids no trump (issue 31).
    state = new_game(all_sixes(0), "0-0" if tile_set == "moon22" else None, set=tile_set,
                     no_trump=False)
    auction(state, 0, 4)
    if state.phase is Phase.DISCARD:
        do(state, "discard 5-5")
    offered = {a.trump for a in state.legal_actions()}
    if tile_set == "moon21":
        assert 0 not in offered and set(range(1, 7)) <= offered
        with pytest.raises(IllegalActionError, match="no tile of this set carries a 0"):
            do(state, "trump 0")
    else:
        do(state, "trump 0")  # 0-0 is the only trump
        assert state.trump == 0


def test_errors_name_the_seat_the_action_and_the_rule() -> None:
    state = new_game(SET_DEAL, set="moon21")
    with pytest.raises(IllegalActionError) as info:
        do(state, "play 6-6")
    assert "illegal play 6-6" in str(info.value) and "seat 0" in str(info.value)
    assert info.value.seat == 0 and info.value.action == Action.parse("play 6-6")
    assert info.value.breach == Breach(RuleBroken.WRONG_ACTION, seat=0, phase=Phase.BID,
                                       kind="play")
    auction(state, 0, 4)
    do(state, "trump 6")
    with pytest.raises(IllegalActionError, match="seat 0 does not hold 5-5") as info:
        do(state, "play 5-5")
    assert info.value.rule is RuleBroken.NOT_IN_HAND
    assert info.value.breach.params() == {"seat": 0, "kind": "play", "tile": "5-5"}


def test_a_deal_must_hold_every_tile_once() -> None:
    state = GameState(Rules.make(set="moon21"), 0)
    bad = all_sixes(0)
    bad[1] = bad[1].replace("5-4", "6-6")
    with pytest.raises(IllegalActionError, match="6-6 is dealt twice"):
        state.deal_tiles([tiles(h) for h in bad])
    with pytest.raises(IllegalActionError, match="has no widow"):
        state.deal_tiles([tiles(h) for h in all_sixes(0)], Tile.parse("0-0"))
    with pytest.raises(IllegalActionError, match="not a tile of moon21"):
        state.deal_tiles([tiles(h.replace("1-1", "1-0")) for h in all_sixes(0)])
