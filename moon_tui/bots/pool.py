"""Computer players that think in other processes, so a slow decision never holds up the
server's event loop (an expert decision in a thread took the loop from ~895 wake-ups a
second to ~120: the GIL).

`BotPool.choose(view, level, budget=...)` is awaited once per decision. A seat's view and the
action are plain picklable values; the table stays the only writer of the game. A worker
that dies or overruns its time is killed and replaced, and that one decision falls back to
the heuristic (with a log line), so a game never stalls.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Final, TypeVar

from ..rules import Action, SeatView
from .base import Bot
from .expert import DEFAULT_BUDGET, ExpertBot
from .heuristic import HeuristicBot
from .registry import ALIASES, make_bot

log = logging.getLogger(__name__)

#: Levels that decide in well under a millisecond: not worth a trip to another process.
INSTANT_LEVELS: Final = frozenset({"random", "easy", "normal"})
#: Time a worker gets beyond the decision's budget before it counts as hung.
GRACE: Final = 2.0
#: Time a fresh worker gets to start (import the bots: about 0.3 s, more on a busy machine)
#: before it counts as dead; the decision's own clock starts once it is ready.
STARTUP_WAIT: Final = 30.0
READY: Final = "ready"
#: Seconds a worker gets to exit after being asked to, before it is killed.
EXIT_WAIT: Final = 2.0
#: A decision's budget counts from when the table asked: one that waited for a free
#: worker thinks for what is left, but never less than this share of it. With more
#: experts thinking at once than there are workers, their tables slow down less (the
#: experts play a little weaker) instead of the waits adding up.
LEAST_BUDGET_SHARE: Final = 0.25


@dataclass(frozen=True, slots=True)
class Request:
    """One decision to take: the seat's view, the level and its limits, the random seed."""

    view: SeatView
    level: str
    budget: float | None = None
    """Seconds for the decision (the expert's default when None)."""
    samples: int | None = None
    """A fixed number of expert samples, no time limit (reproducible: tests, arenas)."""
    seed: int | None = None


_bots: dict[tuple[str, int | None], Bot] = {}


def decide(request: Request) -> Action:
    """The decision of `request`, by a bot kept for its level (the default worker job).

    A bot is kept between requests: the expert reuses its solvers' tables within a hand.
    """
    level = ALIASES.get(request.level, request.level)
    key = (level, request.samples)
    bot = _bots.get(key)
    if bot is None:
        if level == "expert" and request.samples is not None:
            bot = ExpertBot(max_samples=request.samples, fixed_samples=True)
        else:
            bot = make_bot(level, time_budget=request.budget)
        bot = _bots[key] = bot
    rng = random.Random(request.seed)
    if isinstance(bot, ExpertBot) and request.samples is None:
        # Each request's own budget (see `BotPool.choose`), on the bot kept for its level.
        budget = DEFAULT_BUDGET if request.budget is None else request.budget
        return bot.choose(request.view, rng, budget=budget)
    return bot.choose(request.view, rng)


Job = Callable[[Request], Action]
T = TypeVar("T")
R = TypeVar("R")
Task = Callable[[], T]
"""Spare work for a worker (`BotPool.run_spare`): a picklable callable, e.g. a frozen
dataclass of a module the worker can import."""

#: What a worker process runs (`python -c`): it takes the server's `sys.path` and its job
#: over the pipe, then serves. A fresh interpreter, not a fork of the server, so it holds
#: none of the server's sockets, threads or signal handlers; and not `multiprocessing`'s
#: "spawn", which re-imports the server's main module in every worker (the whole server
#: and Textual: 63 MB and 0.36 s each, against 30 MB and 0.11 s for the bots alone).
_BOOT: Final = (
    "import sys\n"
    "from multiprocessing.connection import Connection\n"
    "conn = Connection(int(sys.argv[1]))\n"
    "sys.path[:] = conn.recv()\n"
    "from moon_tui.bots.pool import serve\n"
    "serve(conn)\n"
)
#: Workers run at a lower priority: on a busy machine the server's event loop (every
#: player's keys and screens) comes first, and an expert takes fewer samples in its budget.
NICENESS: Final = 10

LogLine = tuple[int, str, str]
"""A worker's log record as sent back: level, logger name, message."""


class _Collect(logging.Handler):
    """Keeps a worker's log records until they go back with the answer (the server logs
    them where it logs, and `moon` never has them written over its screen)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[LogLine] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.levelno, record.name, record.getMessage()))


def serve(conn: Connection) -> None:
    """A worker's life: answer requests until told to stop (None) or the pool goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    try:
        os.nice(NICENESS)
    except OSError:
        pass
    collect = _Collect()
    root = logging.getLogger()
    root.handlers[:] = [collect]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    try:
        job: Job = conn.recv()
        conn.send(READY)
    except (EOFError, OSError):
        return
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        try:
            # A `Request` is a decision; anything else is a `Task` (`BotPool.run_spare`).
            reply: object = job(request) if isinstance(request, Request) else request()
        except Exception as exc:  # the pool falls back; the worker lives on
            reply = f"{type(exc).__name__}: {exc}"
        lines, collect.lines = collect.lines, []
        try:
            conn.send((reply, lines))
        except OSError:  # the server went away mid-decision (killed): so does its worker
            return


