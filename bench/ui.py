"""Benchmark the interface under Textual's test pilot.

- key -> screen: the time from pressing the digit of a tile (playing it) to the first
  frame rendered to terminal output after the lobby's new view arrived; p50 / p99.
- CPU: this process's CPU time while the tiles were played (the app, the lobby, its
  random computers and the bench, which waits on events rather than polling), per tile
  played, per table update the app took in and per frame rendered to terminal bytes. The
  computers think `--bot-delay` (0.02 s) so that, as at a real table, each move is a frame
  of its own. On a shared machine this is the figure to compare, not the latencies.
- memory: what one running app (at a table, mid-game) holds, measured with tracemalloc
  and as the process RSS growth, the lobby excluded.

Run: PYTHONPATH=. .venv/bin/python bench/ui.py [--plays 300] [--size 80x24] [--bot-delay 0.02]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from textual import events
from textual._compositor import CompositorUpdate
from textual.app import App

from moon_tui.app import MoonApp
from moon_tui.lobby import AddBot, CreateTable, Lobby, LobbyConfig, StartGame
from moon_tui.lobby.messages import Event, TableUpdate
from moon_tui.rules import Phase, Rules, SeatView

CONFIG = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0)


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class Clock:
    """Timestamps of the app's screen writes and of the table views it takes in."""

    def __init__(self, app: MoonApp) -> None:
        self.writes: list[float] = []
        self.views: list[float] = []
        self.updates = 0
        """Table updates the app took in (each one redraws the table)."""
        self.changed = asyncio.Event()
        """Set at each view taken in and each frame written: what `until` waits for."""
        take = app.model.apply

        def apply(event: Event) -> bool:
            if isinstance(event, TableUpdate):
                self.updates += 1
                if event.view is not None:
                    self.views.append(time.perf_counter())
                self.changed.set()
            return take(event)  # the app shows only what the model took in

        app.model.apply = apply  # type: ignore[method-assign]

    def watch_frames(self, app: MoonApp) -> None:
        """Note when each frame is ready (as terminal bytes, see `render_frames`)."""

        def written() -> None:
            self.writes.append(time.perf_counter())
            self.changed.set()

        render_frames(app, written)


