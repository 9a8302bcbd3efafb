"""The double-dummy solvers (pure Python and compiled) against plain minimax over every
legal order of play, and against each other on whole deals."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hatch_build
from moon_tui.bots import solver as solver_module
from moon_tui.bots.inference import plausibility
from moon_tui.bots.knowledge import Knowledge
from moon_tui.bots.solver import COMPILED, PySolver, SearchTimeout, describe
from moon_tui.rules import Action, GameState, Phase, Rules, Tile
from moon_tui.rules.tiles import FOLLOW, LEAD_SUIT, WIN_RANK, mask_of, tile_set


def compiled_solver() -> Any:
    """The compiled solver class. Missing, the test is skipped only on a machine with no C
    compiler; with one, the build failed (or was never run): a failure, not a skip."""
    if COMPILED is not None:
        return COMPILED
    if hatch_build.c_compiler() is None:
        pytest.skip("no C compiler here: only the pure-Python solver exists")
    pytest.fail("a C compiler exists but moon_tui/bots/_dds was not built: "
                "run `pip install -e .` again (or `python hatch_build.py`) and read its output")


@pytest.fixture(params=["pure", "compiled"])
def solver_class(request: pytest.FixtureRequest) -> Any:
    return PySolver if request.param == "pure" else compiled_solver()


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
def test_solver_agrees_with_minimax_on_endgames(players: int, solver_class: Any) -> None:
    for hands, leader, trick, trump, side in endgames(players, 150, seed=players):
        solver = solver_class(trump, players, side)
        expected = minimax(hands, leader, trick, trump, side)
        assert solver.solve(hands, leader, trick) == expected, describe(hands)
        mover = (leader + len(trick)) % players
        for tile, value in solver.move_values(hands, leader, trick).items():
            rest = list(hands)
            rest[mover] ^= 1 << tile
            assert value == minimax(rest, leader, trick + [tile], trump, side)


def test_solver_table_is_reused_across_positions(solver_class: Any) -> None:
    """One solver answers many deals correctly with its transposition table kept, and
    the second time round the table spares it part of the search."""
    solver = solver_class(3, 3, [True, False, False])
    for _ in range(2):
        before = solver.nodes
        for hands, leader, trick, _, _ in endgames(3, 60, seed=9):
            assert solver.solve(hands, leader, trick) == minimax(hands, leader, trick, 3,
                                                                 [True, False, False])
        searched = solver.nodes - before
    assert 0 < searched < before


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


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, int, list[bool], list[int], int, list[int]]:
    """A random deal of 3 or 4 hands, any trump and declarer, played at random (legally)
    to any point of the hand, often in the middle of a trick."""
    players = draw(st.sampled_from((3, 4)))
    trump = draw(st.integers(0, 8))
    declarer = draw(st.integers(0, players - 1))
    rules = Rules.make(players=players)
    tiles = draw(st.permutations([t.index for t in tile_set(rules.set)]))
    hands = [mask_of(()) for _ in range(players)]
    for s in range(players):
        for t in tiles[s * 7:(s + 1) * 7]:
            hands[s] |= 1 << t
    side = [rules.side_of(s) == rules.side_of(declarer) for s in range(players)]
    leader = declarer
    trick: list[int] = []
    for _ in range(draw(st.integers(0, 6 * players + players - 1))):
        seat = (leader + len(trick)) % players
        hand = hands[seat]
        if trick:
            hand = hand & FOLLOW[trump][LEAD_SUIT[trump][trick[0]]] or hand
        tile = draw(st.sampled_from([t for t in range(28) if hand >> t & 1]))
        hands[seat] ^= 1 << tile
        trick.append(tile)
        if len(trick) == players:
            ranks = WIN_RANK[trump][LEAD_SUIT[trump][trick[0]]]
            leader = (leader + max(range(players), key=lambda i: ranks[trick[i]])) % players
            trick = []
    return players, trump, side, hands, leader, trick


@pytest.mark.slow
@settings(max_examples=60)
@given(positions(), st.integers(-2, 9))
def test_compiled_solver_agrees_with_the_pure_one(
        position: tuple[int, int, list[bool], list[int], int, list[int]], guess: int) -> None:
    """Exact values are unique: both solvers give the same for every position and move."""
    compiled = compiled_solver()
    players, trump, side, hands, leader, trick = position
    pure, fast = PySolver(trump, players, side), compiled(trump, players, side)
    assert fast.solve(hands, leader, trick, guess) == pure.solve(hands, leader, trick, guess), \
        describe(hands)
    assert fast.move_values(hands, leader, trick) == pure.move_values(hands, leader, trick)


def test_a_passed_deadline_stops_the_search(solver_class: Any) -> None:
    """The clock is read every 1024 nodes and only with a deadline; past it the search
    raises `SearchTimeout`, and the solver still answers right afterwards."""
    reads: list[int] = []

    def clock() -> float:
        reads.append(1)
        return float(len(reads))

    rng = random.Random(5)
    rules = Rules.make(players=4)
    hands = list(GameState.new_game(rules, rng).logs[-1].deal_masks)
    side = [True, False, True, False]
    solver = solver_class(4, 4, side)
    solver.clock = clock
    assert solver.deadline is None
    value = solver_class(4, 4, side).solve(hands, 0)
    assert solver.solve(hands, 0) == value and not reads
    fresh = solver_class(4, 4, side)
    fresh.clock, fresh.deadline = clock, 2.5
    with pytest.raises(SearchTimeout):
        fresh.move_values(hands, 0)
    assert len(reads) == 3 and fresh.nodes == 3 * 1024
    fresh.deadline = None
    assert fresh.solve(hands, 0) == value


def test_the_compiled_solver_is_the_default_unless_the_pure_one_is_asked_for() -> None:
    compiled = compiled_solver()
    check = "from moon_tui.bots.solver import Solver; print(Solver.__module__)"
    for env, module in (("", compiled.__module__), ("1", solver_module.__name__)):
        done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                              check=True, env={**os.environ, solver_module.PURE_ENV: env})
        assert done.stdout.strip() == module


def test_the_compiled_solver_refuses_malformed_positions() -> None:
    solver = compiled_solver()(0, 3, [True, False, False])
    with pytest.raises(ValueError):
        solver.solve([1, 2], 0)
    with pytest.raises(ValueError):
        solver.solve([1, 2, 1 << 28], 0)
    with pytest.raises(ValueError):
        solver.move_values([1, 2, 4], 0, [3, 4, 5])
