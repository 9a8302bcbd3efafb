"""How long a claim's proof takes (`moon_tui/bots/claim.py`), above all at the first lead
of a hand's play (7 tricks left: the longest search), with the solver the server uses
and with the pure-Python one (the fallback where no C compiler built `_dds`).

    .venv/bin/python bench/claim.py [--deals 200] [--players 3] [--pure]

Hands are bid and played by the heuristic; at every lead the leader's claim is proven or
refused, and timed (wall seconds of this process, one core).
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence

from moon_tui.bots import claim
from moon_tui.bots.heuristic import HeuristicBot
from moon_tui.bots.solver import PySolver, Solver
from moon_tui.rules import GameState, Phase, Rules


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def measure(players: int, deals: int, seed: int) -> dict[int, list[tuple[float, bool]]]:
    """For each number of tricks left: (seconds, proven) of every leader's claim."""
    rng = random.Random(seed)
    bot = HeuristicBot()
    rules = Rules.make(players=players)
    out: dict[int, list[tuple[float, bool]]] = {}
    hands = 0
    while hands < deals:
        state = GameState.new_game(rules, rng)
        while not state.is_terminal() and hands < deals:
            if state.phase is Phase.DEAL:
                state.deal(rng)
                continue
            seat = state.current_player()
            if claim.can_claim(state, seat):
                left = len(state.hand_of(seat))
                out.setdefault(left, []).append(claim.timed_proof(state, seat))
                if left == 7:
                    hands += 1
            state.apply_action(bot.choose(state.view(seat), rng))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--players", type=int, default=3, choices=(3, 4))
    parser.add_argument("--pure", action="store_true", help="the pure-Python solver")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.pure:
        claim.Solver = PySolver  # type: ignore[misc]  # the fallback, measured on purpose
    name = f"{claim.Solver.__module__}.{claim.Solver.__name__}"
    print(f"claim proofs on {name}, {args.players} players, {args.deals} hands played "
          f"by the heuristic (default solver: {Solver.__module__}.{Solver.__name__})")
    for left, runs in sorted(measure(args.players, args.deals, args.seed).items(),
                             reverse=True):
        ms = [seconds * 1000 for seconds, _ in runs]
        proven = sum(1 for _, held in runs if held)
        print(f"  {left} tricks left: {len(runs)} claims, {proven} proven; "
              f"median {statistics.median(ms):.2f} ms, p99 {pct(ms, 0.99):.2f} ms, "
              f"max {max(ms):.2f} ms")


if __name__ == "__main__":
    main()
