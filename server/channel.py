"""What a client asks of its session channel, bounded at the door.

asyncssh keeps whatever a client sends about its session: every environment variable
(60,000 of 30 KB grew a server by 3 GB, kept after the client left), any terminal size
(a 4294967295-column PTY grew one by 230 MB/s as Textual drew it) and every window
change, queued for the reader one by one. Here, before anything is stored:

- only the environment variables the game reads are kept, few and short, and a client
  sending many more than any terminal does is disconnected;
- the terminal type is cut to a short plain word (it is logged and shown);
- the terminal size is clamped to `Limits.max_terminal_width` x `max_terminal_height`:
  a larger terminal shows the game in its top-left corner;
- window changes are coalesced: however many arrive while the session is busy, its
  reader finds one, with the latest size; a client sending more than
  `Limits.window_changes_per_10s` is disconnected (each costs the server its
  decryption, merged or not).

The seam is asyncssh's documented one: `SSHServer.session_requested()` returns the
channel (made by `conn.create_server_channel()`) and the `SSHServerProcess` to run.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Any

import asyncssh
from asyncssh.channel import SSHServerChannel
from asyncssh.packet import SSHPacket
from asyncssh.stream import SSHServerStreamSession, SSHStreamSession

from .auth import AuthContext, MoonSSHServer
from .config import Limits
from .internals import Internal
from .memory import FreezePolicy

log = logging.getLogger(__name__)

GAME_ENV = frozenset({b"TERM", b"LANG", b"LC_ALL", b"LC_CTYPE", b"COLORTERM", b"NO_COLOR"})
"""The environment variables the game reads (colours) or a terminal commonly sends."""

_TERM_JUNK = re.compile(r"[^A-Za-z0-9._+-]")

WINDOW_CHANGE_SPAN = 10.0
"""Seconds over which `Limits.window_changes_per_10s` counts."""

REFUSED_CHANNELS_MAX = 64
"""Session channels refused on one connection before it is closed (each refusal is a
reply of ~100 bytes the client may never read, and handling a thousand of them held
the event loop for 130 ms: a client that keeps asking is not a player)."""

ProcessHandler = Callable[[asyncssh.SSHServerProcess[bytes]], Any]

OVERRIDDEN = (
    Internal("asyncssh", SSHServerChannel, "_process_env_request",
             "environment kept bounded in _env; _conn closed on a flood"),
    Internal("asyncssh", SSHServerChannel, "_process_pty_req_request",
             "terminal size clamped: _term_type, _term_size"),
    Internal("asyncssh", SSHServerChannel, "_process_window_change_request",
             "window changes clamped (_term_size) and merged (_session)"),
    Internal("asyncssh", SSHServerChannel, "__init__", "BoundedChannel adds no state"),
    Internal("asyncssh", SSHServerStreamSession, "terminal_size_changed",
             "window changes merged"),
    Internal("asyncssh", SSHStreamSession, "read", "window changes merged"),
)
"""asyncssh's private methods the bounded channel and process override (see internals.py)."""


def bounded_term(term: str, limit: int) -> str:
    """The terminal type as a short plain word: no spaces, newlines or escape codes."""
    return _TERM_JUNK.sub("", term)[:limit] or "dumb"


def clamped_size(width: int, height: int, limits: Limits) -> tuple[int, int]:
    """The size a session is drawn at (0 stays 0: the client gave none)."""
    return min(width, limits.max_terminal_width), min(height, limits.max_terminal_height)


class BoundedProcess(asyncssh.SSHServerProcess[bytes]):
    """A session process whose reader sees at most one pending window change.

    asyncssh queues every window change as an exception in the input stream; a client
    sending thousands while the session is busy made a queue as long. Here a change
    that arrives while another waits to be read updates the waiting one in place.
    """

    def __init__(self, handler: ProcessHandler, on_closed: Callable[[], None]) -> None:
        super().__init__(handler, None, 0, False)
        self._pending_resize: asyncssh.TerminalSizeChanged | None = None
        self._on_closed: Callable[[], None] | None = on_closed

    def connection_lost(self, exc: Exception | None) -> None:
        """The channel closed (or its connection did): its place is free again."""
        try:
            super().connection_lost(exc)
        finally:
            on_closed, self._on_closed = self._on_closed, None
            if on_closed is not None:
                on_closed()

    def terminal_size_changed(
        self, width: int, height: int, pixwidth: int, pixheight: int
    ) -> None:
        pending = self._pending_resize
        if pending is not None:
            pending.width, pending.height = width, height
            return
        self._pending_resize = asyncssh.TerminalSizeChanged(width, height, 0, 0)
        self.exception_received(self._pending_resize)

    async def read(self, datatype: Any, n: int, exact: bool) -> bytes:
        try:
            data: bytes = await super().read(datatype, n, exact)
            return data
        except asyncssh.TerminalSizeChanged as change:
            if change is self._pending_resize:
                self._pending_resize = None
            raise


