"""Benchmark: many tables of fast computer players in one lobby, driven through messages.

Prints
- hands per second for the whole lobby (and games finished),
- the fan-out delay: from a table's state change to the event being on every subscriber's
  queue (p50/p99/max), timed from the shell taking the core's first `Send` of a pass
  (`Table._perform`) to letting them out after the journal write (`Table._tell`),
- the CPU time per hand (the figure that does not depend on what else the machine runs),
- the command round trip for scripted humans: from `send(Act)` to reading the update that
  shows the move (the table's inbox, the engine, the fan-out and the reader's wake-up),
- whether any task is left once the lobby has shut down.

With `--journal sqlite` every table writes each change to the server's SQLite journal
(`server/journal.py`, a file in a temporary folder) before telling anyone, as
`moon-server` does: each commit waits for the disk (fsync), unless `--synchronous normal`
(then a process crash loses nothing, a power cut may lose the last commits).

    .venv/bin/python bench/lobby.py --tables 100 --seconds 10 --spectators 2
    .venv/bin/python bench/lobby.py --tables 100 --seconds 10 --journal sqlite

`--link loopback` runs every table over the loopback link, each message in and out of a
table through the wire format (`moon_tui/lobby/links.py`): the difference with the
default `--link in-process` is what the codec costs a move.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from moon_tui.lobby import (
    Act,
    AddBot,
    CreateTable,
    Lobby,
    LobbyConfig,
    PlayerHandle,
    Rematch,
    Spectate,
    StartGame,
    TableUpdate,
)
from moon_tui.lobby.effects import Effect, Send
from moon_tui.lobby.journal import MemoryJournal, TableJournal
from moon_tui.lobby.links import LINKS
from moon_tui.lobby.messages import GameFinished
from moon_tui.lobby.table import Table
from moon_tui.rules import Rules, SeatView
from server.journal import SqliteJournal
from server.store import Database


def time_fanout(samples: list[float]) -> None:
    """Time each state change's fan-out into `samples`: from the shell taking a pass's
    first `Send` from the core to the `_tell` that lets the pass out once the journal has
    it (the shell holds what the core sends until then)."""
    perform, tell = Table._perform, Table._tell
    started: dict[int, float] = {}

    def timed_perform(self: Table, effects: list[Effect]) -> None:
        if any(isinstance(e, Send) for e in effects):
            started.setdefault(id(self), time.perf_counter())
        perform(self, effects)

    def timed_tell(self: Table) -> None:
        tell(self)
        began = started.pop(id(self), None)
        if began is not None:
            samples.append(time.perf_counter() - began)

    Table._perform = timed_perform  # type: ignore[method-assign]
    Table._tell = timed_tell  # type: ignore[method-assign]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def drain(handle: PlayerHandle) -> None:
    """A subscriber that reads as fast as it can and does nothing else."""
    async for _ in handle:
        pass


async def host(handle: PlayerHandle, table_id: str, stop: Callable[[], bool]) -> None:
    """A watching owner: reads everything, starts the next game when one ends."""
    async for event in handle:
        if isinstance(event, GameFinished) and not stop():
            handle.send(StartGame(table_id))


async def human(handle: PlayerHandle, table_id: str, rtts: list[float],
                stop: Callable[[], bool]) -> None:
    """Plays seat 0 (first legal action) and times each move from send to seeing it done."""
    sent_at: float | None = None
    sent_view: tuple[int, int, int] | None = None
    async for event in handle:
        if isinstance(event, GameFinished):
            handle.send(Rematch(table_id))
            continue
        if not isinstance(event, TableUpdate) or event.view is None:
            continue
        view = event.view
        mark = progress(view)
        if sent_at is not None and sent_view is not None and mark != sent_view:
            rtts.append(time.perf_counter() - sent_at)
            sent_at = None
        if view.my_turn and view.legal and sent_at is None and not stop():
            sent_view = mark
            sent_at = time.perf_counter()
            handle.send(Act(table_id, view.legal[0]))


def progress(view: SeatView) -> tuple[int, int, int]:
    return (view.hand_number, len(view.bids) + (view.trump is not None)
            + (view.discard is not None), len(view.played_tiles()))


@contextlib.asynccontextmanager
async def journal_of(kind: str, synchronous: str) -> AsyncIterator[TableJournal]:
    """The journal the tables write to: in memory, or the server's SQLite file."""
    if kind == "memory":
        yield MemoryJournal()
        return
    with tempfile.TemporaryDirectory() as folder:
        db = Database(Path(folder) / "moon.sqlite3")
        await db.open()
        await db.run(lambda: db.connection().execute(f"PRAGMA synchronous={synchronous}"))
        journal = SqliteJournal(db)
        try:
            yield journal
        finally:
            print(f"journal: {journal.commits} commits of the SQLite file "
                  f"(synchronous={synchronous})")
            await db.close()


