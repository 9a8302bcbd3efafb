"""An operator's ban, made to last: the name, its keys and its addresses, in the database.

The lobby hears the operator (`/ban name reason`) and reports the ban here; from then on
logins are refused by `auth.py`, which reads what is written here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

import asyncssh

from moon_tui.ui.plain import printable

from .auth import GuestLogin
from .config import Limits
from .game_session import write_farewell
from .identity import GUEST_PREFIX, Player, name_problem
from .logtext import shown
from .registry import SessionRegistry
from .store import Database

log = logging.getLogger(__name__)

DAY = 86400.0


REASON_MAX_CHARS = 300


def ban_reason_text(reason: str) -> str:
    """A ban's reason as kept and shown: one line of plain text (no escape codes,
    clipboard writes or bidi overrides: it reaches the banned player's terminal)."""
    text = " ".join(printable(reason, lines=False).split())[:REASON_MAX_CHARS]
    return text or "banned by an operator"


class Bans:
    """Writes bans and reads them for players already past their login."""

    def __init__(self, db: Database, sessions: SessionRegistry, limits: Limits) -> None:
        self._db = db
        self._sessions = sessions
        self._limits = limits
        self.clock: Callable[[], float] = time.time
        """Wall-clock time, for bans that expire (tests move it on)."""
        self.guest_logins: Mapping[str, GuestLogin] = {}
        """Guest name -> how it logged in: the auth context's, set when the server starts."""

    async def ban(self, name: str, reason: str) -> None:
        """The lobby reports an operator's ban: make it last, and refuse new logins.

        The name and its keys are banned for good. The addresses it last used are banned
        for `address_ban_days` from letting in guests and new names (so the player does
        not come straight back as a guest or under a new key); players there with a key
        of their own still get in."""
        reason = ban_reason_text(reason)
        live = self._sessions.of(name)
        guest = name.startswith(GUEST_PREFIX)
        db = self._db
        account = await db.account(name) if name_problem(name) is None else None
        if not guest:
            await db.ban("account", name, reason)
        keys = set(account.fingerprints if account else ())
        keys.update(s.player.fingerprint for s in live if s.player.fingerprint)
        for key in keys:
            await db.ban("key", key, reason)
        addresses = {s.player.address for s in live if s.player.address}
        now = self.clock()
        days = self._limits.address_ban_days
        seen = self.guest_logins.get(name)
        if seen is not None:
            addresses.add(seen.address)
        if not guest:
            addresses.update(await db.addresses_since(name, now - days * DAY))
        for address in addresses if days > 0 else ():
            await db.ban("address", address, reason, until=now + days * DAY)
        log.info("ban %s (%d keys, %d addresses for %g days): %s",
                 shown(name), len(keys), len(addresses), days, shown(reason))
        for session in live:
            session.end(f"You were banned from this server: {reason}")

    async def refuse_if_banned(
        self, process: asyncssh.SSHServerProcess[bytes], player: Player
    ) -> bool:
        """A ban made while the player looked at the banner (their login was checked
        before): say so on their channel and answer True."""
        reason = await self._db.ban_reason("account", player.name)
        if reason is None and player.fingerprint:
            reason = await self._db.ban_reason("key", player.fingerprint)
        if reason is not None:
            write_farewell(process, f"You were banned from this server: {reason}")
        return reason is not None
