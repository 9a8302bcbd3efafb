"""Benchmark opening the new-table form: the CPU from the key `n` in the lobby to the
form's first frame as terminal bytes (issue 36: guests cycling tables each build one,
and four at once held up everyone else's keys on a shared server).

Each opening is in an app of its own (as each guest is a session of its own), after the
app's lobby has been drawn; with `--cycle`, the rest of a guest's cycle too (bench/attacks.py
4): the form sent (to the waiting room's first frame), the game started with two computers
(to the table's), the table left (to the lobby's). The figures are the median, the best
and the worst over `--forms` apps (the garbage collector held off meanwhile: the server
collects on a policy of its own, server/memory.py).

Run: PYTHONPATH=. .venv/bin/python bench/new_table_form.py [--forms 30] [--size 80x24] [--cycle]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from bench.ui import render_frames
from moon_tui.app import MoonApp
from moon_tui.lobby import Lobby, LobbyConfig
from moon_tui.ui.create import CreateTableScreen
from moon_tui.ui.game import GameScreen
from moon_tui.ui.lobby_screen import LobbyScreen
from moon_tui.ui.waiting import WaitingScreen

NUMBERS = itertools.count(1)
STEPS = ["form opened", "table made", "game started", "table left"]


async def step(pilot: Pilot[Any], frames: list[bool], keys: list[str]) -> float:
    """CPU seconds from pressing `keys` to the first frame of the step's end (`frames`)."""
    gc.collect()
    gc.disable()  # the server collects on a policy of its own (server/memory.py)
    try:
        before, cpu = len(frames), time.process_time()
        await pilot.press(*keys)
        while not any(frames[before:]):
            await pilot.pause()
        return time.process_time() - cpu
    finally:
        gc.enable()


async def one_cycle(lobby: Lobby, size: tuple[int, int], cycle: bool) -> tuple[list[float], float]:
    """CPU seconds of each step of `STEPS` (only the first without `cycle`) in a new app,
    and of the pilot's wait alone."""
    app = MoonApp(lobby, f"guest-{next(NUMBERS)}")
    frames: list[bool] = []
    """At each frame, whether the step's end was reached (`done`)."""
    done: list[Callable[[], bool]] = [lambda: isinstance(app.screen, LobbyScreen)]
    async with app.run_test(size=size) as pilot:
        render_frames(app, lambda: frames.append(done[0]()))
        while not any(frames):
            await pilot.pause()
        for _ in range(5):
            await pilot.pause()
        idle = time.process_time()
        await pilot.pause()
        idle = time.process_time() - idle
        ends: list[type] = [CreateTableScreen, WaitingScreen, GameScreen, LobbyScreen]
        keys = [["n"], ["ctrl+s"], ["s"], ["q", "q"]]
        cpus = []
        for number in range(len(STEPS) if cycle else 1):
            if number == 2:
                await pilot.press("b", "b")
                table = app.current_table or ""
                while any(seat.is_free for seat in app.model.tables[table].table.seats):
                    await pilot.pause()
            shown = ends[number]
            done[0] = lambda: isinstance(app.screen, shown)  # noqa: B023 - now, not later
            cpus.append(await step(pilot, frames, keys[number]))
    return cpus, idle


async def measure(forms: int, size: tuple[int, int], cycle: bool) -> None:
    # Textual as the server runs it (server/patches.py, teardown.py).
    from server import patches, teardown

    patches.install()
    teardown.install()
    async with Lobby(LobbyConfig(), seed=1) as lobby:
        await one_cycle(lobby, size, cycle)  # the first in the process parses stylesheets
        figures = [await one_cycle(lobby, size, cycle) for _ in range(forms)]
    idle = statistics.median(idle * 1000 for _, idle in figures)
    print(f"{size[0]}x{size[1]}, {forms} apps (the pilot's own wait {idle:.1f} ms):")
    for number, name in enumerate(STEPS[:len(figures[0][0])]):
        cpus = [steps[number] * 1000 for steps, _ in figures]
        print(f"  {name}: {statistics.median(cpus):.1f} ms of CPU "
              f"(best {min(cpus):.1f}, worst {max(cpus):.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--forms", type=int, default=30)
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--cycle", action="store_true",
                        help="time the rest of a guest's cycle too")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    asyncio.run(measure(args.forms, (width, height), args.cycle))


if __name__ == "__main__":
    main()