class BoundedChannel(asyncssh.SSHServerChannel[bytes]):
    """A session channel that keeps only bounded terminal and environment requests."""

    limits: Limits = Limits()
    _env_requests = 0
    _window_changes = 0
    """Window changes since `_window_changes_since` (monotonic seconds)."""
    _window_changes_since = -WINDOW_CHANGE_SPAN

    def _too_many_window_changes(self) -> bool:
        """Count one; past `window_changes_per_10s` the connection is closed."""
        now = time.monotonic()
        if now - self._window_changes_since >= WINDOW_CHANGE_SPAN:
            self._window_changes_since, self._window_changes = now, 0
        self._window_changes += 1
        limit = self.limits.window_changes_per_10s
        if self._window_changes <= limit:
            return False
        self._close_flood(f"more than {limit} window changes in 10 s",
                          "too many window changes")
        return True

    def _close_flood(self, why: str, reason: str) -> None:
        """Close the connection of a client flooding its session with requests (the
        ones already received are still decrypted: `receive_buffer_bytes` bounds them)."""
        peer = self._conn.get_extra_info("peername")
        log.info("closed %s: %s", peer[0] if peer else "?", why)
        self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, reason)

    def _process_env_request(self, packet: SSHPacket) -> bool:
        name = packet.get_string()
        value = packet.get_string()
        packet.check_end()
        self._env_requests += 1
        if self._env_requests > self.limits.max_env_requests:
            # Refusing costs little, but receiving does not: 60,000 variables of 30 KB
            # are 1.8 GB to decrypt, and others' keys waited 0.7 s behind them (measured).
            self._close_flood(f"more than {self.limits.max_env_requests} environment "
                              "variables", "too many environment variables")
            return False
        env = self._env
        if (name not in GAME_ENV or len(value) > self.limits.max_env_value_chars
                or (name not in env and len(env) >= self.limits.max_env_variables)):
            return False  # refused before it is stored (the client sees a failure)
        env[name] = value
        return True

    def _process_pty_req_request(self, packet: SSHPacket) -> bool:
        accepted: bool = super()._process_pty_req_request(packet)
        if accepted and self._term_type is not None:
            self._term_type = bounded_term(self._term_type, self.limits.max_term_chars)
            width, height = clamped_size(*self._term_size[:2], self.limits)
            self._term_size = (width, height, 0, 0)
        return accepted

    def _process_window_change_request(self, packet: SSHPacket) -> bool:
        width, height = clamped_size(packet.get_uint32(), packet.get_uint32(), self.limits)
        packet.get_uint32()  # pixel sizes: not used
        packet.get_uint32()
        packet.check_end()
        if self._too_many_window_changes():
            return False
        if (width, height) != self._term_size[:2]:
            self._term_size = (width, height, 0, 0)
            self._session.terminal_size_changed(width, height, 0, 0)
        return True


def open_session(
    conn: asyncssh.SSHServerConnection, handler: ProcessHandler, limits: Limits,
    on_closed: Callable[[], None],
) -> tuple[BoundedChannel, BoundedProcess]:
    """A bounded channel and the process running `handler` on it; `on_closed` is called
    once when the channel closes."""
    channel = conn.create_server_channel()
    # asyncssh documents create_server_channel() as the way to make a session's
    # channel, with the connection's settings, but offers no way to choose its class.
    # BoundedChannel only overrides request handlers and adds no state of its own.
    channel.__class__ = BoundedChannel
    assert isinstance(channel, BoundedChannel)
    channel.limits = limits
    return channel, BoundedProcess(handler, on_closed)


class GameSSHServer(MoonSSHServer):
    """The per-connection server: authentication (auth.py), then bounded sessions, at
    most `channels_per_connection_max` open at once.

    A client may open channels without ever using them, and without reading the
    replies: 400,000 took a server from 68 MB to 2.9 GB (with a game open, nothing else
    closed the connection). A channel past the bound is refused as the protocol allows
    ("resource shortage"); a closed one frees its place. Each refusal is a reply the
    client may leave unread in the server's buffers: past `REFUSED_CHANNELS_MAX` of
    them, the connection is closed.

    `memory`: told when the connection opens and closes (what it leaves is garbage)."""

    def __init__(self, context: AuthContext, handler: ProcessHandler,
                 memory: FreezePolicy | None = None) -> None:
        super().__init__(context)
        self._handler = handler
        self._memory = memory
        self._memory_stamp = 0
        self.open_channels = 0
        self.refused_channels = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        if self._memory is not None:
            self._memory_stamp = self._memory.connection_opened()
        super().connection_made(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            if self._memory is not None:
                self._memory.connection_closed(self._memory_stamp)
                self._memory = None  # counted once

    def session_requested(self) -> tuple[BoundedChannel, BoundedProcess] | bool:
        if self._conn is None:  # the connection is closing
            return False
        limits = self._ctx.config.limits
        if self.open_channels >= limits.channels_per_connection_max:
            self.refused_channels += 1
            if self.refused_channels == 1:  # one line per connection, not per request
                log.info("refused a session channel from %s: %d open on its connection",
                         self._address, self.open_channels)
            if self.refused_channels > REFUSED_CHANNELS_MAX:
                log.info("closed %s: more than %d session channels refused",
                         self._address, REFUSED_CHANNELS_MAX)
                self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, "too many sessions")
                return False
            raise asyncssh.ChannelOpenError(
                asyncssh.OPEN_RESOURCE_SHORTAGE,
                f"at most {limits.channels_per_connection_max} sessions per connection")
        self.open_channels += 1
        stamp = 0 if self._memory is None else self._memory.freezes
        return open_session(self._conn, self._handler, limits,
                            lambda: self._channel_closed(stamp))

    def _channel_closed(self, stamp: int) -> None:
        self.open_channels -= 1
        if self._memory is not None:
            self._memory.channel_closed(stamp)
