"""Benchmark opening the new-table form: the CPU from the key `n` in the lobby to the
form's first frame as terminal bytes (issue 36: guests cycling tables each build one,
and four at once held up everyone else's keys on a shared server).

Each opening is in an app of its own (as each guest is a session of its own), after the
app's lobby has been drawn; the figure is the median and the worst over `--forms`
openings (the garbage collector held off meanwhile: the server collects on a
policy of its own, server/memory.py).

Run: PYTHONPATH=. .venv/bin/python bench/new_table_form.py [--forms 30] [--size 80x24]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time

from bench.ui import render_frames
from moon_tui.app import MoonApp
from moon_tui.lobby import Lobby, LobbyConfig
from moon_tui.ui.create import CreateTableScreen
from moon_tui.ui.lobby_screen import LobbyScreen


async def one_form(lobby: Lobby, size: tuple[int, int]) -> tuple[float, float]:
    """CPU seconds to open the form in a new app, and of the pilot's wait alone."""
    app = MoonApp(lobby, "ann")
    frames = [0]
    async with app.run_test(size=size) as pilot:
        render_frames(app, lambda: frames.__setitem__(0, frames[0] + 1))
        while not isinstance(app.screen, LobbyScreen) or frames[0] == 0:
            await pilot.pause()
        for _ in range(5):
            await pilot.pause()
        idle = time.process_time()
        await pilot.pause()
        idle = time.process_time() - idle
        gc.collect()
        gc.disable()  # the server collects on a policy of its own (server/memory.py)
        try:
            before, cpu = frames[0], time.process_time()
            await pilot.press("n")
            while not isinstance(app.screen, CreateTableScreen) or frames[0] == before:
                await pilot.pause()
            cpu = time.process_time() - cpu
        finally:
            gc.enable()
    return cpu, idle


async def measure(forms: int, size: tuple[int, int]) -> None:
    # Textual as the server runs it (server/patches.py, teardown.py).
    from server import patches, teardown

    patches.install()
    teardown.install()
    async with Lobby(LobbyConfig(), seed=1) as lobby:
        await one_form(lobby, size)  # the first in the process parses the stylesheets
        figures = [await one_form(lobby, size) for _ in range(forms)]
    cpus = [cpu * 1000 for cpu, _ in figures]
    idle = statistics.median(idle * 1000 for _, idle in figures)
    print(f"new-table form, {size[0]}x{size[1]}, {forms} apps: "
          f"{statistics.median(cpus):.1f} ms of CPU per form opened "
          f"(best {min(cpus):.1f}, worst {max(cpus):.1f} ms; the pilot's own wait "
          f"{idle:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--forms", type=int, default=30)
    parser.add_argument("--size", default="80x24")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    asyncio.run(measure(args.forms, (width, height)))


if __name__ == "__main__":
    main()
