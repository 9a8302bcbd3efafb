"""The code prompt a new key sees before it plays: the right code adds the key to the name.

The login has already proved it holds the key (server/auth.py lets it in only after the
signature checked out, and only while the name waits for a code). What is left to prove is
that the name's owner wants this key: they read the code in their keys dialog.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal

import asyncssh

from moon_tui.services import DatabaseFailed, DatabaseStep
from moon_tui.ui.door_words import (
    CODE,
    KEY_HAS_A_NAME,
    KEY_NOT_ADDED,
    KEY_NOT_SAVED,
    NO_CODE_IN_TIME,
    banned_words,
    key_added_words,
    new_key_words,
    wrong_code_words,
)
from moon_tui.ui.plain import printable

from .auth import KeyToLink, MoonSSHServer
from .config import Limits
from .game_session import write_line
from .identity import Player
from .link_codes import LinkCodes
from .store import Database, StoreFailure

log = logging.getLogger(__name__)

CODE_INPUT_CHARS = 24
"""Characters kept of what is typed (a code is 8, shown with a dash; spaces are allowed)."""
INPUT_BYTES = 4096
"""Bytes read at this prompt in all, before the connection ends: nobody types that much."""
_ERASE = (0x7F, 0x08)
_ENTER = (0x0D, 0x0A)
_QUIT = (0x03, 0x04)  # Ctrl+C, Ctrl+D
_ESC = 0x1B
_TYPED = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789- ")
EscapeState = Literal["", "esc", "csi", "ss3"]


class LinePrompt:
    """Short lines typed on a raw terminal (the client's line editing is off), echoed as
    they are typed; bounded in time (`deadline`, loop time) and in bytes read. Keys that
    send escape sequences (arrows, function keys, the mouse) are skipped whole."""

    def __init__(self, process: asyncssh.SSHServerProcess[bytes], deadline: float) -> None:
        self._process = process
        self._loop = asyncio.get_running_loop()
        self.deadline = deadline
        self._bytes_left = INPUT_BYTES
        self._unread = b""
        """What came after the last Enter, for the next line."""
        self._escape: EscapeState = ""

    @property
    def timed_out(self) -> bool:
        return self._loop.time() >= self.deadline

    async def read_line(self) -> str | None:
        """The next line that is not empty; None when the client left, pressed Ctrl+C,
        sent too much, or the time is up."""
        typed = bytearray()
        while True:
            data: bytes | None = self._unread or await self._read()
            self._unread = b""
            if data is None:
                return None
            echo = bytearray()
            for index, byte in enumerate(data):
                if self._in_escape(byte):
                    continue
                if byte in _ENTER:
                    if typed:
                        self._unread = data[index + 1 :]
                        self._echo(bytes(echo))
                        return typed.decode("ascii")
                elif byte in _QUIT:
                    return None
                elif byte in _ERASE:
                    if typed:
                        typed.pop()
                        echo += b"\b \b"
                elif byte in _TYPED and len(typed) < CODE_INPUT_CHARS:
                    typed.append(byte)
                    echo.append(byte)
            self._echo(bytes(echo))

    async def _read(self) -> bytes | None:
        while True:
            try:
                async with asyncio.timeout_at(self.deadline):
                    data = await self._process.stdin.read(256)
            except asyncssh.TerminalSizeChanged:
                continue
            except (TimeoutError, asyncssh.BreakReceived, asyncssh.SignalReceived,
                    asyncssh.Error, OSError):
                return None
            self._bytes_left -= len(data)
            return data if data and self._bytes_left >= 0 else None

    def _in_escape(self, byte: int) -> bool:
        """Whether `byte` belongs to an escape sequence (ESC [ ... final, ESC O x, ESC x)."""
        state = self._escape
        if state == "csi":
            if 0x40 <= byte <= 0x7E:
                self._escape = ""
            return True
        if state == "ss3":
            self._escape = ""
            return True
        if state == "esc":
            if byte in b"[O":
                self._escape = "csi" if byte == ord("[") else "ss3"
                return True
            self._escape = ""  # a lone Esc: this byte is a key of its own
        if byte == _ESC:
            self._escape = "esc"
            return True
        return False

    def _echo(self, data: bytes) -> None:
        if data and not self._process.channel.is_closing():
            self._process.stdout.write(data)


async def link_new_key(
    process: asyncssh.SSHServerProcess[bytes],
    auth: MoonSSHServer,
    link: KeyToLink,
    *,
    codes: LinkCodes,
    db: Database,
    limits: Limits,
    wrong_code: Callable[[], Awaitable[None]],
) -> Player | None:
    """Ask for the code, a few tries within the login timeout; the right one adds the key
    and returns the player. Anything else says why, and returns None (a failed login).

    Every key new to the name gets here, whether or not the name waits for a code, and
    reads the same words either way. `wrong_code()` is called for each wrong code: it
    costs the guesser's address, never the name's owner."""
    loop = asyncio.get_running_loop()
    prompt = LinePrompt(process, loop.time() + limits.login_timeout_seconds)
    tries = max(1, limits.link_code_tries)
    write_line(process, f"\n{new_key_words(link.name)}\n")
    for used in range(1, tries + 1):
        write_line(process, "\n" + CODE)
        typed = await prompt.read_line()
        if typed is None:
            timed_out = prompt.timed_out
            write_line(process, f"\n{NO_CODE_IN_TIME if timed_out else KEY_NOT_ADDED}\n")
            log.info("link of a key to %s from %s: %s", link.name, link.address,
                     "timed out" if timed_out else "left")
            return None
        if codes.redeem(link.name, typed):
            return await _add(process, auth, link, db)
        left = tries - used
        await wrong_code()
        log.info("link of a key to %s from %s: wrong code", link.name, link.address)
        write_line(process, f"\n{wrong_code_words(left)}\n")
    return None


async def _add(
    process: asyncssh.SSHServerProcess[bytes], auth: MoonSSHServer, link: KeyToLink,
    db: Database,
) -> Player | None:
    reason = await db.ban_reason("account", link.name)
    if reason is None:
        reason = await db.ban_reason("key", link.fingerprint)
    if reason is not None:
        write_line(process, f"\n{banned_words(kick=False, reason=printable(reason))}\n")
        return None
    try:
        owner = await db.add_key(link.name, link.fingerprint, link.public_key)
    except StoreFailure as error:
        log.error("could not add a key to %s: %s", link.name, error)
        db.alarm("keys", DatabaseFailed(DatabaseStep.NEW_KEY, str(error)))
        write_line(process, f"\n{KEY_NOT_SAVED}\n")
        return None
    if owner is not None and owner != link.name:  # taken by another name meanwhile
        write_line(process, f"\n{KEY_HAS_A_NAME}\n")
        return None
    log.info("key %s added to %s (code typed from %s)", link.fingerprint, link.name,
             link.address)
    write_line(process, f"\n{key_added_words(link.name)}\n")
    return auth.key_linked()