class WorkerLost(RuntimeError):
    """A worker died, hung or failed during a decision."""


class _Worker:
    """One process and the pipe to it."""

    def __init__(self, job: Job) -> None:
        self.conn, child = multiprocessing.Pipe()
        try:
            # Starting takes under 5 ms of the caller's time (the imports happen in the
            # worker, ~0.1 s): fine on the event loop.
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(child.fileno())],
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL)
        except BaseException:
            self.conn.close()
            raise
        finally:
            child.close()
        self.conn.send(list(sys.path))
        self.conn.send(job)
        self.ready = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def is_alive(self) -> bool:
        return self.process.poll() is None

    def _wait_ready(self) -> None:
        if not self.conn.poll(STARTUP_WAIT):
            raise WorkerLost(f"not started in {STARTUP_WAIT:.0f} s")
        if self.conn.recv() != READY:
            raise WorkerLost("a worker that did not say it was ready")
        self.ready = True

    def ask(self, request: Request, timeout: float) -> Action:
        """Send a request and wait for the answer (in a thread: this blocks)."""
        reply = self.run(request, timeout)
        if not isinstance(reply, Action):
            raise WorkerLost(f"not an action: {reply!r}")
        return reply

    def run(self, request: object, timeout: float) -> object:
        """Send a request or a task and wait for its result (in a thread: this blocks)."""
        try:
            if not self.ready:
                self._wait_ready()
            self.conn.send(request)
            if not self.conn.poll(timeout):
                raise WorkerLost(f"no answer in {timeout:.1f} s")
            reply, lines = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise WorkerLost(f"the worker died ({type(exc).__name__})") from exc
        for level, name, message in lines:
            logging.getLogger(name).log(level, "%s (bot worker %d)", message, self.pid)
        if isinstance(reply, str):
            raise WorkerLost(reply)
        return reply

    def kill(self) -> None:
        if self.is_alive():
            self.process.kill()
        self.process.wait()
        self.conn.close()

    def stop(self) -> None:
        """Ask the worker to exit, kill it if it does not."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        try:
            self.process.wait(EXIT_WAIT)
        except subprocess.TimeoutExpired:
            pass
        self.kill()


class BotPool:
    """Up to `size` worker processes (default: one per core) taking decisions for any table.

    Workers start when a decision needs one and none is free (a club that never seats an
    expert never starts one), and live until `close()`.
    `job` is what a worker runs per request (`decide`; tests inject one that hangs).
    `grace` is the time beyond the budget after which a worker counts as hung.
    Close with `await pool.close()` (or `async with BotPool() as pool`).
    """

    def __init__(self, size: int | None = None, *, job: Job = decide,
                 grace: float = GRACE) -> None:
        self.size = size if size is not None else default_size()
        if self.size < 1:
            raise ValueError(f"a bot pool needs at least one worker, not {self.size}")
        self.job = job
        self.grace = grace
        self._workers: list[_Worker] = []
        self._idle: asyncio.Queue[_Worker] | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._busy: set[_Worker] = set()
        self._closed = False
        self.fallbacks = 0
        """Decisions the heuristic took because a worker failed."""
        self.decisions = 0
        """Decisions asked of the workers."""
        self._deciding = 0
        """Decisions waiting for a worker: spare work (`run_spare`) waits behind them."""
        self.spare_runs = 0
        """Spare tasks run (`run_spare`)."""
        self._spare_lock: asyncio.Lock | None = None
        self._freed: asyncio.Event | None = None
        self.longest_wait = 0.0
        """The longest a decision waited for a free worker, in seconds (every worker was
        busy: more experts think at once than there are workers)."""

    async def __aenter__(self) -> BotPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def pids(self) -> list[int]:
        """The workers' process ids (live workers only)."""
        return [w.pid for w in self._workers if w.is_alive()]

    def busy_pids(self) -> list[int]:
        """The process ids of workers taking a decision now."""
        return [w.pid for w in self._busy]

    def _queue(self) -> asyncio.Queue[_Worker]:
        # Made on first use, inside the event loop that will use it.
        if self._idle is None:
            self._idle = asyncio.Queue()
        return self._idle

    async def _acquire(self) -> _Worker:
        """A free worker: a new one while there are fewer than `size`, else the first
        to come free."""
        idle = self._queue()
        if idle.empty() and len(self._workers) < self.size:
            worker = _Worker(self.job)
            self._workers.append(worker)
            return worker
        return await idle.get()

    async def choose(self, view: SeatView, level: str, *, budget: float | None = None,
                     samples: int | None = None, seed: int | None = None) -> Action:
        """The bot's action for `view` (its seat's turn). Instant levels answer in this
        process; the others in a worker, or from the heuristic if the worker fails."""
        if self._closed:
            raise RuntimeError("the bot pool is closed")
        if ALIASES.get(level, level) in INSTANT_LEVELS:
            return decide(Request(view, level, budget, samples, seed))
        self.decisions += 1
        asked = time.monotonic()
        self._deciding += 1
        try:
            worker = await self._acquire()
        except OSError as exc:  # no process to be had (out of memory, of pids)
            return self._fall_back(view, level, seed, f"no worker could start: {exc}")
        finally:
            self._deciding -= 1
        waited = time.monotonic() - asked
        self.longest_wait = max(self.longest_wait, waited)
        if budget is not None and samples is None:
            budget = max(budget * LEAST_BUDGET_SHARE, budget - waited)
        request = Request(view, level, budget, samples, seed)
        timeout = (budget if budget is not None else 1.0) + self.grace
        if samples is not None:
            timeout = max(timeout, 60.0)  # no time limit on the search itself
        try:
            action = await self._in_worker(worker, lambda w: w.ask(request, timeout))
        except WorkerLost as exc:
            return self._fall_back(view, level, seed, str(exc))
        return action

    def _release(self, worker: _Worker) -> None:
        self._busy.discard(worker)
        if not self._closed and worker in self._workers:
            self._queue().put_nowait(worker)
            if self._freed is not None:
                self._freed.set()

    async def run_spare(self, task: Task[T], timeout: float) -> T:
        """`task()` in a worker, when the tables' computer players leave one spare.

        Work nobody waits on at a table (the analysis of a saved game) runs one task at a
        time, and only once no decision is waiting for a worker and one is free (or may
        start): a decision then waits at most for the task in hand, so keep tasks short.
        Raises `WorkerLost` when the worker died, failed or overran `timeout` seconds.
        """
        if self._spare_lock is None:
            self._spare_lock = asyncio.Lock()
            self._freed = asyncio.Event()
        assert self._freed is not None
        async with self._spare_lock:
            while True:
                if self._closed:
                    raise RuntimeError("the bot pool is closed")
                idle = self._queue()
                if not self._deciding and (not idle.empty() or len(self._workers) < self.size):
                    break
                self._freed.clear()
                await self._freed.wait()
            worker = await self._acquire()  # at once: one is idle, or may start
            self.spare_runs += 1
            return await self._run_on(worker, task, timeout)

    async def run_task(self, task: Task[T], timeout: float) -> T:
        """`task()` in a worker, in turn with the decisions (a player waits on it: a
        claim's proof). Raises `WorkerLost` when the worker died, failed or overran
        `timeout` seconds, `OSError` when no worker could start."""
        if self._closed:
            raise RuntimeError("the bot pool is closed")
        self._deciding += 1
        try:
            worker = await self._acquire()
        finally:
            self._deciding -= 1
        return await self._run_on(worker, task, timeout)

    async def _run_on(self, worker: _Worker, task: Task[T], timeout: float) -> T:
        result = await self._in_worker(worker, lambda w: w.run(task, timeout))
        return result  # type: ignore[return-value]  # what `task` returns

    async def _in_worker(self, worker: _Worker, call: Callable[[_Worker], R]) -> R:
        """`call(worker)` on a waiting thread, `worker` busy meanwhile. A worker that
        failed, overran or was left mid-answer (cancelled: its answer would come late,
        out of step) is replaced; the error goes on."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(self.size, thread_name_prefix="moon-bot-wait")
        self._busy.add(worker)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._threads, call, worker)
        except BaseException:
            self._busy.discard(worker)
            worker = await self._replace(worker)
            raise
        finally:
            self._release(worker)

    def _fall_back(self, view: SeatView, level: str, seed: int | None, why: str) -> Action:
        self.fallbacks += 1
        log.warning("bot worker failed on seat %s (%s): %s; the heuristic decides",
                    view.seat, level, why)
        return HeuristicBot().choose(view, random.Random(seed))

    async def _replace(self, worker: _Worker) -> _Worker:
        """Kill `worker` and start another in its place (none once the pool is closed,
        or if no process can start: the next decision tries again)."""
        await asyncio.to_thread(worker.kill)
        index = self._workers.index(worker) if worker in self._workers else -1
        if self._closed or index < 0:
            return worker
        try:
            fresh = _Worker(self.job)
        except OSError:
            log.exception("no bot worker could start in place of a lost one")
            del self._workers[index]
            return worker
        self._workers[index] = fresh
        return fresh

    async def close(self) -> None:
        """Stop every worker (killing those that do not stop) and wait for them."""
        if self._closed:
            return
        self._closed = True
        workers = list(self._workers)
        await asyncio.gather(*(asyncio.to_thread(w.stop) for w in workers))
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)


def default_size() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


__all__ = ["BotPool", "Request", "Task", "WorkerLost", "decide", "default_size"]
