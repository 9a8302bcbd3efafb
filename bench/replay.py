"""How `moon-rules replay` grows with the length of a record: CPU time per 10,000 hands
and the peak memory, at three sizes.

It was quadratic (5,000 hands 0.63 s, 40,000 hands 8.9 s, 243,854 hands 615 s and ~1 GB:
every hand copied the results of all the hands before it), then linear in time but not in
memory (71, 270 and 1,181 MB at 10,000, 50,000 and 250,000 hands: the whole document was
decoded, and the game kept every hand's history). Linear means the time per 10,000 hands
stays flat from the smallest size to the largest, and the peak memory stays the same.

One random game of the largest size is played (target 1,000, a made moon does not end
it: random bids rarely reach the target) and its first N hands are each a legal record.
It is played in a process of its own: Linux counts a parent's peak memory in the peak of
the children it starts, and this script must stay small for the figures to be the
replay's.
Each size is replayed by the real command in a fresh process (`moon-rules replay FILE`,
report to /dev/null, and again with `--json`); the figures are that process's CPU time
(user + system, so other work on a shared machine counts less against it) and its peak
resident memory, with the size of what it printed for comparison.

    .venv/bin/python bench/replay.py [--sizes 10000,50000,250000] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from moon_tui.rules import Rules
from moon_tui.rules.cli import random_game
from moon_tui.rules.record import record_hand


def write_records(sizes: list[int], seed: int, folder: Path) -> dict[int, Path]:
    """One record file per size: the first `size` hands of one long random game."""
    rules = Rules.make(target=1000, moon_wins_game=False)
    state = random_game(rules, random.Random(seed), max(sizes))
    if len(state.logs) < max(sizes):
        sys.exit(f"the game ended after {len(state.logs)} hands: try another --seed")
    hands = [json.dumps(record_hand(log).to_dict()) for log in state.logs]
    head = json.dumps({"format": "moon/1", "rules": rules.to_dict(),
                       "seats": ["alice", "bob", "carol"],
                       "first_bidder": state.game_first_bidder})
    paths = {}
    for size in sizes:
        path = folder / f"record-{size}.json"
        with path.open("w") as out:
            out.write(head[:-1] + ', "hands": [\n')
            out.write(",\n".join(hands[:size]))
            out.write("\n]}\n")
        paths[size] = path
    return paths


def replay_once(path: Path, json_output: bool) -> tuple[float, int, int]:
    """(CPU seconds, peak RSS in MB, bytes printed) of one `moon-rules replay` run."""
    command = [sys.executable, "-m", "moon_tui.rules.cli", "replay", "--max-size", "1024",
               str(path)] + (["--json"] if json_output else [])
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        printed = out.tell()
    if process.returncode != 0:
        sys.exit(f"replay of {path} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, printed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,250000",
                        help="hands per record, comma separated (default 10000,50000,250000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write-into", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if args.write_into is not None:  # the child that plays the game
        write_records(sizes, args.seed, Path(args.write_into))
        return
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--sizes", args.sizes, "--seed",
                        str(args.seed), "--write-into", folder], check=True)
        paths = {size: Path(folder) / f"record-{size}.json" for size in sizes}
        print(f"records written in {time.perf_counter() - start:.0f} s: "
              + ", ".join(f"{s:,} hands {paths[s].stat().st_size / 1e6:.0f} MB"
                          for s in sizes))
        print(f"{'hands':>8} {'output':>7} {'CPU s':>7} {'s/10k hands':>11} {'peak MB':>8} "
              f"{'printed MB':>10}")
        for json_output in (False, True):
            per_10k, peaks = [], []
            for size in sizes:
                seconds, peak, printed = replay_once(paths[size], json_output)
                per_10k.append(seconds / size * 10_000)
                peaks.append(peak)
                print(f"{size:>8,} {'json' if json_output else 'report':>7} {seconds:>7.2f} "
                      f"{per_10k[-1]:>11.2f} {peak:>8} {printed / 1e6:>10.1f}")
            print(f"{'':>8} {'':>7} time per 10k hands, largest size / smallest: "
                  f"{per_10k[-1] / per_10k[0]:.2f}; peak memory {min(peaks)}-{max(peaks)} MB")


if __name__ == "__main__":
    main()
