"""The running server: one lobby, one database, one SSH listener, many game sessions.

`async with MoonServer(config) as server:` starts everything; leaving the block (or
`stop()`) tells the players, saves unfinished games through the lobby, and closes every
game session and connection before the database.

`MoonServer` only starts, stops and wires its parts, each with one job:

- `auth.py` (per connection): who may log in, under which name;
- `door.py`: each channel from its opening to the first screen (refusals, banner, start
  slots), then `game_session.py` runs the player's app until goodbye;
- `registry.py`: the game sessions running now, and the idle rule;
- `bans.py`: an operator's ban, made to last;
- `restart.py`: a planned restart's countdown, then `stop()`;
- the lobby (`moon_tui.lobby`), the database (`store.py`), the garbage-collector
  policy (`memory.py`), and the watch on the event loop (`load.py`, `watchdog.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import socket
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import asyncssh
from textual.app import App

from moon_tui.bots.analysis import Analyst
from moon_tui.lobby import (
    CancelRestart,
    Lobby,
    LobbyConfig,
    Refusal,
    Restart,
    RestartNotice,
)
from moon_tui.lobby.journal import TableJournal
from moon_tui.lobby.peers import SharedRates
from moon_tui.lobby.refusals import Refused
from moon_tui.ui.door_words import RESTART_MESSAGE, SHUTDOWN_MESSAGE

from . import patches, teardown
from .analyses import DatabaseAnalyses
from .archive import ClubGames
from .auth import AuthContext
from .bans import Bans
from .channel import GameSSHServer
from .club import ServerClub
from .config import ServerConfig
from .connlog import ConnectionLog
from .dashboard import Dashboard
from .datafolder import DataFolderLock
from .door import Door
from .driver import ASKS, SSHDriver
from .game_session import AppFactory
from .identity import Player, fingerprint
from .journal import SqliteJournal
from .limits import Gate
from .link_codes import LinkCodes
from .load import LoadWatch
from .members import AccountKeys
from .memory import FreezePolicy
from .ratings import DatabaseRatings
from .registry import SessionRegistry
from .restart import RestartCountdown
from .store import Database, SQLiteRecordStore
from .watchdog import LoopWatchdog

if TYPE_CHECKING:
    from valkey.asyncio import Valkey

    from .bus import WorkerPlace
    from .bus_club import ClubOnBus
    from .bus_news import NewsOnBus
    from .ownership import OwnedJournal

log = logging.getLogger(__name__)

UI_MODULES = tuple(f"moon_tui.{name}" for name in (
    "app", "ui.create", "ui.dialogs", "ui.help", "ui.keys", "ui.operator", "ui.games",
    "ui.replay",
))
"""Loaded at start: a screen's first use otherwise imports it inside the shared loop."""


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key, generated (mode 0600) on the first start."""
    try:
        return asyncssh.read_private_key(path)
    except FileNotFoundError:
        pass
    key = asyncssh.generate_private_key("ssh-ed25519")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(key.export_private_key())
    log.info("generated host key %s (%s)", path, key.get_fingerprint())
    return key


def _operator_keys(config: ServerConfig) -> dict[str, dict[str, str]]:
    """Operator name -> {fingerprint: key type} of the keys the config names."""
    result: dict[str, dict[str, str]] = {}
    for name, lines in config.operators.items():
        keys: dict[str, str] = {}
        for line in lines:
            try:
                key = asyncssh.import_public_key(line)
            except (asyncssh.KeyImportError, ValueError) as error:
                raise ValueError(f"operator {name}: not an SSH public key: {line!r}") from error
            keys[fingerprint(key)] = key.get_algorithm()
        result[name] = keys
    return result


class MoonServer:
    """Owns the lobby, the database and the listener, and wires the parts together."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        app_factory: AppFactory | None = None,
        lobby_config: LobbyConfig | None = None,
        freeze_memory: bool = False,
        place: WorkerPlace | None = None,
    ) -> None:
        """`app_factory` replaces the Moon app, and the banner with it (tests run small
        apps); `lobby_config` replaces `config.lobby_config()` (tests make bots instant).

        `freeze_memory` turns on the garbage-collector policy of `memory.py` (the CLI and
        the benchmark do; it is process-wide, so embedding code chooses).

        `place` makes it one worker of a club on a bus (`bus.py`, `supervisor.py`).
        """
        self.config = config
        self.place = place
        self.bus: Valkey | None = None
        """The bus's client, while a worker on one runs."""
        self.owned: OwnedJournal | None = None
        """A worker's tables: their leases on the bus and their epochs."""
        self.club_bus: ClubOnBus | None = None
        """A worker's part of the club on the bus: its tables' links, its shares."""
        self.club_news: NewsOnBus | None = None
        """What a worker tells the club's others, and does with what they tell."""
        self._bus_reader: Valkey | None = None
        self._bus_writer: Valkey | None = None
        self._lobby_config = lobby_config or config.lobby_config()
        self._app_factory = app_factory
        self.db = Database(config.database_path)
        self.records = SQLiteRecordStore(
            self.db,
            keep=config.limits.records_kept_in_memory,
            retry_seconds=config.limits.record_retry_seconds,
        )
        self.journal = SqliteJournal(self.db)
        """Where the tables write themselves down (it says when the disk refuses)."""
        self._data_lock = DataFolderLock(config.data)
        self._locks_data = place is None or not place.supervised
        """A supervised worker's data folder is locked by its supervisor."""
        self.gate = Gate(config.limits)
        """Connections per address here, and the login budgets (on the bus for a worker:
        `bus_limits.py`)."""
        if place is not None:
            from .bus_limits import BusGate

            self.gate = BusGate(config.limits)
        self.link_codes = LinkCodes(config.limits)
        """Codes from keys dialogs (in memory: a restart forgets them). Tests set its clock."""
        self.memory = FreezePolicy() if freeze_memory else None
        self.connection_log = ConnectionLog()
        """Connections that never logged in, and sessions refused, summed up per address."""
        self.watchdog = LoopWatchdog(config.limits.loop_watchdog_seconds)
        """Logs a loop that stopped turning, from a thread (`load` cannot: it runs in it)."""
        self.load = LoadWatch(lambda text: self.db.alarm("busy", text),
                              lambda: self.db.clear_alarm("busy"), lambda: self.sessions.count,
                              strangers=self._strangers)
        """Tells the operators when the event loop falls behind (tests shorten its window)."""
        self.sessions = SessionRegistry(
            idle_minutes=config.limits.idle_minutes,
            on_ended=None if self.memory is None else lambda _: self._memory_session_ended(),
        )
        self.bans = Bans(self.db, self.sessions, config.limits)
        self.club = ServerClub(self.db, self.bans)
        """Kicks, unbans, the notice board and players' settings, made to last."""
        self.dashboard = Dashboard(self.db, self.sessions, lambda: self.lobby, self.load,
                                   config.operators)
        """What the operators' screen shows and changes."""
        self.door = Door(
            config, db=self.db, gate=self.gate, link_codes=self.link_codes,
            sessions=self.sessions, bans=self.bans, make_app=self.make_app,
            has_seat=self._has_place, connection_log=self.connection_log,
            banner_first=app_factory is None,
        )
        self._lobby: Lobby | None = None
        self.analyst: Analyst | None = None
        """Weighs saved games' decisions in the lobby's bot workers (`bots/analysis.py`)."""
        self._listener: asyncssh.SSHAcceptor | None = None
        self.connections: set[asyncssh.SSHServerConnection] = set()
        """Logged-in connections, closed by `stop()`."""
        self.restart = RestartCountdown(self._announce_restart,
                                        lambda: self.stop(restart=True))
        """A planned restart's countdown (an operator's, or SIGTERM's: `cli.py`)."""
        self.stopped = asyncio.Event()
        """Set once `stop()` has finished, whoever called it."""
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._patched = False

    @property
    def lobby(self) -> Lobby:
        if self._lobby is None:
            raise RuntimeError("the server is not running")
        return self._lobby

    @property
    def port(self) -> int:
        """The port listened on (the one chosen by the system when configured as 0)."""
        return self.door.port

    # --- start / stop ---------------------------------------------------------------

    async def __aenter__(self) -> MoonServer:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start everything, or raise having let go of what it took: `datafolder.CannotStart`
        and `internals.UnsupportedVersion` say what to do."""
        # First Textual's and asyncssh's versions (the adjustments refuse others), then
        # the data folder: a second server on it is refused before it touches anything
        # (its pid is in the message); then the database is checked.
        patches.install()
        try:
            teardown.install()
        except BaseException:
            patches.uninstall()
            raise
        self._patched = True
        try:
            if self._locks_data:
                self._data_lock.acquire()
        except BaseException:
            self._unpatch()
            raise
        try:
            await self._start()
        except BaseException:
            await self.journal.close()
            await self._close_bus()
            await self.db.close()
            self._data_lock.release()
            self._unpatch()
            raise

    def _unpatch(self) -> None:
        if self._patched:
            self._patched = False
            teardown.uninstall()
            patches.uninstall()

    async def _start(self) -> None:
        for module in UI_MODULES:  # now, not while the first player opens each dialog
            importlib.import_module(module)
        host_key = load_or_create_host_key(self.config.host_key_path)
        self._operator_keys = _operator_keys(self.config)
        operators = {name: frozenset(keys) for name, keys in self._operator_keys.items()}
        await self.db.open()
        await self.journal.check()  # a full disk: said, and new games wait until it frees
        journal: TableJournal = self.journal
        rates: SharedRates | None = None
        if self.place is not None:
            from .bus import connect
            from .ownership import OwnedJournal, TableLeases

            self.bus = await connect(self.place.bus)
            # Its own tables only, each written under its epoch (`ownership.py`).
            # The lease names this process, not only the worker's place: a worker started
            # again after a crash is not its dead predecessor (whose leases lapse).
            holder = self.place.process
            journal = self.owned = OwnedJournal(self.journal, TableLeases(self.bus, holder))
            rates = self._count_on_bus(self.bus, holder)
            self._tasks.append(asyncio.create_task(self.owned.keep(), name="moon-leases"))
            self.club_bus = await self._join_club(self.place, self.bus)
        limits = self.config.limits
        lobby = Lobby(self._lobby_config, self.records, journal=journal,
                      on_ban=self.bans.ban,
                      on_restart=self._restart_asked, restart_news=self._restart_news,
                      keeper=self.club, kept=await self.club.load(),
                      link=None if self.club_bus is None else self.club_bus.link.owner_link,
                      peers=self.club_bus, rates=rates)
        self._lobby = await lobby.__aenter__()
        if self.club_bus is not None:
            await self.club_bus.start(lobby)
            self._tasks.append(asyncio.create_task(self.club_bus.run(), name="moon-club"))
            assert self.club_news is not None
            self._tasks.append(asyncio.create_task(self.club_news.run(), name="moon-news"))
            assert self.owned is not None
            self._tasks.append(asyncio.create_task(self.owned.take_over(lobby.take_up),
                                                   name="moon-take-over"))
        self.analyst = Analyst(lobby.bots, store=DatabaseAnalyses(self.db))
        self.door.motd_from(lambda: lobby.motd)
        bans = self.bans

        def online() -> frozenset[str]:
            """This worker's sessions, and the people of the club's other workers: a
            guest name drawn here must be free on every worker (the worker serving a name
            ends its session elsewhere: two guests given one name, one was thrown out)."""
            return self.sessions.names().union(name for name, _ in lobby.elsewhere())

        context = AuthContext(
            self.config, self.db, self.gate, operators, online,
            link_codes=self.link_codes, held=self.lobby.held_names, clock=lambda: bans.clock(),
            connection_log=self.connection_log,
        )
        bans.read_guests_from(context.guest_seats)
        self._listener = await asyncssh.create_server(
            lambda: GameSSHServer(context, self._handle_channel, self.memory),
            self.config.host,
            self.config.port,
            server_host_keys=[host_key],
            acceptor=self.connections.add,  # once logged in: `stop()` closes it
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            login_timeout=limits.login_timeout_seconds,
            keepalive_interval=limits.keepalive_seconds,
            keepalive_count_max=3,
            server_version="moon",
            # The workers of one club share its port: the kernel spreads connections.
            reuse_port=self.place is not None and self.place.supervised,
        )
        sockets = self._listener.sockets
        if limits.receive_buffer_bytes > 0:
            for sock in sockets:  # each connection accepted inherits it
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, limits.receive_buffer_bytes)
        if sockets:
            self.door.listening(sockets[0].getsockname()[1])
        self._tasks.append(asyncio.create_task(self.sessions.watch_idle(), name="moon-idle"))
        self._tasks.append(asyncio.create_task(self.load.run(), name="moon-load"))
        self._tasks.append(asyncio.create_task(self.connection_log.run(), name="moon-connlog"))
        self._tasks.append(asyncio.create_task(_empty_left_screens(), name="moon-left-screens"))
        self.watchdog.start()
        if self.memory is not None:
            self.memory.start()
            self._tasks.append(asyncio.create_task(self._tick_memory(), name="moon-gc"))
        log.info(
            "moon-server listening on %s port %d (data in %s, guests %s%s)",
            self.config.host, self.port, self.config.data,
            "on" if self.config.guests else "off",
            "" if self.place is None else f", worker {self.place.index} on the bus",
        )

    async def stop(self, *, restart: bool = False) -> None:
        """Tell everyone (the server stops, or `restart`s), save unfinished games, end
        every session; safe to call twice (a second call waits for the first: a
        restart's countdown may have begun the stop)."""
        if self._stopping:
            await self.stopped.wait()
            return
        self._stopping = True
        try:
            await self._stop(restart)
        finally:
            self.stopped.set()

    async def _stop(self, restart: bool) -> None:
        reason = RESTART_MESSAGE if restart else SHUTDOWN_MESSAGE
        self.restart.forget()
        log.info("stopping: %d sessions", self.sessions.count)
        if self._listener is not None:
            self._listener.close()
        self.door.shut()
        for session in self.sessions:
            session.note_farewell(reason)
        if self._lobby is not None:
            with contextlib.suppress(Exception):
                await self._lobby.announce_stop(restart=restart)
            try:
                await asyncio.wait_for(self._lobby.__aexit__(None, None, None), 20)
            except Exception:
                log.exception("the lobby did not shut down cleanly")
        self.door.close(reason)
        # The lobby told every app why (a dialog on the full screen): let them read it.
        await self.sessions.wait_empty(self.config.shutdown_notice_seconds)
        self.sessions.end_all(reason)
        if self.door.handlers:
            await asyncio.wait(list(self.door.handlers), timeout=10)
        for conn in list(self.connections):
            conn.close()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.watchdog.stop()
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.wait_closed()
        if self.memory is not None:
            self.memory.stop()
        await self.records.close()  # records the disk refused until now: a last try
        await self.journal.close()
        await self._close_bus()
        await self.db.close()
        self._data_lock.release()
        self._unpatch()
        log.info("stopped")

    async def _join_club(self, place: WorkerPlace, bus: Valkey) -> ClubOnBus:
        """The tables' links and the club's shares over the bus (`bus_club.py`): two more
        connections, one that blocks reading the streams and one that writes to them."""
        from .bus import connect
        from .bus_club import ClubOnBus
        from .bus_link import WorkerBus
        from .bus_news import NewsOnBus

        self._bus_reader = await connect(place.bus, bounded=False)
        self._bus_writer = await connect(place.bus, bounded=False)

        def serves(name: str) -> bool:
            return self._lobby is not None and self._lobby.serves(name)

        link = WorkerBus(bus, self._bus_writer, self._bus_reader, place.name, serves, ASKS)
        self._tasks.append(asyncio.create_task(link.run(), name="moon-bus"))
        self.club_news = NewsOnBus(link, self.restart, self.db, self.load, self._strangers,
                                   lambda: self._stopping)
        return ClubOnBus(link, self._lobby_config.chat_max_chars, place.process,
                         self.club_news)

    def _count_on_bus(self, bus: Valkey, holder: str) -> SharedRates:
        """The login budgets and the lobby's rates counted over the club (`bus_limits.py`)."""
        from .bus_limits import BusGate, BusRates

        assert isinstance(self.gate, BusGate)
        self.gate.attach(bus, holder)
        self._tasks.append(asyncio.create_task(self.gate.keep(), name="moon-limits"))
        return BusRates(bus, holder)

    async def _close_bus(self) -> None:
        if self.club_bus is not None:
            await self.club_bus.close()
        for end in (self._bus_reader, self._bus_writer):
            if end is not None:
                with contextlib.suppress(Exception):
                    await end.aclose()
        self._bus_reader = self._bus_writer = None
        bus, self.bus = self.bus, None
        if self.owned is not None:  # the tables were saved: another worker may take them
            for table_id in sorted(self.owned.leases.held):
                with contextlib.suppress(Exception):
                    await self.owned.leases.give_up(table_id)
        if bus is not None:
            if self.place is not None:
                from .bus_limits import BusGate

                assert isinstance(self.gate, BusGate)
                await self.gate.close()
            with contextlib.suppress(Exception):
                await bus.aclose()

    def restart_on_signal(self, seconds: float) -> None:
        """The system asked the server to stop (SIGTERM) with a countdown of `seconds`: a
        countdown already due sooner runs on, else this one starts."""
        remaining = self.restart.remaining()
        if self._stopping or (remaining is not None and remaining <= seconds):
            return
        self.restart.start(seconds)
    # --- what the parts ask of the server -------------------------------------------

    async def _handle_channel(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        conn: asyncssh.SSHServerConnection = process.get_extra_info("connection")
        try:
            await self.door.handle(process)
        finally:
            self.connections.discard(conn)

    def make_app(self, player: Player, first: str = "lobby",
                 replay: str | None = None) -> App[Any]:
        """The player's app; it opens in the lobby (the server drew the welcome banner),
        with the help over it (`first` "help"), at the first lesson's table of its own
        ("lesson": a table no one else sees, then the club's lobby), at the table that
        holds the player's place ("table": the lobby is built when they leave it), or
        with the saved game `replay` in the replay viewer (`ssh -t host replay CODE`)."""
        if self._app_factory is not None:
            return self._app_factory(player)
        from moon_tui.app import MoonApp
        from moon_tui.lesson import LessonApp

        options: dict[str, Any] = dict(
            motd=self.config.motd,
            operator=player.operator,
            guest=player.guest,
            keys=None if player.guest else AccountKeys(
                self.db, player, self.link_codes, self.port,
                configured=self._operator_keys.get(player.name, {}) if player.operator else {},
            ),
            health=self.dashboard if player.operator else None,
            ratings=DatabaseRatings(self.db),

            driver_class=SSHDriver,
            # A guest's name is new at each visit: the guests of one address are one person.
            person=f"guests at {player.address}" if player.guest else None,
            games=ClubGames(self.db, player),
            analyst=self.analyst,
            help_first=first == "help",
            to_table=first == "table",
            open_replay=replay,
        )
        app: MoonApp
        if first == "lesson":
            app = LessonApp(player.name, club=self.lobby, **options)
        else:
            app = MoonApp(self.lobby, player.name, **options)
        return app

    def _restart_asked(self, command: Restart | CancelRestart, by: str) -> Refused | None:
        """An operator's `restart SECONDS MESSAGE` or `restart cancel` (the lobby checked
        that they are an operator and the seconds): why not, or None when done."""
        if self._stopping:
            return Refused(Refusal.SHUTTING_DOWN)
        if isinstance(command, Restart):
            self.restart.start(command.seconds, command.message, by)
            if self.club_news is not None:  # every worker counts down and stops
                self.club_news.restart_told(command.seconds, command.message, by)
            return None
        if not self.restart.running:
            return Refused(Refusal.NO_RESTART)
        if not self.restart.by:
            return Refused(Refusal.RESTART_BY_SYSTEM)
        self.restart.cancel(by)
        if self.club_news is not None:
            self.club_news.restart_told(None, "", by)
        return None

    def _restart_news(self) -> RestartNotice | None:
        """The countdown as it stands, for a player arriving while it runs."""
        remaining = self.restart.remaining()
        if remaining is None or self._stopping:
            return None
        return RestartNotice(round(remaining), self.restart.message, self.restart.by)

    def _announce_restart(self, seconds: int | None, message: str, by: str) -> None:
        if self._lobby is not None:
            self._lobby.announce_restart(seconds, message, by)

    def _has_place(self, name: str) -> bool:
        """`name` goes straight back to their table, without the welcome banner."""
        return self.lobby.has_place(name)

    def _strangers(self) -> int:
        """Connections that are not playing: open and not logged in, or closed without
        logging in in the last minute or so (for the busy alarm's advice)."""
        return sum(map(len, self.gate.pending.values())) + self.connection_log.unlogged

    def _memory_session_ended(self) -> None:
        assert self.memory is not None
        self.memory.session_ended()

    async def _tick_memory(self) -> None:
        assert self.memory is not None
        while True:
            await asyncio.sleep(self.memory.INTERVAL)
            self.memory.tick(live=self.sessions.count,
                             connections=sum(self.gate.connections.values()))


async def _empty_left_screens() -> None:
    """Empty the screens players left that only their cycles hold (`teardown.py`)."""
    while True:
        await asyncio.sleep(LEFT_SCREENS_EVERY)
        teardown.empty_left_screens()


LEFT_SCREENS_EVERY = 1.0
"""Seconds between two looks at the screens players left (`teardown.SCREEN_GRACE`)."""