def render_frames(app: App[Any], each: Callable[[], None]) -> None:
    """Headless apps skip the output step: do it here (render each update to the terminal
    bytes a real driver would write), then call `each`."""
    display = app._display

    def rendered(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if isinstance(renderable, CompositorUpdate):
            renderable.render_segments(app.console)
            each()

    app._display = rendered  # type: ignore[method-assign]


def press(app: MoonApp, key: str) -> None:
    event = events.Key(key, key)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


def view_of(app: MoonApp) -> SeatView | None:
    if app.current_table is None:
        return None
    update = app.model.tables.get(app.current_table)
    return None if update is None else update.view


async def until(check: Any, clock: Clock | None = None, limit: float = 30.0) -> None:
    """Wait for `check()`, woken by the clock's views and frames (polling every
    millisecond would add its own CPU to the figures), or every 50 ms at worst."""
    deadline = time.perf_counter() + limit
    while not check():
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError(f"the game did not move on: {check}")
        if clock is None:
            await asyncio.sleep(0.001)
            continue
        clock.changed.clear()
        if check():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(clock.changed.wait(), min(0.05, left))


@dataclass
class Cpu:
    """CPU time of this whole process (the app, the lobby, its random computers, this
    bench) while tiles were played, and what was drawn meanwhile."""

    seconds: float = 0.0
    plays: int = 0
    updates: int = 0
    frames: int = 0


async def measure(plays: int, size: tuple[int, int], *, trace: bool,
                  bot_delay: float = 0.0) -> tuple[list[float], tuple[int, int] | None, Cpu]:
    """Play `plays` tiles by key; with `trace`, also measure memory (slower: tracemalloc)."""
    if trace:
        tracemalloc.start()
    cpu = Cpu()
    async with Lobby(replace(CONFIG, bot_delay=bot_delay), seed=1) as lobby:
        gc.collect()
        base_traced = tracemalloc.get_traced_memory()[0]
        base_rss = rss_kib()
        app = MoonApp(lobby, "ann")
        clock = Clock(app)
        latencies: list[float] = []
        lost: list[int] = []
        arrivals: list[float] = []
        memory: tuple[int, int] | None = None
        async with app.run_test(size=size):
            clock.watch_frames(app)
            await until(lambda: app.handle is not None, clock)
            app.send(CreateTable("bench", Rules.make(target=1000)))
            await until(lambda: app.current_table is not None, clock)
            table_id = app.current_table
            assert table_id is not None
            app.send(AddBot(table_id, 1, "random"))
            app.send(AddBot(table_id, 2, "random"))
            await until(lambda: all(not s.is_free for s in app.model.tables[table_id]
                                    .table.seats), clock)
            app.send(StartGame(table_id))
            cpu_from = time.process_time()
            updates_from, frames_from = clock.updates, len(clock.writes)
            while len(latencies) < plays:
                await until(lambda: (v := view_of(app)) is not None and v.my_turn, clock)
                view = view_of(app)
                assert view is not None
                if view.phase is not Phase.PLAY:
                    # bids, discards and trump through the same keys, not timed
                    key = {Phase.BID: "p", Phase.DISCARD: "1", Phase.TRUMP: "n"}.get(
                        view.phase, "p")
                    if view.phase is Phase.BID and "pass" not in map(str, view.legal):
                        key = str(min(a.bid for a in view.legal if a.bid is not None))
                    seen = len(clock.views)
                    press(app, key)
                    await until(lambda s=seen: len(clock.views) > s, clock)
                    continue
                playable = {a.tile for a in view.legal}
                index = next(i for i, t in enumerate(view.hand) if t in playable)
                seen_views = len(clock.views)
                started = time.perf_counter()
                # What a driver does with a key read from the terminal (pilot.press would
                # add its own waits for the process to go idle).
                press(app, str(index + 1))
                try:
                    await until(lambda s=seen_views: len(clock.views) > s, clock, limit=10.0)
                except TimeoutError:
                    lost.append(index)
                    continue
                arrived = clock.views[seen_views]
                await until(lambda a=arrived: bool(clock.writes) and clock.writes[-1] > a, clock)
                frame = next(w for w in clock.writes if w > arrived)
                latencies.append(frame - started)
                arrivals.append(arrived - started)
                if trace and memory is None and len(latencies) == 20:
                    gc.collect()
                    memory = (tracemalloc.get_traced_memory()[0] - base_traced,
                              rss_kib() - base_rss)
            cpu = Cpu(time.process_time() - cpu_from, len(latencies),
                      clock.updates - updates_from, len(clock.writes) - frames_from)
    if trace:
        tracemalloc.stop()
    if lost:
        print(f"{len(lost)} key presses got no answer within 10 s")
    if arrivals and not trace:
        print(f"of which key -> the lobby's new view in the app: p50 "
              f"{statistics.median(arrivals) * 1000:.1f} ms")
    return latencies, memory, cpu


async def run(plays: int, size: tuple[int, int], bot_delay: float, patched: bool) -> None:
    if patched:
        # Textual as the server runs it (server/patches.py, teardown.py).
        from server import patches, teardown

        patches.install()
        teardown.install()
    latencies, _, cpu = await measure(plays, size, trace=False, bot_delay=bot_delay)
    _, memory, _ = await measure(20, size, trace=True)
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(f"screen {size[0]}x{size[1]}, {len(latencies)} tiles played by key")
    print(f"key -> screen updated: p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
          f"max {latencies[-1] * 1000:.1f} ms")
    ms = cpu.seconds * 1000
    print(f"CPU (this process: app, lobby, computers, bench): {cpu.seconds:.2f} s for "
          f"{cpu.plays} tiles played, {cpu.updates} table updates taken, {cpu.frames} frames: "
          f"{ms / max(cpu.plays, 1):.2f} ms per tile played, "
          f"{ms / max(cpu.updates, 1):.2f} ms per table update, "
          f"{ms / max(cpu.frames, 1):.2f} ms per frame")
    if memory is not None:
        print(f"one running app at a table: {memory[0] / 1e6:.2f} MB allocated (tracemalloc), "
              f"RSS +{memory[1] / 1024:.1f} MiB (with tracemalloc's own overhead)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plays", type=int, default=300)
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--bot-delay", type=float, default=0.02,
                        help="seconds the computers think (0: their moves share frames)")
    parser.add_argument("--no-patches", action="store_true",
                        help="plain Textual, without the server's adjustments")
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    asyncio.run(run(args.plays, (width, height), args.bot_delay, not args.no_patches))


if __name__ == "__main__":
    main()
