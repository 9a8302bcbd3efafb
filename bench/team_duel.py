"""Four players, one hand at a time: the expert team against the normal team on the same
deals, seated both ways, from 0-0. Prints the expert team's points minus the normal team's
per hand (mean over deals, with its standard error) and who declared, made, and what the
expert team netted on those hands.

    .venv/bin/python bench/team_duel.py --deals 400 --seed 11 [--set DD_OPTIMISM_4=0.5 ...]

A game of `moon-arena` is five or six hands whose luck the rotation only partly cancels;
a single duplicated hand is a far cheaper A/B of one expert constant (400 deals: about
5 minutes on 2 cores). `--set` changes a constant of `moon_tui.bots.expert` in the
workers. Decisions are budgeted in CPU time (1 s), as `moon-arena --cpu-clock`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from moon_tui.bots import expert, inference  # noqa: E402
from moon_tui.bots.registry import make_bot  # noqa: E402
from moon_tui.rules import GameState, Phase, Rules  # noqa: E402

Outcome = tuple[int, int, int, str | None, bool]
"""(deal, expert team's seat parity, its points minus the other team's, declarer type, made)"""


def set_constants(settings: list[str]) -> None:
    """NAME=VALUE: a constant of `moon_tui.bots.expert`, or `inference.NAME` of the
    expert's reading of the auction."""
    for setting in settings:
        name, value = setting.split("=", 1)
        module = expert
        if name.startswith("inference."):
            module, name = inference, name.removeprefix("inference.")
        old = getattr(module, name)
        setattr(module, name, type(old)(float(value)))


def play_hand(task: tuple[int, int, int, list[str]]) -> Outcome:
    deal, seed, flip, settings = task
    set_constants(settings)
    rules = Rules.make(players=4)
    kinds = ["normal", "expert"] * 2 if flip else ["expert", "normal"] * 2
    bots = [expert.ExpertBot(time_budget=1.0, clock=time.process_time) if k == "expert"
            else make_bot(k) for k in kinds]
    state = GameState(rules, deal % 4)
    state.deal(random.Random(seed * 100_003 + deal))
    rngs = [random.Random(deal * 16 + s) for s in range(4)]
    while state.phase is not Phase.DEAL and not state.is_terminal():
        seat = state.current_player()
        state.apply_action(bots[seat].choose(state.view(seat), rngs[seat]))
    result = state.results[-1]
    team = flip
    declarer = None if result.declarer is None else kinds[result.declarer]
    return (deal, flip, result.points[team] - result.points[1 - team], declarer,
            bool(result.made))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    tasks = [(d, args.seed, f, args.set) for d in range(args.deals) for f in (0, 1)]
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        outcomes = pool.map(play_hand, tasks, chunksize=2)
    per_deal: dict[int, list[int]] = {}
    declared: dict[str, list[int]] = {}
    for deal, _, diff, declarer, made in outcomes:
        per_deal.setdefault(deal, []).append(diff)
        row = declared.setdefault(declarer or "nobody", [0, 0, 0])
        row[0] += 1
        row[1] += made
        row[2] += diff
    means = [sum(d) / len(d) for d in per_deal.values()]
    error = statistics.stdev(means) / len(means) ** 0.5 if len(means) > 1 else float("nan")
    print(f"{' '.join(args.set) or 'defaults'}, seed {args.seed}, {args.deals} deals: expert "
          f"team minus normal team {statistics.mean(means):+.3f} points a hand (se {error:.3f})")
    for who, (hands, made, net) in sorted(declared.items()):
        print(f"  {who} declared {hands} hands, made {made}; expert team net "
              f"{net / hands:+.2f} a hand on them")


if __name__ == "__main__":
    main()
