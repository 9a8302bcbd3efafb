"""`moon-server --workers N`: N worker processes on one SSH port, watched and restarted.

One Python process is one core; a club that outgrows it runs several workers, each a
whole `MoonServer` on the same port (SO_REUSEPORT: the kernel spreads the connections).
The supervisor does only what one of them cannot:

- it holds the data folder's lock, makes the host key and opens the database once
  before any worker starts (workers racing to make them would each make their own);
- it reserves the port (a bound socket, never listening: with port 0 it picks the one
  every worker takes);
- it starts the bus (`bus_server.py`) when no `--redis` URL is given, starts it again if
  it ends (killed, or out of memory: the workers find it empty on the same socket and
  rebuild what they own), and stops it last;
- it restarts a worker that ended, and the bus, after a back-off that doubles while they
  keep dying young (logged);
- SIGTERM and SIGINT go on to every worker, which stop as one server does (the shutdown
  notice, or `restart_countdown_seconds`); an operator's restart in one worker (exit
  status 75) stops the others and ends the supervisor with 75 too, for systemd.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, replace
from multiprocessing.process import BaseProcess

from .bus import WorkerPlace, where
from .bus_server import BusServer
from .cli import RESTART_EXIT_STATUS, _install_uvloop, serve
from .config import ServerConfig
from .datafolder import CannotStart, DataFolderLock
from .service import load_or_create_host_key
from .store import Database

log = logging.getLogger("server.supervisor")

FIRST_BACKOFF_SECONDS = 1.0
LAST_BACKOFF_SECONDS = 60.0
STEADY_SECONDS = 60.0
"""A worker that ran this long died of something new: its restart waits the first delay."""
STOP_MARGIN_SECONDS = 30.0
"""Workers still running this long after their countdown and notice are killed."""
ORPHAN_CHECK_SECONDS = 1.0
BUS_CHECK_SECONDS = 1.0
"""How often the supervisor looks whether its own bus still runs."""
LOG_FORMAT = "%(asctime)s %(levelname)s {worker}%(name)s: %(message)s"


def reserve_port(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port` with SO_REUSEPORT and never listening: it holds the
    port (the one the system chose for port 0) for the workers, and takes no connection
    (the kernel hands connections only to listening sockets)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    holder = socket.socket(family, socket.SOCK_STREAM)
    try:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind((host, port))
    except BaseException:
        holder.close()
        raise
    return holder


def run_worker(config: ServerConfig, place: WorkerPlace, log_level: str) -> None:
    """A worker process's whole life (started by `multiprocessing`, spawn). In a process
    group of its own: a signal to the supervisor's group (Ctrl+C, `timeout`) reaches it
    once, passed on by the supervisor, not twice (a second SIGTERM stops at once)."""
    os.setpgrp()
    threading.Thread(target=_orphaned, args=(os.getppid(),), name="moon-orphan",
                     daemon=True).start()
    logging.basicConfig(level=getattr(logging, log_level),
                        format=LOG_FORMAT.format(worker=f"{place.name} "))
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    _install_uvloop()
    status = asyncio.run(serve(config, place))
    if status == RESTART_EXIT_STATUS:
        raise SystemExit(status)


def _orphaned(parent: int) -> None:
    """A worker whose supervisor died (kill -9) stops as on Ctrl+C: nothing would restart
    it, stop it or its siblings, and it would hold the port for a new supervisor."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGINT)


@dataclass
class _Worker:
    place: WorkerPlace
    process: BaseProcess | None = None
    started: float = 0.0
    backoff: float = FIRST_BACKOFF_SECONDS


