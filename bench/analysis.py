"""Time to analyse one 3-player hand of a saved game in the bot worker pool, as the
replay viewer does (`a`): every decision of the hand, each choice's double-dummy and
fair figures (`bots/analysis.py`), one decision at a time in a worker (`run_spare`).

Hands come from random games with random-level play (seeded), all hands open (a finished
game). The pool is idle (no table's computer player waits); the figure is wall time from
asking to the hand's result, on a pool of `--workers` workers, warmed up by one hand first.

    .venv/bin/python bench/analysis.py [--hands 30] [--workers 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from moon_tui.bots.analysis import Analyst
from moon_tui.bots.pool import BotPool
from moon_tui.rules import Rules, record_of
from moon_tui.rules.cli import random_game
from moon_tui.rules.record import as_record
from moon_tui.rules.timeline import Timeline


def hands(count: int, seed: int) -> list[tuple[str, Timeline, int]]:
    """`count` hands that were played (not passed out), from seeded random games."""
    rng = random.Random(seed)
    out: list[tuple[str, Timeline, int]] = []
    game = 0
    while len(out) < count:
        state = random_game(Rules.make(players=3), random.Random(rng.randrange(1 << 30)))
        timeline = Timeline(as_record(record_of(state, ("a", "b", "c"))))
        for hand, steps in enumerate(timeline.steps):
            if any(s.action.kind == "play" for s in steps) and len(out) < count:
                out.append((f"G{game}", timeline, hand))
        game += 1
    return out


async def measure(count: int, workers: int, seed: int) -> list[float]:
    async with BotPool(workers) as pool:
        analyst = Analyst(pool)
        times = []
        for i, (code, timeline, hand) in enumerate(hands(count + 1, seed)):
            start = time.perf_counter()
            await analyst.hand(code, timeline, hand)
            if i:  # the first starts the worker
                times.append(time.perf_counter() - start)
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    times = sorted(asyncio.run(measure(args.hands, args.workers, args.seed)))
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    print(f"one 3-player hand analysed ({len(times)} hands, {args.workers} workers): "
          f"median {statistics.median(times):.2f} s, p99 {p99:.2f} s, "
          f"max {times[-1]:.2f} s")


if __name__ == "__main__":
    main()
