"""The double-dummy solver against plain minimax over every legal order of play."""

from __future__ import annotations

import random

import pytest

from moon_tui.bots.inference import plausibility
from moon_tui.bots.knowledge import Knowledge
from moon_tui.bots.solver import Solver, describe
from moon_tui.rules import Action, GameState, Phase, Rules, Tile
from moon_tui.rules.tiles import FOLLOW, LEAD_SUIT, WIN_RANK, mask_of, tile_set


def minimax(hands: list[int], leader: int, trick: list[int], trump: int,
            side: list[bool]) -> int:
    """Tricks of the declarer's side with best play, by trying every legal order."""
    n = len(hands)
    if len(trick) == n:
        ranks = WIN_RANK[trump][LEAD_SUIT[trump][trick[0]]]
        best = max(range(n), key=lambda i: ranks[trick[i]])
        winner = (leader + best) % n
        return int(side[winner]) + minimax(hands, winner, [], trump, side)
    mover = (leader + len(trick)) % n
    hand = hands[mover]
    if not hand:
        return 0
    if trick:
        follow = hand & FOLLOW[trump][LEAD_SUIT[trump][trick[0]]]
        hand = follow or hand
    values = []
    for t in range(28):
        if hand >> t & 1:
            rest = list(hands)
            rest[mover] ^= 1 << t
            values.append(minimax(rest, leader, trick + [t], trump, side))
    return max(values) if side[mover] else min(values)


def endgames(players: int, count: int, seed: int):  # type: ignore[no-untyped-def]
    """Random endings of 2 or 3 tricks, sometimes with a trick already begun."""
    rng = random.Random(seed)
    tiles = [t.index for t in tile_set("full28" if players == 4 else "moon22")]
    for _ in range(count):
        rng.shuffle(tiles)
        size = rng.choice((2, 3))
        hands = [mask_of(()) for _ in range(players)]
        for s in range(players):
            for t in tiles[s * size:(s + 1) * size]:
                hands[s] |= 1 << t
        trump = rng.randrange(9)
        leader = rng.randrange(players)
        declarer = rng.randrange(players)
        side = [s % 2 == declarer % 2 if players == 4 else s == declarer
                for s in range(players)]
        trick: list[int] = []
        for k in range(rng.randrange(players)):
            seat = (leader + k) % players
            hand = hands[seat]
            if trick:
                hand = hand & FOLLOW[trump][LEAD_SUIT[trump][trick[0]]] or hand
            choice = rng.choice([t for t in range(28) if hand >> t & 1])
            hands[seat] ^= 1 << choice
            trick.append(choice)
        yield hands, leader, trick, trump, side


@pytest.mark.parametrize("players", [3, 4])
def test_solver_agrees_with_minimax_on_endgames(players: int) -> None:
    for hands, leader, trick, trump, side in endgames(players, 150, seed=players):
        solver = Solver(trump, players, side)
        expected = minimax(hands, leader, trick, trump, side)
        assert solver.solve(hands, leader, trick) == expected, describe(hands)
        mover = (leader + len(trick)) % players
        for tile, value in solver.move_values(hands, leader, trick).items():
            rest = list(hands)
            rest[mover] ^= 1 << tile
            assert value == minimax(rest, leader, trick + [tile], trump, side)


def test_solver_table_is_reused_across_positions() -> None:
    """One solver answers many deals correctly with its transposition table kept."""
    solver = Solver(3, 3, [True, False, False])
    for hands, leader, trick, _, _ in endgames(3, 60, seed=9):
        assert solver.solve(hands, leader, trick) == minimax(hands, leader, trick, 3,
                                                             [True, False, False])
    assert solver.tt


def test_samples_fit_what_the_seat_has_seen() -> None:
    """Every sampled deal keeps the seat's hand and the hand sizes, and gives no seat a
    tile of a suit it failed to follow."""
    rng = random.Random(1)
    checked = 0
    for game in range(40):
        state = GameState.new_game(Rules.make(players=3 + game % 2), rng)
        while not state.is_terminal() and checked < 400:
            if state.phase is Phase.DEAL:
                state.deal(rng)
                continue
            seat = state.current_player()
            know = Knowledge.of(state.view(seat))
            hands, out = know.sample(rng)
            assert hands[seat] == mask_of(state.hand_of(seat))
            for s in range(state.players):
                if s != seat:
                    assert hands[s].bit_count() == len(state.hand_of(s))
                    assert not hands[s] & know.void[s]
                    # The truth fits the same constraints.
                    assert not mask_of(state.hand_of(s)) & know.void[s]
            assert out.bit_count() == know.out_count
            checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked == 400


def test_the_auction_makes_hands_more_or_less_plausible() -> None:
    """After a pass from seat 0 and a bid of 7 from seat 1, seat 2 finds the deal where
    seat 1 holds the strong hand far likelier than the one where seat 0 does."""
    strong = [Tile.parse(t) for t in ("6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "5-5")]
    weak = [Tile.parse(t) for t in ("2-1", "3-1", "3-2", "4-1", "4-2", "4-3", "1-1")]
    rest = [t for t in tile_set("moon22") if t not in strong and t not in weak]
    state = GameState(Rules.make(), first_bidder=0)
    state.deal_tiles([weak, strong, rest[:7]], rest[7])
    state.apply_action(Action.parse("pass"))
    state.apply_action(Action.parse("bid 7"))
    weight = plausibility(state.view(2))
    true_hands = [mask_of(weak), mask_of(strong), mask_of(rest[:7])]
    swapped = [mask_of(strong), mask_of(weak), mask_of(rest[:7])]
    assert weight(true_hands) == 1.0
    assert weight(swapped) < 0.1
