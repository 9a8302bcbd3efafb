"""What each rendering patch of server/patches.py saves, in CPU per table update.

A patch of Textual's private code stays only while it is worth it: one that saves less
than 2% of a club server's CPU goes (issue 32). Most of a club server's CPU draws the
screens of players at tables (docs/CAPACITY.md), so the workload is `bench/ui.py`'s: one
app at a table with two random computers, tiles played by key, every frame turned into
terminal bytes. Its CPU per table update counts the app, the lobby, the computers and
the bench, but not SSH, the journal or the operating system's work for the sockets,
which a server also pays: a patch's share here is an upper bound of its share of a
club server's CPU.

A server draws many screens, and some caches are shared by every app of the process
(patch 14 is about one of them): `--watchers N` (default 8) adds N apps, each watching
a table of three random computers of its own, drawn as the player's screen is; the
figure counts the table updates and CPU of every app.

On a shared machine the speed of a core changes by a third from one minute to the next,
more than most patches are worth, so the variants alternate within one game: every
`--period` seconds the bench takes one patch back out (Textual's own code in its place)
or puts them all in again, in the order all, without the first, all, without the second,
and so on, and charges the CPU and the table updates of that period to the variant that
ran. A patch's gain is (CPU per update without it / CPU per update with all - 1).

`--processes` runs each variant as a process of its own instead, alternating in rounds
(each in the opposite order to the one before), and gives the median over the rounds:
patch 11 whole, but far noisier (runs of the same code differ by 15-30% on a shared
machine).

Run: PYTHONPATH=. .venv/bin/python bench/patch_gains.py [--plays 600] [--period 0.5]
     [--watchers 8]
     [--patches 11 12 13 14 15]
     PYTHONPATH=. .venv/bin/python bench/patch_gains.py --processes [--rounds 8]
     [--plays 100] [--patches 11]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RENDERING = ("11", "12", "13", "14", "15")
"""The patches that make drawing cheaper (the others mend a bug, free memory, or shorten
the wait for a frame, which CPU does not show). 16 and 17 were removed: measured below
2% (their figures are in server/patches.py)."""
IN_GAME = RENDERING
"""Those that can be taken out and put back in the middle of a game. Of patch 11, only
Textual's `Strip.__init__` comes back (its seven caches made with each line): the lines
drawn meanwhile must still find their caches, so the slots that make one when first read
stay, and Textual's code reads them through them (a little slower than Textual alone:
the figure is an upper bound of the patch's gain)."""
SETTLING = 2.0
"""Seconds at the start (the app, the lobby and the table starting) charged to nobody."""


def install_without(number: str | None) -> int:
    """Install the server's patches (patches.py, teardown.py), then put Textual's code
    back for patch `number`; how many replacements that took back."""
    from server import patches, teardown

    patches.install()
    teardown.install()
    taken_back = 0
    for patch in patches.PATCHES.patches:
        if number is not None and patch.internal.why.split(".")[0] == number:
            setattr(patch.internal.owner, patch.internal.name,
                    patches.PATCHES.original(patch))
            taken_back += 1
    if number is not None and not taken_back:
        raise SystemExit(f"server/patches.py has no patch {number}")
    return taken_back


def _group(number: str) -> list[Any]:
    from server import patches

    group = [patch for patch in patches.PATCHES.patches
             if patch.internal.why.split(".")[0] == number]
    if not group:
        raise SystemExit(f"server/patches.py has no patch {number}")
    return group


def _set(variant: str | None, numbers: list[str]) -> None:
    """All patches in, but `variant`'s (None: all of them). Of patch 11 only
    `Strip.__init__` goes (see `IN_GAME`)."""
    from server import patches

    for number in numbers:
        for patch in _group(number):
            if number == "11" and patch.internal.name != "__init__":
                continue
            setattr(patch.internal.owner, patch.internal.name,
                    patches.PATCHES.original(patch) if number == variant
                    else patch.replacement)


async def watch(lobby: Any, name: str, ready: asyncio.Event, done: asyncio.Event) -> None:
    """An app watching a table of three random computers until `done`."""
    from bench.ui import until
    from moon_tui.app import MoonApp
    from moon_tui.lobby import AddBot, CreateTable, StartGame
    from moon_tui.lobby.messages import Spectate
    from moon_tui.rules import Rules

    app = MoonApp(lobby, name)
    async with app.run_test(size=(80, 24)):
        await until(lambda: app.handle is not None)
        app.send(CreateTable(f"{name}'s", Rules.make(target=1000)))
        await until(lambda: app.current_table is not None)
        table_id = app.current_table
        assert table_id is not None
        app.send(Spectate(table_id))
        for seat in range(3):
            app.send(AddBot(table_id, seat, "random"))
        await until(lambda: all(not seat.is_free
                                for seat in app.model.tables[table_id].table.seats))
        app.send(StartGame(table_id))
        ready.set()
        await done.wait()