class Supervisor:
    """Starts the workers of `config.workers`, restarts them, stops them on a signal."""

    def __init__(self, config: ServerConfig, log_level: str = "INFO") -> None:
        self.config = config
        self.log_level = log_level
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._stopping = False
        self._status = 0
        self._done = asyncio.Event()
        self._restarts: set[asyncio.TimerHandle] = set()

    async def run(self) -> int:
        """Until a signal, or an operator's restart: the exit status."""
        config = self.config
        lock = DataFolderLock(config.data)
        lock.acquire()
        bus: BusServer | None = None
        holder: socket.socket | None = None
        watch: asyncio.Task[None] | None = None
        try:
            load_or_create_host_key(config.host_key_path)
            db = Database(config.database_path)
            await db.open()  # made and checked once, before workers share it
            await db.close()
            holder = reserve_port(config.host, config.port)
            port = holder.getsockname()[1]
            url = config.redis
            if not url:
                bus = BusServer(config.data)
                bus.start()
                url = bus.url
            log.info("moon-server: %d workers on %s port %d, the bus at %s",
                     config.workers, config.host, port, where(url))
            worker_config = replace(config, port=port, redis=url)
            self._workers = [_Worker(WorkerPlace(index, url)) for index in
                             range(config.workers)]
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, self._signalled, signum)
            for worker in self._workers:
                self._start(worker, worker_config)
            if bus is not None:
                watch = asyncio.create_task(self._keep(bus), name="moon-bus-watch")
            await self._done.wait()
        finally:
            for handle in self._restarts:
                handle.cancel()
            if watch is not None:
                watch.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watch
            await self._stop_all()
            if bus is not None:
                bus.stop()
            if holder is not None:
                holder.close()
            lock.release()
        log.info("moon-server: every worker stopped")
        return self._status

    async def _keep(self, bus: BusServer) -> None:
        """Start the club's own bus again when it ends, after the workers' back-off. They
        try again every second meanwhile, and find it empty: nothing it held is lost
        (the journal is the truth; each worker shares its part of the club again)."""
        started, backoff = time.monotonic(), FIRST_BACKOFF_SECONDS
        while True:
            await asyncio.sleep(BUS_CHECK_SECONDS)
            status = bus.ended()
            if status is None or self._stopping:
                continue
            ran = time.monotonic() - started
            if ran >= STEADY_SECONDS:
                backoff = FIRST_BACKOFF_SECONDS
            log.error("bus: valkey-server (pid %s) ended with status %s after %.0f s: "
                      "started again in %g s", bus.pid, status, ran, backoff)
            while not self._stopping:
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, LAST_BACKOFF_SECONDS)
                try:
                    # Here, not in a thread: a stop meanwhile must find it started or not.
                    bus.start()  # a few tens of milliseconds (it waits for its answer)
                    break
                except CannotStart as error:
                    log.error("bus: %s: tried again in %g s", error, backoff)
            started = time.monotonic()

    def _start(self, worker: _Worker, config: ServerConfig) -> None:
        if self._stopping:
            return
        process = self._context.Process(
            target=run_worker, args=(config, worker.place, self.log_level),
            name=f"moon-{worker.place.name}")
        process.start()
        worker.process, worker.started = process, time.monotonic()
        log.info("worker %d started (pid %s)", worker.place.index, process.pid)
        asyncio.get_running_loop().add_reader(
            process.sentinel, self._ended, worker, config)

    def _ended(self, worker: _Worker, config: ServerConfig) -> None:
        process = worker.process
        assert process is not None
        loop = asyncio.get_running_loop()
        loop.remove_reader(process.sentinel)
        process.join()
        worker.process = None
        if self._stopping:
            if not self._alive():
                self._done.set()
            return
        if process.exitcode == RESTART_EXIT_STATUS:
            log.info("worker %d ended for an operator's restart: every worker stops",
                     worker.place.index)
            self._status = RESTART_EXIT_STATUS
            self._stop_workers(signal.SIGINT)
            return
        ran = time.monotonic() - worker.started
        if ran >= STEADY_SECONDS:
            worker.backoff = FIRST_BACKOFF_SECONDS
        delay = worker.backoff
        worker.backoff = min(worker.backoff * 2, LAST_BACKOFF_SECONDS)
        log.error("worker %d (pid %s) ended with status %s after %.0f s: started again "
                  "in %g s", worker.place.index, process.pid, process.exitcode, ran, delay)
        handle = loop.call_later(delay, self._restart, worker, config)
        self._restarts.add(handle)

    def _restart(self, worker: _Worker, config: ServerConfig) -> None:
        self._restarts = {h for h in self._restarts if not h.cancelled() and
                          h.when() > asyncio.get_running_loop().time()}
        self._start(worker, config)

    def _alive(self) -> list[BaseProcess]:
        return [w.process for w in self._workers if w.process is not None]

    def _signalled(self, signum: int) -> None:
        log.info("moon-server: %s, passed on to every worker", signal.Signals(signum).name)
        self._stop_workers(signum)

    def _stop_workers(self, signum: int) -> None:
        self._stopping = True
        for handle in self._restarts:
            handle.cancel()
        alive = self._alive()
        for process in alive:
            if process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signum)
        if not alive:
            self._done.set()

    async def _stop_all(self) -> None:
        """Every worker ended: asked with SIGTERM if still running, killed if they
        outlast their countdown, their notice and a margin."""
        self._stopping = True
        alive = self._alive()
        if not alive:
            return
        if not self._done.is_set():
            self._stop_workers(signal.SIGTERM)
        patience = (self.config.restart_countdown_seconds
                    + self.config.shutdown_notice_seconds + STOP_MARGIN_SECONDS)
        deadline = time.monotonic() + patience
        for process in alive:
            remaining = max(0.0, deadline - time.monotonic())
            await asyncio.get_running_loop().run_in_executor(None, process.join, remaining)
            if process.exitcode is None:
                log.error("worker pid %s did not stop in %g s: killed", process.pid, patience)
                process.kill()
                process.join()