async def run(tables: int, seconds: float, spectators: int, humans: int, level: str,
              journal: TableJournal, link: str = "in-process") -> None:
    config = LobbyConfig(bot_delay=0, trick_pause=0, hand_result_seconds=0, hand_pause=0,
                         bot_time_budget=0.05,
                         queue_size=max(256, 4 * tables))
    rtts: list[float] = []
    fanout: list[float] = []
    time_fanout(fanout)
    subscribers = 0
    stopping = False
    async with asyncio.TaskGroup() as tg:
        lobby = Lobby(config, seed=1, journal=journal, link=LINKS[link])
        async with lobby:
            owners = []
            for i in range(tables):
                owner = await lobby.connect(f"owner{i}")
                owners.append(owner)
                owner.send(CreateTable(f"bench {i}", Rules.make(target=21)))
            await asyncio.sleep(0.2)
            table_ids = [t.table_id for t in sorted(lobby.tables(),
                                                    key=lambda t: int(t.name.split()[1]))]
            assert len(table_ids) == tables, "every table was created"
            for i, (owner, table_id) in enumerate(zip(owners, table_ids, strict=True)):
                plays = i < humans
                if plays:
                    tg.create_task(human(owner, table_id, rtts, lambda: stopping))
                else:
                    owner.send(Spectate(table_id))
                    tg.create_task(host(owner, table_id, lambda: stopping))
                subscribers += 1
                for seat in range(1 if plays else 0, 3):
                    owner.send(AddBot(table_id, seat, level))  # type: ignore[arg-type]
                for k in range(spectators - 1):
                    subscribers += 1
                    watcher = await lobby.connect(f"watch{i}.{k}")
                    watcher.send(Spectate(table_id))
                    tg.create_task(drain(watcher))
            await asyncio.sleep(0.2)
            fanout.clear()
            for owner, table_id in zip(owners, table_ids, strict=True):
                owner.send(StartGame(table_id))
            start_hands, start_games = lobby.stats.hands, lobby.stats.games
            started = time.perf_counter()
            cpu_started = time.process_time()
            await asyncio.sleep(seconds)
            elapsed = time.perf_counter() - started
            cpu = time.process_time() - cpu_started
            hands = lobby.stats.hands - start_hands
            games = lobby.stats.games - start_games
            stopping = True
    left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    print(f"tables {tables}, subscribers {subscribers}, bots {level}, link {link}, "
          f"{elapsed:.1f} s")
    print(f"hands/s (whole lobby): {hands / elapsed:.1f}  ({hands} hands, {games} games)")
    print(f"CPU: {cpu / elapsed:.0%} of one core; {cpu / max(hands, 1) * 1e3:.1f} ms of CPU "
          f"per hand, so about {hands / cpu if cpu else 0:.0f} hands/s per busy core")
    print(f"fan-out, state change -> on every subscriber's queue ({len(fanout)} changes): "
          f"p50 {percentile(fanout, 0.5) * 1e6:.0f} us, p99 {percentile(fanout, 0.99) * 1e6:.0f}"
          f" us, max {max(fanout, default=0) * 1e6:.0f} us")
    if rtts:
        print(f"human move round trip ({len(rtts)} moves): p50 "
              f"{percentile(rtts, 0.5) * 1e3:.2f} ms, p99 {percentile(rtts, 0.99) * 1e3:.2f} ms, "
              f"mean {statistics.fmean(rtts) * 1e3:.2f} ms")
    print(f"tasks left after shutdown: {len(left)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--spectators", type=int, default=1,
                        help="subscribers per table, the owner included")
    parser.add_argument("--humans", type=int, default=10,
                        help="tables where a scripted human plays seat 0")
    parser.add_argument("--level", default="random", choices=("random", "easy", "normal"))
    parser.add_argument("--uvloop", action="store_true", help="run on uvloop")
    parser.add_argument("--journal", default="memory", choices=("memory", "sqlite"))
    parser.add_argument("--synchronous", default="full", choices=("normal", "full"))
    parser.add_argument("--link", default="in-process", choices=sorted(LINKS))
    args = parser.parse_args()

    async def with_journal() -> None:
        async with journal_of(args.journal, args.synchronous) as journal:
            await run(args.tables, args.seconds, args.spectators, args.humans, args.level,
                      journal, args.link)

    coro = with_journal()
    if args.uvloop:
        import uvloop
        uvloop.run(coro)
    else:
        asyncio.run(coro)


if __name__ == "__main__":
    main()
