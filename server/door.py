"""The way in: each SSH channel from its opening to the player's first screen, and out.

For every channel a logged-in connection opens (`handle`): refuse what is not a game
(a command, a subsystem, no terminal, a full server, a second game on one connection),
let a new key type its code (`linking.py`), show the welcome banner (`banner.py`), then
start the player's app when a start slot is free and run the game session until it ends.

The banner is drawn without an app (cheap: everyone arriving at once sees it at once);
starting an app costs ~0.1 s of CPU in small steps, so apps start `starts_at_once` at a
time (a setting, 4 by default), in order of arrival. One at a time left the CPU idle
while each start waited on its round trips (the lobby, the database, the client), and
after a restart, when every seated player comes back at once with no banner, the last
of 150 waited for 149 starts in a row; a few at a time keep the CPU busy, and the
event loop's pass budget (`patches.py`, patch 9) interleaves their steps with the
players already in, whose keys go first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import asyncssh
from textual.app import App

from moon_tui.services import DatabaseFailed, DatabaseStep
from moon_tui.ui.door_words import (
    DATABASE_PROBLEM,
    GOODBYE,
    LOGIN_FAILED,
    NEW_KEY_NEEDS_A_TERMINAL,
    NO_PTY,
    NO_SUBSYSTEMS,
    ONE_GAME_PER_CONNECTION,
    SHUTTING_DOWN,
    STARTING,
)

from . import banner, commands, game_commands, rating_commands  # noqa: F401 (they register)
from .auth import KeyToLink, MoonSSHServer
from .bans import Bans
from .config import ServerConfig
from .connlog import ConnectionLog
from .game_session import client_profile, run_game_session, write_farewell, write_line
from .identity import Player
from .limits import Gate
from .link_codes import LinkCodes
from .linking import link_new_key
from .logtext import shown
from .registry import SessionRegistry
from .store import Database, StoreFailure

log = logging.getLogger(__name__)

GOODBYE_WAIT = 2.0
"""Seconds a client has to close its channel after the goodbye before its connection is
closed anyway (`_close_after_goodbye`)."""

ENDS_AT_ONCE = 2
"""Apps shutting down at the same time because their clients went away (server/driver.py)."""
IDENTIFY_TIMEOUT = 30.0
"""Seconds a channel waits for its connection's login to be settled."""

MakeApp = Callable[[Player, str, str | None], App[Any]]
"""The player's app; the first string: what the player chose on the banner ("lobby",
"help" to open the help first, "lesson" for the first lesson; "table": no banner, a
table holds the player's place and they go straight to it);
the code: open that saved game in the replay viewer (`ssh -t host replay CODE`)."""



def is_help(command: str | None) -> bool:
    return command is not None and command.strip() in ("help", "--help", "-h")


def refusal_for(process: asyncssh.SSHServerProcess[bytes]) -> str | None:
    """The message for a channel that is neither a game session nor a command (an exec
    request, answered by `commands.py` once the login is settled), or None."""
    if process.command is not None:
        return None
    if process.subsystem is not None:
        log.info("refused subsystem %s", shown(process.subsystem))
        return NO_SUBSYSTEMS + "\n"
    if process.get_terminal_type() is None:
        return NO_PTY + "\r\n"
    return None