async def alternate(numbers: list[str], plays: int, period: float, watchers: int
                    ) -> dict[str | None, tuple[float, int]]:
    """CPU seconds and table updates charged to each variant over one game."""
    from bench.ui import CONFIG, measure
    from moon_tui.lobby import Lobby
    from moon_tui.lobby.messages import TableUpdate
    from moon_tui.ui.model import Model

    install_without(None)
    updates = [0]
    take = Model.apply

    def counting(model: Model, event: Any) -> bool:
        if isinstance(event, TableUpdate):
            updates[0] += 1
        return take(model, event)

    Model.apply = counting  # type: ignore[method-assign, assignment]
    charged: dict[str | None, list[float]] = {v: [0.0, 0] for v in [None, *numbers]}
    order = [variant for number in numbers for variant in (None, number)]

    async def switch() -> None:
        await asyncio.sleep(SETTLING)
        step = 0
        while True:
            variant = order[step % len(order)]
            _set(variant, numbers)
            cpu, count = time.process_time(), updates[0]
            try:
                await asyncio.sleep(period)
            finally:
                charged[variant][0] += time.process_time() - cpu
                charged[variant][1] += updates[0] - count
            step += 1

    done = asyncio.Event()
    async with Lobby(dataclasses.replace(CONFIG, bot_delay=0.05), seed=2) as lobby:
        readies = [asyncio.Event() for _ in range(watchers)]
        watching = [asyncio.create_task(watch(lobby, f"w{i}", ready, done))
                    for i, ready in enumerate(readies)]
        for ready in readies:
            await ready.wait()
        switcher = asyncio.create_task(switch())
        try:
            await measure(plays, (80, 24), trace=False, bot_delay=0.02)
        finally:
            switcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await switcher
            done.set()
            await asyncio.gather(*watching)
            Model.apply = take  # type: ignore[method-assign]
    return {variant: (cpu, int(count)) for variant, (cpu, count) in charged.items()}


def report_alternating(numbers: list[str], plays: int, period: float, watchers: int) -> None:
    charged = asyncio.run(alternate(numbers, plays, period, watchers))
    cpu, count = charged[None]
    base = cpu / max(count, 1)
    print(f"all patches: {base * 1000:.3f} ms of CPU per table update ({count} updates)")
    for number in numbers:
        cpu, count = charged[number]
        without = cpu / max(count, 1)
        print(f"patch {number}: without it {without * 1000:.3f} ms per update ({count} "
              f"updates), gain {(without / base - 1) * 100:+.1f}%")


def one_run(number: str | None, plays: int) -> None:
    """Print the CPU milliseconds per table update of one run (the `--run` process)."""
    from bench.ui import measure

    install_without(number)
    _, _, cpu = asyncio.run(measure(plays, (80, 24), trace=False, bot_delay=0.02))
    print(f"{cpu.seconds * 1000 / max(cpu.updates, 1):.4f}")


def run_variant(number: str | None, plays: int) -> float:
    command = [sys.executable, str(Path(__file__)), "--run", "--plays", str(plays)]
    if number is not None:
        command += ["--without", number]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", action="store_true",
                        help="a process per variant, alternating in rounds")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--plays", type=int, default=None,
                        help="tiles played (600 in one game, 100 per process)")
    parser.add_argument("--period", type=float, default=0.5)
    parser.add_argument("--watchers", type=int, default=8)
    parser.add_argument("--patches", nargs="*", default=None)
    parser.add_argument("--run", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--without", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        one_run(args.without, args.plays)
        return
    if not args.processes:
        report_alternating(args.patches or list(IN_GAME), args.plays or 600, args.period,
                           args.watchers)
        return
    args.patches = args.patches or ["11"]
    args.plays = args.plays or 100
    variants: list[str | None] = [None, *args.patches]
    figures: dict[str | None, list[float]] = {variant: [] for variant in variants}
    for round_number in range(args.rounds):
        order = variants if round_number % 2 == 0 else variants[::-1]
        for variant in order:
            figures[variant].append(run_variant(variant, args.plays))
        print(f"round {round_number + 1}: " + ", ".join(
            f"{variant or 'all'} {figures[variant][-1]:.3f}" for variant in variants),
            flush=True)
    reference = figures[None]
    print(f"all patches: {statistics.median(reference):.3f} ms of CPU per table update "
          f"(median of {args.rounds} runs of {args.plays} tiles played)")
    for variant in args.patches:
        gains = [without / base - 1 for without, base in zip(figures[variant], reference,
                                                              strict=True)]
        print(f"patch {variant}: without it {statistics.median(figures[variant]):.3f} ms, "
              f"gain {statistics.median(gains) * 100:+.1f}% (rounds: "
              + ", ".join(f"{gain * 100:+.1f}%" for gain in gains) + ")")


if __name__ == "__main__":
    main()
