"""The running server: one lobby, one database, one SSH listener, many sessions.

`async with MoonServer(config) as server:` starts everything; leaving the block (or
`stop()`) tells the players, saves unfinished games through the lobby, and closes every
session and connection before the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import time
from collections import defaultdict
from pathlib import Path
from types import TracebackType
from typing import Any

import asyncssh
from textual.app import App

from moon_tui.lobby import Lobby, LobbyConfig

from . import banner, patches, teardown
from .auth import DATABASE_PROBLEM, AuthContext, KeyToLink, MoonSSHServer
from .channel import GameSSHServer
from .config import ServerConfig
from .datafolder import DataFolderLock
from .driver import SSHDriver
from .identity import GUEST_PREFIX, AccountKeys, Player, fingerprint, name_problem
from .limits import Gate
from .link_codes import LinkCodes
from .linking import link_new_key
from .logtext import shown
from .memory import FreezePolicy
from .session import (
    AppFactory,
    LiveSession,
    client_profile,
    is_help,
    refusal_for,
    run_game,
    write_farewell,
    write_line,
)
from .store import Database, SQLiteRecordStore, StoreFailure

log = logging.getLogger(__name__)

SHUTDOWN_MESSAGE = "The server is shutting down. Unfinished games were saved. See you soon!"
IDLE_CHECK_SECONDS = 20.0
UI_MODULES = tuple(f"moon_tui.{name}" for name in (
    "app", "ui.create", "ui.dialogs", "ui.help", "ui.keys", "ui.operator",
))
"""Loaded at start: a screen's first use otherwise imports it inside the shared loop."""
STARTS_AT_ONCE = 1
"""Apps starting at the same time; the others wait their turn (see `_handle_process`)."""
ENDS_AT_ONCE = 2
"""Apps shutting down at the same time because their clients went away (server/driver.py)."""


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


def _operator_fingerprints(config: ServerConfig) -> dict[str, frozenset[str]]:
    result: dict[str, frozenset[str]] = {}
    for name, lines in config.operators.items():
        prints = []
        for line in lines:
            try:
                prints.append(fingerprint(asyncssh.import_public_key(line)))
            except (asyncssh.KeyImportError, ValueError) as error:
                raise ValueError(f"operator {name}: not an SSH public key: {line!r}") from error
        result[name] = frozenset(prints)
    return result


