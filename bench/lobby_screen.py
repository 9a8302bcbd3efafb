"""Benchmark a lobby screen's redraw when one table of a long list changes.

Every player in the lobby is sent the table list again at each change of any table (at
most `lobby_redraws_per_second` of them server-wide), so with a club's hundred tables
the list is redrawn many times a second. Prints the CPU of one redraw (the app taking the
update in, its frame drawn and turned into terminal bytes), for a change to a table out
of sight and to one on screen, over `--updates` updates, less the CPU of the test
pilot's own wait (measured alone, the same number of times).

Run: PYTHONPATH=. .venv/bin/python bench/lobby_screen.py [--tables 140] [--updates 300]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import replace
from typing import Any

from textual.pilot import Pilot

from bench.ui import render_frames
from moon_tui.app import MoonApp
from moon_tui.lobby import Lobby, LobbyConfig
from moon_tui.lobby.messages import LobbyUpdate, Place, SeatInfo, TableInfo
from moon_tui.rules import Rules

ONLINE = 300
"""Players online (listed in the online panel: eight names and a count)."""


def listing(count: int) -> list[TableInfo]:
    """`count` tables being played: half of three players, half of one and two computers."""
    tables = []
    for i in range(count):
        seats: tuple[SeatInfo, ...]
        if i % 2:
            seats = (SeatInfo(f"guest-{i:04d}"), SeatInfo(None, "normal"),
                     SeatInfo(None, "normal"))
        else:
            seats = tuple(SeatInfo(f"guest-{i + 1000 * k:04d}") for k in range(3))
        tables.append(TableInfo(f"t{i}", f"guest-{i:04d}'s table", f"guest-{i:04d}",
                                Rules.make(), seats, "playing", False, True, (), None))
    return tables


async def redraws(app: MoonApp, pilot: Pilot[Any], frames: list[int],
                  tables: list[TableInfo], rows: range, updates: int) -> tuple[float, int]:
    """CPU seconds and frames for `updates` updates, each changing a table in `rows`."""
    online = tuple(sorted(["ann", *(f"guest-{i:04d}" for i in range(ONLINE - 1))]))
    places: tuple[Place, ...] = tuple(("idle", None) for _ in online)
    before, cpu = frames[0], time.process_time()
    for step in range(updates):
        i = rows[step % len(rows)]
        tables[i] = replace(tables[i], spectators=() if tables[i].spectators else ("cy",))
        app.take(LobbyUpdate(tuple(tables), online, places))
        await pilot.pause()
    return time.process_time() - cpu, frames[0] - before


async def measure(count: int, updates: int) -> None:
    async with Lobby(LobbyConfig(), seed=1) as lobby:
        app = MoonApp(lobby, "ann")
        frames = [0]
        async with app.run_test(size=(80, 24)) as pilot:
            render_frames(app, lambda: frames.__setitem__(0, frames[0] + 1))
            while app.handle is None:
                await asyncio.sleep(0.01)
            tables = listing(count)
            await redraws(app, pilot, frames, tables, range(count), 1)
            await pilot.pause()
            idle = time.process_time()
            for _ in range(updates):
                await pilot.pause()
            idle = time.process_time() - idle
            for where, rows in (("out of sight", range(count - count // 2, count)),
                                ("on screen", range(0, 5))):
                cpu, drawn = await redraws(app, pilot, frames, tables, rows, updates)
                print(f"{count} tables, a change {where}: "
                      f"{(cpu - idle) / updates * 1000:.2f} ms of CPU per lobby update "
                      f"({drawn} frames for {updates} updates)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=140)
    parser.add_argument("--updates", type=int, default=300)
    args = parser.parse_args()
    asyncio.run(measure(args.tables, args.updates))


if __name__ == "__main__":
    main()
