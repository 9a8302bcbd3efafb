"""`moon-arena`: bots play complete games against each other, on duplicated deals.

Every deal seed is played once per rotation of the seats (3 times with 3 players, 4 with
4), so each seat type meets the same hands from every seat and the luck of the deal
cancels out. A game depends only on `--seed` and its number, so a run is deterministic for
a seed, except that an `expert` stopped by its time budget depends on the machine's speed:
give `--samples N` for a fixed number of samples per decision (then no time limit).
`--cpu-clock` measures the budget and the decision times in CPU time of the process: the
fair measure on a machine shared with other work, where wall time starves the search.

Per seat type it reports the games won by a seat of that type (with a 95% Wilson interval;
"parity" is what equal players would win: the type's sides over all sides), points per
hand per seat, bids made / attempted, moons made / tried, and decision times. On a terminal
a progress bar (stderr) shows the games done, the running win rates and the time left.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..commandline import OneLineParser, number_in, say
from ..rules import Rules, RulesError, parse_options
from ..rules.record import dumps_record
from ..shown import brief
from .base import Bot
from .expert import ExpertBot
from .match import MAX_HANDS, SeatStats, play_game
from .progress import ArenaProgress, terminal_console
from .registry import ALIASES, LEVELS, make_bot


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything a worker needs to play game number `index` of a run."""

    rules: Rules
    seats: tuple[str, ...]
    seed: int
    budget: float | None
    samples: int | None
    keep_record: bool
    cpu_clock: bool = False


@dataclass(slots=True)
class TypeTotals:
    """The figures of one seat type over a run."""

    games: int = 0
    wins: int = 0
    points: int = 0
    hands: int = 0
    bids_attempted: int = 0
    bids_made: int = 0
    moons_tried: int = 0
    moons_made: int = 0
    unfinished: int = 0
    """Games of this seat type stopped at the hand limit with no winner."""
    decision_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        rate = self.wins / self.games if self.games else 0.0
        lo, hi = wilson(self.wins, self.games)
        times = sorted(self.decision_ms)
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(rate, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "points_per_hand": round(self.points / self.hands, 3) if self.hands else 0.0,
            "bids_made": self.bids_made,
            "bids_attempted": self.bids_attempted,
            "moons_made": self.moons_made,
            "moons_tried": self.moons_tried,
            "unfinished": self.unfinished,
            "decision_ms_p50": round(percentile(times, 0.50), 2),
            "decision_ms_p99": round(percentile(times, 0.99), 2),
            "decision_ms_max": round(times[-1], 2) if times else 0.0,
        }


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (sound near 0 and 1, unlike p ± 2se)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values (0 for none)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def seating(seats: Sequence[str], game: int) -> list[str]:
    """The seat types of game number `game`: rotation `game % players` of the seat list."""
    n = len(seats)
    r = game % n
    return [seats[(s + r) % n] for s in range(n)]


def deal_seed(seed: int, game: int, players: int) -> int:
    """One deal seed per set of `players` games: the duplicated deal."""
    return seed * 1_000_003 + game // players


def build_bot(kind: str, setup: Setup) -> Bot:
    if ALIASES.get(kind, kind) == "expert":
        if setup.samples is not None:
            return ExpertBot(max_samples=setup.samples, fixed_samples=True)
        if setup.cpu_clock:
            return ExpertBot(time_budget=setup.budget, clock=time.process_time)
    return make_bot(kind, time_budget=setup.budget)


def play_one(setup: Setup, game: int) -> tuple[list[str], list[SeatStats], dict[str, Any] | None]:
    """Play game number `game` of a run: its seat types, per-seat figures, its record."""
    kinds = seating(setup.seats, game)
    bots = [build_bot(k, setup) for k in kinds]
    report = play_game(setup.rules, bots, deal_seed(setup.seed, game, setup.rules.players),
                       setup.seed * 7919 + game, names=[f"{k}-{s}" for s, k in enumerate(kinds)],
                       clock=time.process_time if setup.cpu_clock else time.perf_counter)
    return kinds, report.seats, report.record if setup.keep_record else None


def _play_star(args: tuple[Setup, int]) -> tuple[list[str], list[SeatStats],
                                                  dict[str, Any] | None]:
    return play_one(*args)


def run(setup: Setup, games: int, jobs: int = 1) -> Iterator[tuple[int, list[str],
                                                                  list[SeatStats],
                                                                  dict[str, Any] | None]]:
    """Play games 0..games-1 (in order of their number, whatever `jobs` is)."""
    tasks = [(setup, g) for g in range(games)]
    if jobs <= 1:
        for g, task in enumerate(tasks):
            yield (g, *_play_star(task))
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for g, result in enumerate(pool.imap(_play_star, tasks)):
            yield (g, *result)


def tally(setup: Setup, games: int, jobs: int = 1, records: Path | None = None,
          on_game: Callable[[dict[str, int]], None] | None = None
          ) -> dict[str, dict[str, Any]]:
    """Play a run and sum it up per seat type; `on_game` hears the wins per seat type
    after each game (the progress bar)."""
    totals: dict[str, TypeTotals] = {}
    for kind in setup.seats:
        totals.setdefault(kind, TypeTotals())
    for game, kinds, stats, record in run(setup, games, jobs):
        won = set()
        unfinished = any(st.unfinished for st in stats)
        for kind, st in zip(kinds, stats, strict=True):
            t = totals[kind]
            t.points += st.points
            t.hands += st.hands
            t.bids_attempted += st.bids_attempted
            t.bids_made += st.bids_made
            t.moons_tried += st.moons_tried
            t.moons_made += st.moons_made
            t.decision_ms.extend(st.decision_ms)
            if st.won:
                won.add(kind)
        for kind in totals:
            totals[kind].games += 1
            totals[kind].wins += kind in won
            totals[kind].unfinished += unfinished
        if records is not None and record is not None:
            (records / f"game-{game:05d}.json").write_text(dumps_record(record))
        if on_game is not None:
            on_game({kind: t.wins for kind, t in totals.items()})
    return {kind: t.summary() for kind, t in totals.items()}


