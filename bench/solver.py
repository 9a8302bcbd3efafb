"""Double-dummy solve time of whole hands from the opening lead, and expert decision time.

    .venv/bin/python bench/solver.py [--deals 200] [--players 3] [--decisions 60]

Times are CPU seconds of this process (`time.process_time`), so other load on a shared
machine distorts them less; the wall-clock decision times are printed too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from moon_tui.bots.expert import ExpertBot
from moon_tui.bots.heuristic import HeuristicBot
from moon_tui.bots.solver import Solver
from moon_tui.rules import GameState, Phase, Rules


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def solve_times(players: int, deals: int, seed: int) -> tuple[list[float], list[int]]:
    rng = random.Random(seed)
    rules = Rules.make(players=players)
    times, nodes = [], []
    for i in range(deals):
        state = GameState.new_game(rules, rng)
        hands = list(state.logs[-1].deal_masks)
        declarer = rng.randrange(players)
        side = [rules.side_of(s) == rules.side_of(declarer) for s in range(players)]
        solver = Solver(i % 9, players, side)  # a fresh table: no help from earlier deals
        start = time.process_time()
        solver.solve(hands, declarer)
        times.append(time.process_time() - start)
        nodes.append(solver.nodes)
    return times, nodes


def decision_times(players: int, decisions: int, seed: int,
                   budget: float) -> tuple[list[float], list[float]]:
    """Expert decisions at one seat of games otherwise played by the heuristic."""
    rng = random.Random(seed)
    rules = Rules.make(players=players)
    expert, other = ExpertBot(time_budget=budget), HeuristicBot()
    cpu: list[float] = []
    wall: list[float] = []
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
                action = expert.choose(view, rng)
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            else:
                action = other.choose(view, rng)
            state.apply_action(action)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--players", type=int, default=3, choices=(3, 4))
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    times, nodes = solve_times(args.players, args.deals, args.seed)
    ms = [t * 1000 for t in times]
    print(f"solver, {args.players} players, whole hand from the opening lead, "
          f"{args.deals} deals: median {statistics.median(ms):.1f} ms, "
          f"p99 {pct(ms, 0.99):.1f} ms, max {max(ms):.1f} ms; "
          f"nodes median {statistics.median(nodes):.0f}, p99 {pct(nodes, 0.99):.0f}")
    if args.decisions:
        cpu, wall = decision_times(args.players, args.decisions, args.seed, args.budget)
        print(f"expert decisions (budget {args.budget} s), {len(cpu)} decisions: "
              f"CPU p50 {pct(cpu, 0.5) * 1000:.0f} ms, p99 {pct(cpu, 0.99) * 1000:.0f} ms, "
              f"max {max(cpu) * 1000:.0f} ms; wall p50 {pct(wall, 0.5) * 1000:.0f} ms, "
              f"p99 {pct(wall, 0.99) * 1000:.0f} ms, max {max(wall) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