class Door:
    """Runs every channel's handler; `close()` turns away those not playing yet."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        db: Database,
        gate: Gate,
        link_codes: LinkCodes,
        sessions: SessionRegistry,
        bans: Bans,
        make_app: MakeApp,
        has_seat: Callable[[str], bool],
        connection_log: ConnectionLog,
        banner_first: bool = True,
    ) -> None:
        self._config = config
        self._db = db
        self._gate = gate
        self._link_codes = link_codes
        self._sessions = sessions
        self._bans = bans
        self._make_app = make_app
        self._has_seat = has_seat
        self._connection_log = connection_log
        self._banner_first = banner_first
        self.port = config.port
        """The port players connect to (named in the help text): `listening`."""
        self.motd: Callable[[], str] = lambda: config.motd
        """The message of the day as it is now (operators change it from the game):
        `motd_from`."""
        self.closing = False
        self.handlers: set[asyncio.Task[Any]] = set()
        """Channel handlers still running: `stop()` waits for them."""
        self.at_banner: set[asyncssh.SSHServerProcess[bytes]] = set()
        """Players at the welcome banner or the code prompt of a new key (no app yet): told
        when the server stops."""
        self.start_slots = asyncio.Semaphore(config.limits.starts_at_once)
        """Apps starting now: each slot is given back at its app's first frame."""
        self.end_slots = asyncio.Semaphore(ENDS_AT_ONCE)

    def listening(self, port: int) -> None:
        """The server listens on `port` (the one asked for, or the system's choice)."""
        self.port = port

    def motd_from(self, motd: Callable[[], str]) -> None:
        """Where the message of the day is read from now (the lobby, once it runs)."""
        self.motd = motd

    def shut(self) -> None:
        """No one else comes in (the server is stopping)."""
        self.closing = True

    def close(self, farewell: str) -> None:
        """No one else comes in; those at the banner or a code prompt are told why."""
        self.shut()
        for process in list(self.at_banner):
            write_farewell(process, farewell)
            process.exit(0)

    async def handle(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        """One channel, from its opening to its end (asyncssh runs this per channel)."""
        task = asyncio.current_task()
        if task is not None:
            self.handlers.add(task)
        conn: asyncssh.SSHServerConnection = process.get_extra_info("connection")
        auth: MoonSSHServer = process.get_extra_info("moon_auth")
        auth.channel_opened()
        try:
            await asyncio.wait_for(auth.identified.wait(), timeout=IDENTIFY_TIMEOUT)
            await self._admit(process, conn, auth)
        except StoreFailure as error:  # e.g. the ban check after the banner
            log.error("database failure in the session of %s: %s", conn.get_extra_info(
                "username"), error)
            self._db.alarm("sessions", DatabaseFailed(DatabaseStep.SESSION, str(error)))
            with contextlib.suppress(Exception):
                write_farewell(process, DATABASE_PROBLEM)
                process.exit(1)
        except Exception:
            log.exception("session handler failed")
            with contextlib.suppress(Exception):
                process.exit(1)
        finally:
            if task is not None:
                self.handlers.discard(task)

    def _refusal(
        self, process: asyncssh.SSHServerProcess[bytes], conn: asyncssh.SSHServerConnection,
        auth: MoonSSHServer,
    ) -> str | None:
        """Why this channel gets no game (or no command), or None."""
        refusal = refusal_for(process)
        if refusal is None and auth.player is None and auth.link is None:
            refusal = auth.refusal or LOGIN_FAILED + "\r\n"
        if refusal is None and self.closing:
            refusal = SHUTTING_DOWN + "\r\n"
        if refusal is None and process.command is None and conn.get_extra_info("moon_playing"):
            refusal = ONE_GAME_PER_CONNECTION + "\r\n"
        return refusal

    async def _admit(
        self, process: asyncssh.SSHServerProcess[bytes], conn: asyncssh.SSHServerConnection,
        auth: MoonSSHServer,
    ) -> None:
        player, link = auth.player, auth.link
        if is_help(process.command):  # it tells nothing about anyone: asked before a login
            await commands.run(process, self._command_context(process, None))
            return
        refusal = self._refusal(process, conn, auth)
        if refusal is not None or (player is None and link is None):
            write_line(process, refusal or "")
            process.exit(1)
            return
        if process.command is not None:
            await self._command(process, player)
            return
        conn.set_extra_info(moon_playing=True)
        if player is None and link is not None:  # a new key: it types its code first
            player = await self._link_new_key(process, auth, link)
        if player is None:  # no right code (each wrong one was a failed login): it ends
            await _close_after_goodbye(process, conn, 1)
            return
        gate = self._gate
        refusal = await gate.admit(player.name, player.address, guest=player.guest,
                             operator=player.operator)
        if refusal is not None:
            # Counted, not a line each: a flood of them is what gets refused here.
            self._connection_log.note(player.address, "sessions refused")
            write_line(process, refusal + "\r\n")
            await _close_after_goodbye(process, conn, 1)
            return
        try:
            await self._welcome_then_play(process, player)
        finally:
            await gate.left(player.name, player.address, guest=player.guest)
        await _close_after_goodbye(process, conn, 0)

    def _command_context(self, process: asyncssh.SSHServerProcess[bytes],
                         player: Player | None) -> commands.CommandContext:
        return commands.CommandContext(player, self._db, self._config, self.port,
                                       terminal=process.get_terminal_type() is not None)

    async def _command(
        self, process: asyncssh.SSHServerProcess[bytes], player: Player | None
    ) -> None:
        """An exec request: the same identity and limits as a game session (it holds a
        session's place while it runs); a new key must add itself with a terminal first."""
        if player is None:
            write_line(process, NEW_KEY_NEEDS_A_TERMINAL + "\n")
            process.exit(1)
            return
        log.info("command from %s: %s", player.name, shown(process.command or ""))
        refusal = await self._gate.admit(player.name, player.address, guest=player.guest,
                                   operator=player.operator)
        if refusal is not None:
            self._connection_log.note(player.address, "sessions refused")
            write_line(process, refusal + "\n")
            process.exit(1)
            return
        context = self._command_context(process, player)
        replay = game_commands.replay_to_open(context, process.command or "")
        try:
            if await self._bans.refuse_if_banned(process, player):
                process.exit(1)
            elif replay is not None and not conn_playing(process):
                # `ssh -t host replay CODE`: the player's app, opened on that game.
                process.get_extra_info("connection").set_extra_info(moon_playing=True)
                await self._welcome_then_play(process, player, replay=replay)
                await _close_after_goodbye(process, process.get_extra_info("connection"), 0)
            else:
                await commands.run(process, context)
        finally:
            await self._gate.left(player.name, player.address, guest=player.guest)

    async def _link_new_key(
        self, process: asyncssh.SSHServerProcess[bytes], auth: MoonSSHServer, link: KeyToLink
    ) -> Player | None:
        self.at_banner.add(process)  # no app yet: close() says goodbye to them directly
        try:
            return await link_new_key(process, auth, link, codes=self._link_codes,
                                      db=self._db, limits=self._config.limits,
                                      wrong_code=lambda: self._gate.failed(link.address))
        finally:
            self.at_banner.discard(process)

    async def _welcome_then_play(
        self, process: asyncssh.SSHServerProcess[bytes], player: Player,
        replay: str | None = None,
    ) -> None:
        choice: banner.Choice = "lobby"
        height = 0
        # A player coming back to a seat goes straight back to it; a replay, to the game.
        seated = replay is None and self._has_seat(player.name)
        if self._banner_first and replay is None and not seated:
            self.at_banner.add(process)
            try:
                choice, height = await banner.show(
                    process, player.name, self.motd(), client_profile(process),

                    idle_seconds=self._config.limits.idle_minutes * 60,
                )
            finally:
                self.at_banner.discard(process)
            if choice in ("lobby", "help", "lesson") and (
                self.closing or await self._bans.refuse_if_banned(process, player)
            ):
                return  # told by close() / refused just now
            if choice in ("quit", "idle"):
                goodbye = (self._sessions.idle_message if choice == "idle"
                           else GOODBYE)
                write_farewell(process, goodbye)
                return
        first = "table" if seated else choice
        if self.start_slots.locked():
            if height:
                process.stdout.write(banner.status_line(STARTING, height).encode())
            else:
                write_line(process, STARTING + "\r\n")
        await self.start_slots.acquire()
        released = False

        def first_frame() -> None:
            nonlocal released
            if not released:
                released = True
                self.start_slots.release()

        try:
            await run_game_session(
                process, player, lambda p: self._make_app(p, first, replay),
                on_start=self._sessions.started, on_end=self._sessions.ended,
                on_first_frame=first_frame, end_slots=self.end_slots,
                limits=self._config.limits,
            )
        finally:
            if not released:
                released = True
                self.start_slots.release()


def conn_playing(process: asyncssh.SSHServerProcess[bytes]) -> bool:
    """The connection runs a game session already (one per connection)."""
    return bool(process.get_extra_info("connection").get_extra_info("moon_playing"))


async def _close_after_goodbye(
    process: asyncssh.SSHServerProcess[bytes], conn: asyncssh.SSHServerConnection, status: int
) -> None:
    """End the channel, let the client close it, then close the connection.

    Closed at once, the connection's disconnect overtook the goodbye: OpenSSH quits on a
    disconnect without writing what it had not written yet, so the player read only
    "Disconnected by application" (seen with uvloop, at every shutdown)."""
    process.exit(status)
    with contextlib.suppress(TimeoutError, asyncssh.Error, OSError):
        await asyncio.wait_for(process.wait_closed(), GOODBYE_WAIT)
    conn.close()