def parity(seats: Sequence[str], kind: str, rules: Rules) -> float:
    """The win rate of `kind` if every seat were equally strong."""
    sides = {rules.side_of(s) for s, k in enumerate(seats) if k == kind}
    return len(sides) / rules.sides


def format_table(result: dict[str, dict[str, Any]], seats: Sequence[str], rules: Rules) -> str:
    lines = [f"{'seat type':<11} {'games':>6} {'won':>6} {'win rate':>9} {'95% CI':>15} "
             f"{'parity':>6} {'pts/hand':>8} {'bids made':>11} {'moons':>7} "
             f"{'ms p50':>7} {'p99':>7} {'max':>7}"]
    for kind, r in result.items():
        lo, hi = r["ci95"]
        interval = f"{lo:.1%}-{hi:.1%}"
        bids = f"{r['bids_made']}/{r['bids_attempted']}"
        moons = f"{r['moons_made']}/{r['moons_tried']}"
        lines.append(
            f"{kind:<11} {r['games']:>6} {r['wins']:>6} {r['win_rate']:>9.1%} "
            f"{interval:>15} {parity(seats, kind, rules):>6.0%} "
            f"{r['points_per_hand']:>8.2f} {bids:>11} {moons:>7} "
            f"{r['decision_ms_p50']:>7.1f} {r['decision_ms_p99']:>7.1f} "
            f"{r['decision_ms_max']:>7.1f}")
    return "\n".join(lines)


MAX_GAMES = 1_000_000
"""Games one run may ask for (each is listed before it is played)."""


def _seconds(text: str) -> float:
    """A budget in seconds: a plain decimal number above 0, at most an hour."""
    try:
        value = float(text) if text.isascii() else math.nan  # float() reads "٣" as 3
    except ValueError:
        value = math.nan
    if not 0 < value <= 3600:  # nan and inf are refused here too
        raise argparse.ArgumentTypeError(f"not a number of seconds from 0 to 3600: "
                                         f"{brief(text)}")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = OneLineParser(
        prog="moon-arena", description="Play Moon bots against each other on duplicated deals.")
    parser.add_argument("--seats", required=True,
                        help="seat types clockwise, e.g. expert,heuristic,heuristic (levels: "
                             f"{', '.join(LEVELS)}; heuristic = normal). With --players 4, "
                             "two types mean two teams.")
    parser.add_argument("--games", type=number_in(1, MAX_GAMES), default=30,
                        help=f"games to play, 1 to {MAX_GAMES:,} (default 30)")
    parser.add_argument("--seed", type=number_in(0, 2**63 - 1), default=1)
    parser.add_argument("--players", type=number_in(3, 4), default=None)
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a table option of RULES.md, e.g. min_bid=3 (repeatable)")
    parser.add_argument("--jobs", type=number_in(1, 256), default=1,
                        help="worker processes (default 1)")
    parser.add_argument("--records", type=Path, default=None, metavar="DIR",
                        help="write every game as a moon/1 record into DIR")
    parser.add_argument("--budget", type=_seconds, default=None,
                        help="seconds per expert decision (default 1.0)")
    parser.add_argument("--samples", type=number_in(1, 1_000_000), default=None,
                        help="a fixed number of expert samples per decision, no time limit "
                             "(makes expert runs reproducible)")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="measure the expert's budget in CPU time of its process, not "
                             "wall time (fair figures on a busy machine)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    seats = [s.strip() for s in args.seats.split(",") if s.strip()]
    players = args.players if args.players is not None else (4 if len(seats) == 4 else 3)
    if players == 4 and len(seats) == 2:
        seats = seats * 2
    try:
        for kind in seats:
            make_bot(kind)
        if len(seats) != players:
            raise ValueError(f"{players} players need {players} seat types, not {len(seats)}")
        options = parse_options(args.rule)
        options["players"] = players
        rules = Rules.make(**options)
    except (ValueError, RulesError) as exc:
        say("moon-arena", str(exc))
        return 2
    if args.records is not None:
        try:
            args.records.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            say("moon-arena", f"--records {args.records} is a file, not a folder: give a "
                "folder for the records (it is made if it does not exist)")
            return 2
        except OSError as exc:
            say("moon-arena", f"cannot make the folder {args.records}: "
                f"{exc.strerror or exc}")
            return 2
    setup = Setup(rules, tuple(seats), args.seed, args.budget, args.samples,
                  keep_record=args.records is not None, cpu_clock=args.cpu_clock)
    console = terminal_console()
    try:
        if console is None:
            result = tally(setup, args.games, args.jobs, args.records)
        else:
            with ArenaProgress(console, args.games) as progress:
                result = tally(setup, args.games, args.jobs, args.records, progress.advance)
    except OSError as exc:  # a record that cannot be written
        say("moon-arena", f"cannot write a record in {args.records}: {exc.strerror or exc}")
        return 1
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{args.games} games, {players} players, seed {args.seed}, seats "
              f"{','.join(seats)}, rules: {rules.summary()}")
        print(format_table(result, seats, rules))
        unfinished = max(r["unfinished"] for r in result.values())
        if unfinished:
            print(f"{unfinished} of {args.games} games had no winner after {MAX_HANDS} hands "
                  "(random play rarely reaches the target): nobody won them.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
