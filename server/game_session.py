"""A game session: one player's app running over one SSH channel, until goodbye.

Words, in the server: the SSH *connection* carries a *channel* (asyncssh's "session"
channel and its process); a *game session* (`GameSession`) is a player's app running on
one channel; the lobby's side of it is the player's *handle* (moon_tui.lobby).

`run_game_session` runs the app and always ends with a line of plain text to the player
saying why, whatever happened: a normal exit, a takeover, a ban, a shutdown, or a crash
of their app (which is logged with its traceback and ends only that game session). The
helpers that write plain lines on a channel are here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import asyncssh
from textual.app import App

from moon_tui.ui.door_words import CRASHED, GOODBYE
from moon_tui.ui.plain import printable

from .config import Limits
from .driver import CURRENT_TERMINAL, SSHDriver, SSHTerminal
from .identity import Player
from .teardown import dismantle
from .terminal import TerminalProfile, exit_message, fit_app_to_terminal

log = logging.getLogger(__name__)

AppFactory = Callable[[Player], App[Any]]

@dataclass(eq=False)
class GameSession:
    """A player's app running over one SSH channel, as the server tracks it (bans, idle,
    shutdown)."""

    player: Player
    app: App[Any]
    terminal: SSHTerminal
    farewell: str | None = None

    def note_farewell(self, farewell: str) -> None:
        """The line the player reads once the app ends, unless one was noted already."""
        if self.farewell is None:
            self.farewell = farewell

    def end(self, farewell: str) -> None:
        """Ask the app to stop; `farewell` is the line the player reads afterwards."""
        self.note_farewell(farewell)
        if self.app.is_running:
            self.app.exit()
        else:  # still starting: stop as soon as it runs
            self.app.call_later(self.app.exit)


def client_profile(process: asyncssh.SSHServerProcess[bytes]) -> TerminalProfile:
    """The client's terminal as it told us (type, size, COLORTERM/NO_COLOR)."""
    width, height = process.get_terminal_size()[:2]
    return TerminalProfile.from_client(
        process.get_terminal_type(), (width or 80, height or 24), _env(process)
    )


def _env(process: asyncssh.SSHServerProcess[bytes]) -> dict[str, str]:
    env: dict[str, str] = {}
    for key, value in process.env.items():
        k = key.decode(errors="replace") if isinstance(key, bytes) else str(key)
        v = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
        env[k] = v
    return env


def write_line(process: asyncssh.SSHServerProcess[bytes], text: str) -> None:
    channel = process.channel
    if not channel.is_closing():
        channel.write(text.replace("\r\n", "\n").replace("\n", "\r\n").encode())


def write_farewell(process: asyncssh.SSHServerProcess[bytes], text: str) -> None:
    """Leave the full screen (the banner's, or a crashed app's), show the cursor again,
    and say `text` on the client's own terminal (as plain text: see `ui.plain`)."""
    write_line(process, f"\x1b[?1049l\x1b[?25h{printable(text)}\r\n")


async def run_game_session(
    process: asyncssh.SSHServerProcess[bytes],
    player: Player,
    make_app: AppFactory,
    *,
    on_start: Callable[[GameSession], None],
    on_end: Callable[[GameSession], None],
    on_first_frame: Callable[[], None],
    end_slots: asyncio.Semaphore,
    limits: Limits,
) -> None:
    """Run one app for `player` over `process` until it ends, whatever the reason."""
    profile = client_profile(process)
    terminal = SSHTerminal(process, profile, on_first_frame=on_first_frame,
                           end_slots=end_slots, limits=limits)
    app = make_app(player)
    # Whatever the factory did, this app draws on the SSH channel, never on the
    # server's own terminal (the default would be LinuxDriver on the server's stdin).
    app.driver_class = SSHDriver
    fit_app_to_terminal(app, profile)
    session = GameSession(player, app, terminal)
    on_start(session)
    token = CURRENT_TERMINAL.set(terminal)
    crash: BaseException | None = None
    try:
        await app.run_async(size=(profile.width, profile.height), mouse=True)
        crash = app._exception
    except Exception as error:
        crash = error
    finally:
        CURRENT_TERMINAL.reset(token)
        reader = terminal.reader
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
        terminal.reader = None
        on_end(session)
    try:
        _say_goodbye(process, session, crash)
    finally:
        try:
            # Nothing uses the app any more: break its cycles so it is freed now (memory.py).
            await dismantle(app)
        finally:
            terminal.give_back_end_slot()


def _say_goodbye(
    process: asyncssh.SSHServerProcess[bytes], session: GameSession, crash: BaseException | None
) -> None:
    if crash is not None:
        log.error(
            "session of %s crashed (other sessions go on)",
            session.player.name,
            exc_info=(type(crash), crash, crash.__traceback__),
        )
        write_farewell(process, CRASHED)
        return
    farewell = session.farewell
    if farewell is None:
        farewell = exit_message(session.app) or None
    # A reason may quote an operator or a ban record: no escape sequence reaches the client.
    write_line(process, f"{printable(farewell or GOODBYE)}\r\n")
    if session.terminal.dropped_events:
        log.info("%s: %d input events over the limit dropped", session.player.name,
                 session.terminal.dropped_events)
