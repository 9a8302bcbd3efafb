"""Double-dummy solve time of whole hands from the opening lead (the pure-Python and the
compiled solver on the same deals), and expert decision time and samples.

    .venv/bin/python bench/solver.py [--deals 200] [--players 3] [--decisions 60]
    MOON_PURE_SOLVER=1 .venv/bin/python bench/solver.py   # the expert on the pure solver

Times are CPU seconds of this process (`time.process_time`), so other load on a shared
machine distorts them less: the expert measures its budget on that clock too. The
wall-clock decision times are printed as well.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from moon_tui.bots.expert import ExpertBot
from moon_tui.bots.heuristic import HeuristicBot
from moon_tui.bots.solver import COMPILED, PySolver, Solver
from moon_tui.rules import GameState, Phase, Rules


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def solve_times(solver_class: Any, players: int, deals: int,
                seed: int) -> tuple[list[float], list[int]]:
    rng = random.Random(seed)
    rules = Rules.make(players=players)
    times, nodes = [], []
    for i in range(deals):
        state = GameState.new_game(rules, rng)
        hands = list(state.logs[-1].deal_masks)
        declarer = rng.randrange(players)
        side = [rules.side_of(s) == rules.side_of(declarer) for s in range(players)]
        # A fresh table: no help from earlier deals.
        solver = solver_class(i % 9, players, side)
        start = time.process_time()
        solver.solve(hands, declarer)
        times.append(time.process_time() - start)
        nodes.append(solver.nodes)
    return times, nodes


def decision_times(players: int, decisions: int, seed: int,
                   budget: float) -> tuple[list[float], list[float], list[int]]:
    """Expert decisions at one seat of games otherwise played by the heuristic: CPU and
    wall seconds, and the deals sampled for each."""
    rng = random.Random(seed)
    rules = Rules.make(players=players)
    expert, other = ExpertBot(time_budget=budget, clock=time.process_time), HeuristicBot()
    cpu: list[float] = []
    wall: list[float] = []
    samples: list[int] = []
    while len(cpu) < decisions:
        state = GameState.new_game(rules, rng)
        while not state.is_terminal() and len(cpu) < decisions:
            if state.phase is Phase.DEAL:
                state.deal(rng)
                continue
            seat = state.current_player()
            view = state.view(seat)
            if seat == 0 and len(view.legal) > 1:
                c0, w0 = time.process_time(), time.perf_counter()
                ranked = expert.evaluate(view, rng)
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
                samples.append(ranked[0].samples if ranked else 0)
                action = ranked[0].action if ranked else other.choose(view, rng)
            else:
                action = other.choose(view, rng)
            state.apply_action(action)
    return cpu, wall, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--players", type=int, default=3, choices=(3, 4))
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    classes: list[Any] = [PySolver] if COMPILED is None else [PySolver, COMPILED]
    medians = []
    for solver_class in classes:
        times, nodes = solve_times(solver_class, args.players, args.deals, args.seed)
        ms = [t * 1000 for t in times]
        medians.append(statistics.median(ms))
        print(f"{solver_class.__module__}.{solver_class.__name__}, {args.players} players, "
              f"whole hand from the opening lead, {args.deals} deals: "
              f"median {statistics.median(ms):.2f} ms, p99 {pct(ms, 0.99):.2f} ms, "
              f"max {max(ms):.2f} ms; nodes median {statistics.median(nodes):.0f}, "
              f"p99 {pct(nodes, 0.99):.0f}")
    if len(medians) == 2:
        print(f"compiled speed-up (median): {medians[0] / medians[1]:.1f}x")
    if args.decisions:
        cpu, wall, samples = decision_times(args.players, args.decisions, args.seed,
                                            args.budget)
        print(f"expert on {Solver.__module__}.{Solver.__name__} (budget {args.budget} s CPU), "
              f"{len(cpu)} decisions: CPU p50 {pct(cpu, 0.5) * 1000:.0f} ms, "
              f"p99 {pct(cpu, 0.99) * 1000:.0f} ms, max {max(cpu) * 1000:.0f} ms; "
              f"wall p50 {pct(wall, 0.5) * 1000:.0f} ms, p99 {pct(wall, 0.99) * 1000:.0f} ms; "
              f"deals sampled: mean {statistics.mean(samples):.1f}, "
              f"p50 {pct(samples, 0.5)}, min {min(samples)}")

if __name__ == "__main__":
    main()