class MoonServer:
    """Owns the lobby, the database, the listener and every live session."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        app_factory: AppFactory | None = None,
        lobby_config: LobbyConfig | None = None,
        freeze_memory: bool = False,
    ) -> None:
        """`lobby_config` replaces the one built from `config` (tests make bots instant).

        `freeze_memory` turns on the garbage-collector policy of `memory.py` (the CLI and
        the benchmark do; it is process-wide, so embedding code chooses).
        """
        self.config = config
        self._lobby_config = lobby_config
        self.db = Database(config.database_path)
        self.records = SQLiteRecordStore(
            self.db,
            keep=config.limits.records_kept_in_memory,
            retry_seconds=config.limits.record_retry_seconds,
        )
        self._data_lock = DataFolderLock(config.data)
        self.gate = Gate(config.limits)
        self.link_codes = LinkCodes(config.limits)
        """Codes from keys dialogs (in memory: a restart forgets them). Tests set its clock."""
        self.clock = time.time
        """Wall-clock time for bans that expire (tests move it on)."""
        self._auth: AuthContext | None = None
        self.sessions: dict[str, list[LiveSession]] = defaultdict(list)
        self._app_factory = app_factory
        self._lobby: Lobby | None = None
        self._listener: asyncssh.SSHAcceptor | None = None
        self._connections: set[asyncssh.SSHServerConnection] = set()
        self._handlers: set[asyncio.Task[Any]] = set()
        self._idle_task: asyncio.Task[None] | None = None
        self._stopping = False
        self.port = config.port
        self.memory = FreezePolicy() if freeze_memory else None
        self._memory_task: asyncio.Task[None] | None = None
        self._start_slots = asyncio.Semaphore(STARTS_AT_ONCE)
        self._end_slots = asyncio.Semaphore(ENDS_AT_ONCE)
        self._at_banner: set[asyncssh.SSHServerProcess[bytes]] = set()
        """Players at the welcome banner or the code prompt of a new key (no app yet): told
        when the server stops."""

    @property
    def lobby(self) -> Lobby:
        if self._lobby is None:
            raise RuntimeError("the server is not running")
        return self._lobby

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
        """Start everything, or raise (`datafolder.CannotStart` says what to do) having
        let go of the data folder again."""
        # First the data folder: a second server on it is refused before it touches
        # anything (its pid is in the message), then the database is checked.
        self._data_lock.acquire()
        try:
            await self._start()
        except BaseException:
            await self.db.close()
            self._data_lock.release()
            raise

    async def _start(self) -> None:
        patches.install()
        teardown.install()
        for module in UI_MODULES:  # now, not while the first player opens each dialog
            importlib.import_module(module)
        host_key = load_or_create_host_key(self.config.host_key_path)
        operators = _operator_fingerprints(self.config)
        await self.db.open()
        limits = self.config.limits
        lobby = Lobby(
            self._lobby_config
            or LobbyConfig(
                grace_seconds=limits.grace_seconds,
                bot_delay=self.config.bot_delay,
                chat_max_chars=limits.chat_max_chars,
                chat_lines_per_10s=limits.chat_lines_per_10s,
                operators=frozenset(self.config.operators),
                motd=self.config.motd,
            ),
            self.records,
            on_ban=self._on_ban,
        )
        self._lobby = await lobby.__aenter__()
        context = self._auth = AuthContext(
            self.config, self.db, self.gate, operators, self._online_names,
            link_codes=self.link_codes, held=self.lobby.held_names, clock=lambda: self.clock(),
        )
        self._listener = await asyncssh.create_server(
            lambda: GameSSHServer(context, self._handle_process),
            self.config.host,
            self.config.port,
            server_host_keys=[host_key],
            acceptor=self._accepted,
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            login_timeout=limits.login_timeout_seconds,
            keepalive_interval=limits.keepalive_seconds,
            keepalive_count_max=3,
            server_version="moon",
        )
        sockets = self._listener.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._idle_task = asyncio.create_task(self._watch_idle(), name="moon-idle")
        if self.memory is not None:
            self.memory.start()
            self._memory_task = asyncio.create_task(self._tick_memory(), name="moon-gc")
        log.info(
            "moon-server listening on %s port %d (data in %s, guests %s)",
            self.config.host, self.port, self.config.data,
            "on" if self.config.guests else "off",
        )

    async def stop(self, reason: str = SHUTDOWN_MESSAGE) -> None:
        """Tell everyone, save unfinished games, end every session; safe to call twice."""
        if self._stopping:
            return
        self._stopping = True
        log.info("stopping: %d sessions", self.session_count)
        if self._listener is not None:
            self._listener.close()
        for session in self.all_sessions():
            session.farewell = session.farewell or reason
        if self._lobby is not None:
            with contextlib.suppress(Exception):
                await self._lobby.broadcast(reason)
            try:
                await asyncio.wait_for(self._lobby.__aexit__(None, None, None), 20)
            except Exception:
                log.exception("the lobby did not shut down cleanly")
        for session in self.all_sessions():
            session.end(reason)
        for process in list(self._at_banner):
            write_farewell(process, reason)
            process.exit(0)
        if self._handlers:
            await asyncio.wait(list(self._handlers), timeout=10)
        for conn in list(self._connections):
            conn.close()
        for task in (self._idle_task, self._memory_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.wait_closed()
        await self.records.close()  # records the disk refused until now: a last try
        await self.db.close()
        self._data_lock.release()
        log.info("stopped")

    # --- sessions -------------------------------------------------------------------

    @property
    def session_count(self) -> int:
        return sum(len(v) for v in self.sessions.values())

    def all_sessions(self) -> list[LiveSession]:
        return [s for group in self.sessions.values() for s in group]

    def _online_names(self) -> frozenset[str]:
        return frozenset(self.sessions)

    def _accepted(self, conn: asyncssh.SSHServerConnection) -> None:
        """Called once a connection has logged in: remembered so `stop()` can close it."""
        self._connections.add(conn)

    def make_app(self, player: Player, *, help_first: bool = False) -> App[Any]:
        """The player's app; it opens in the lobby (the server drew the welcome banner)."""
        if self._app_factory is not None:
            return self._app_factory(player)
        from moon_tui.app import MoonApp

        app = MoonApp(
            self.lobby,
            player.name,
            motd=self.config.motd,
            operator=player.operator,
            guest=player.guest,
            keys=None if player.guest else AccountKeys(
                self.db, player, self.link_codes, self.port
            ),
            health=self.db if player.operator else None,
            driver_class=SSHDriver,
        )
        app.help_first = help_first
        return app

    async def _banned_meanwhile(
        self, process: asyncssh.SSHServerProcess[bytes], player: Player
    ) -> bool:
        """A ban made while the player looked at the banner (login checked before)."""
        reason = await self.db.ban_reason("account", player.name)
        if reason is None and player.fingerprint:
            reason = await self.db.ban_reason("key", player.fingerprint)
        if reason is not None:
            write_farewell(process, f"You were banned from this server: {reason}")
        return reason is not None

    def _idle_message(self) -> str:
        return (f"Closed after {self.config.limits.idle_minutes:g} minutes "
                "without a key press. Come back any time!")

    def _has_seat(self, name: str) -> bool:
        return any(seat.name == name for info in self.lobby.tables() for seat in info.seats)

    async def _handle_process(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        conn: asyncssh.SSHServerConnection = process.get_extra_info("connection")
        auth: MoonSSHServer = process.get_extra_info("moon_auth")
        auth.session_opened()
        try:
            await asyncio.wait_for(auth.identified.wait(), timeout=30)
            player = auth.player
            link = auth.link
            refusal = refusal_for(process, self.port)
            if refusal is None and player is None and link is None:
                refusal = auth.refusal or "Login failed.\r\n"
            if refusal is None and self._stopping:
                refusal = "The server is shutting down.\r\n"
            if refusal is None and conn.get_extra_info("moon_playing"):
                refusal = "One game per connection: open another ssh connection.\r\n"
            if refusal is None:
                refusal = self.gate.session_refusal()
            if refusal is not None or (player is None and link is None):
                write_line(process, refusal or "")
                process.exit(0 if is_help(process.command) else 1)
                return
            conn.set_extra_info(moon_playing=True)
            if player is None and link is not None:  # a new key: it types its code first
                player = await self._link_new_key(process, auth, link)
            if player is None:  # the code was not typed: a failed login, the connection ends
                if link is not None:
                    self.gate.failed(link.address)
                process.exit(1)
                conn.close()
                return
            self.gate.sessions += 1
            try:
                await self._welcome_then_play(process, player)
            finally:
                self.gate.sessions -= 1
            process.exit(0)
            conn.close()
        except StoreFailure as error:  # e.g. the ban check after the banner
            log.error("database failure in the session of %s: %s", conn.get_extra_info(
                "username"), error)
            self.db.alarm("sessions", f"a session failed: the database said '{error}'.")
            with contextlib.suppress(Exception):
                write_farewell(process, DATABASE_PROBLEM)
                process.exit(1)
        except Exception:
            log.exception("session handler failed")
            with contextlib.suppress(Exception):
                process.exit(1)
        finally:
            if task is not None:
                self._handlers.discard(task)
            self._connections.discard(conn)

    async def _link_new_key(
        self, process: asyncssh.SSHServerProcess[bytes], auth: MoonSSHServer, link: KeyToLink
    ) -> Player | None:
        self._at_banner.add(process)  # no app yet: stop() says goodbye to them directly
        try:
            return await link_new_key(process, auth, link, codes=self.link_codes, db=self.db,
                                      limits=self.config.limits)
        finally:
            self._at_banner.discard(process)

    async def _welcome_then_play(
        self, process: asyncssh.SSHServerProcess[bytes], player: Player
    ) -> None:
        choice: banner.Choice = "lobby"
        height = 0
        # The banner is drawn without starting an app (cheap: everyone arriving at once
        # sees it at once); a player coming back to a seat goes straight back to it.
        if self._app_factory is None and not self._has_seat(player.name):
            self._at_banner.add(process)
            try:
                choice, height = await banner.show(
                    process, player.name, self.config.motd, client_profile(process),
                    idle_seconds=self.config.limits.idle_minutes * 60,
                )
            finally:
                self._at_banner.discard(process)
            if choice in ("lobby", "help") and (
                self._stopping or await self._banned_meanwhile(process, player)
            ):
                return  # told by stop() / refused below
            if choice in ("quit", "idle"):
                goodbye = self._idle_message() if choice == "idle" else "Goodbye from Moon."
                write_farewell(process, goodbye)
                return
        # Starting an app costs ~0.1 s of CPU in small steps: started all at once they
        # share the loop and all finish late. One at a time (STARTS_AT_ONCE), in order of
        # arrival, each reaches its first screen as early as the CPU allows.
        if self._start_slots.locked():
            if height:
                process.stdout.write(banner.status_line(banner.STARTING, height).encode())
            else:
                write_line(process, "Starting your game, one moment...\r\n")
        await self._start_slots.acquire()
        released = False

        def first_frame() -> None:
            nonlocal released
            if not released:
                released = True
                self._start_slots.release()

        try:
            await run_game(
                process, player, lambda p: self.make_app(p, help_first=choice == "help"),
                on_start=self._session_started, on_end=self._session_ended,
                on_first_frame=first_frame, end_slots=self._end_slots,
                limits=self.config.limits,
            )
        finally:
            if not released:
                released = True
                self._start_slots.release()

    def _session_started(self, session: LiveSession) -> None:
        self.sessions[session.player.name].append(session)
        log.info("session start %s (%s, %dx%d)", session.player.name,
                 shown(session.terminal.profile.term), session.terminal.profile.width,
                 session.terminal.profile.height)

    def _session_ended(self, session: LiveSession) -> None:
        if self.memory is not None:
            self.memory.session_ended()
        group = self.sessions.get(session.player.name)
        if group is not None:
            with contextlib.suppress(ValueError):
                group.remove(session)
            if not group:
                del self.sessions[session.player.name]
        log.info(
            "session end %s (%d frames, %d KB out, %d frames skipped)",
            session.player.name, session.terminal.frames, session.terminal.bytes_out // 1024,
            session.terminal.skipped_frames,
        )

    async def _tick_memory(self) -> None:
        assert self.memory is not None
        while True:
            await asyncio.sleep(self.memory.INTERVAL)
            self.memory.tick(live=self.session_count,
                             connections=sum(self.gate.connections.values()))

    async def _watch_idle(self) -> None:
        limit = self.config.limits.idle_minutes * 60
        while True:
            await asyncio.sleep(min(IDLE_CHECK_SECONDS, limit / 4))
            # In a function of its own: a loop variable left in this coroutine's frame
            # kept the last session (and its whole App) alive (measured).
            self._end_idle_sessions(limit)

    def _end_idle_sessions(self, limit: float) -> None:
        now = time.monotonic()
        for session in self.all_sessions():
            if now - session.terminal.last_input > limit:
                log.info("idle timeout %s", session.player.name)
                session.end(self._idle_message())

    # --- operators ------------------------------------------------------------------

    async def _on_ban(self, name: str, reason: str) -> None:
        """The lobby reports an operator's ban: make it last, and refuse new logins.

        The name and its keys are banned for good. The addresses it last used are banned
        for `address_ban_days` from letting in guests and new names (so the player does
        not come straight back as a guest or under a new key); players there with a key
        of their own still get in."""
        reason = reason or "banned by an operator"
        live = self.sessions.get(name, [])
        guest = name.startswith(GUEST_PREFIX)
        account = await self.db.account(name) if name_problem(name) is None else None
        if not guest:
            await self.db.ban("account", name, reason)
        keys = set(account.fingerprints if account else ())
        keys.update(s.player.fingerprint for s in live if s.player.fingerprint)
        for key in keys:
            await self.db.ban("key", key, reason)
        addresses = {s.player.address for s in live if s.player.address}
        now = self.clock()
        days = self.config.limits.address_ban_days
        seen = self._auth.guest_seats.get(name) if self._auth is not None else None
        if seen is not None:
            addresses.add(seen.address)
        if not guest:
            addresses.update(await self.db.addresses_since(name, now - days * 86400))
        for address in addresses if days > 0 else ():
            await self.db.ban("address", address, reason, until=now + days * 86400)
        log.info("ban %s (%d keys, %d addresses for %g days): %s",
                 shown(name), len(keys), len(addresses), days, shown(reason))
        for session in list(live):
            session.end(f"You were banned from this server: {reason}")
