"""An operator's ban or kick, made to last: the name, its keys and its addresses, in the
database, each row noting whom it was for (an unban lifts them all).

The lobby hears the operator (`ban name reason`, `kick bob 30m rude`, `unban bob`) and
reports it here; from then on logins are refused by `auth.py`, which reads what is
written here. A ban is for good (its addresses for `address_ban_days`); a kick keeps the
name, and guests and new names from its addresses, out for the minutes the operator gave.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

import asyncssh

from moon_tui.services import BanNotSaved
from moon_tui.ui.door_words import banned_now_words
from moon_tui.ui.plain import printable

from .auth import GuestLogin, ban_words
from .config import Limits
from .game_session import write_farewell
from .identity import GUEST_PREFIX, Player, name_fault
from .logtext import shown
from .registry import SessionRegistry
from .store import BanKind, Database, StoreFailure

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
        """Guest name -> how it logged in: the auth context's (`read_guests_from`)."""

    def read_guests_from(self, guest_logins: Mapping[str, GuestLogin]) -> None:
        """How each guest logged in, kept by the logins (the server wires it at start)."""
        self.guest_logins = guest_logins

    async def ban(self, name: str, reason: str) -> None:
        """The lobby reports an operator's ban: make it last (`_ban`); a disk that refuses
        it leaves the player out now, and the operators are told it will not last."""
        try:
            await self._ban(name, reason)
        except StoreFailure as error:
            self._not_kept(BanNotSaved(False, name, str(error)))
            raise

    async def kick(self, name: str, reason: str, minutes: float, by: str) -> None:
        """As `_kick`; a disk that refuses it is told to the operators."""
        try:
            await self._kick(name, reason, minutes, by)
        except StoreFailure as error:
            self._not_kept(BanNotSaved(True, name, str(error)))
            raise

    def _not_kept(self, alarm: BanNotSaved) -> None:
        self._db.alarm(f"{'kick' if alarm.kick else 'ban'} {alarm.name}", alarm)

    async def _ban(self, name: str, reason: str) -> None:
        """Make an operator's ban last, and refuse new logins.

        The name and its keys are banned for good. The addresses it last used are banned
        for `address_ban_days` from letting in guests and new names (so the player does
        not come straight back as a guest or under a new key); players there with a key
        of their own still get in."""
        reason = ban_reason_text(reason)
        live = self._sessions.of(name)
        guest = name.startswith(GUEST_PREFIX)
        db = self._db
        account = await db.account(name) if name_fault(name) is None else None
        if not guest:
            await db.ban("account", name, reason, name=name)
        keys = set(account.fingerprints if account else ())
        keys.update(s.player.fingerprint for s in live if s.player.fingerprint)
        for key in keys:
            await db.ban("key", key, reason, name=name)
        addresses = {s.player.address for s in live if s.player.address}
        now = self.clock()
        days = self._limits.address_ban_days
        seen = self.guest_logins.get(name)
        if seen is not None:
            addresses.add(seen.address)
        if not guest:
            addresses.update(await db.addresses_since(name, now - days * DAY))
        for address in addresses if days > 0 else ():
            await db.ban("address", address, reason, until=now + days * DAY, name=name)
        log.info("ban %s (%d keys, %d addresses for %g days): %s",
                 shown(name), len(keys), len(addresses), days, shown(reason))
        for session in live:
            session.end(banned_now_words(reason))

    async def _kick(self, name: str, reason: str, minutes: float, by: str) -> None:
        """The lobby reports an operator's kick (the session was ended): keep the name
        out for `minutes`, and guests and new names from the addresses its sessions
        use (a guest would come straight back under a new number). A longer ban already
        there stays as it is."""
        reason = " ".join(printable(reason, lines=False).split())[:REASON_MAX_CHARS]
        now = self.clock()
        until = now + minutes * 60
        db = self._db
        rows: list[tuple[BanKind, str]] = []
        if not name.startswith(GUEST_PREFIX) and name_fault(name) is None:
            rows.append(("account", name))
        addresses = {s.player.address for s in self._sessions.of(name) if s.player.address}
        seen = self.guest_logins.get(name)
        if seen is not None:
            addresses.add(seen.address)
        rows.extend(("address", address) for address in sorted(addresses))
        for kind, value in rows:
            held = await db.ban_entry(kind, value, now=now)
            if held is not None and (held.expires is None or held.expires >= until):
                continue
            await db.ban(kind, value, reason, until=until, name=name, kick=True, by=by)
        log.info("kick %s by %s for %g minutes (%d addresses): %s", shown(name), shown(by),
                 minutes, len(addresses), shown(reason))

    async def unban(self, name: str) -> bool:
        """Lift every ban and kick made for `name`; False when there was none."""
        lifted = await self._db.unban(name)
        if lifted:
            log.info("unban %s (%d entries)", shown(name), lifted)
        return lifted > 0

    async def refuse_if_banned(
        self, process: asyncssh.SSHServerProcess[bytes], player: Player
    ) -> bool:
        """A ban made while the player looked at the banner (their login was checked
        before): say so on their channel and answer True."""
        ban = await self._db.ban_entry("account", player.name)
        if ban is None and player.fingerprint:
            ban = await self._db.ban_entry("key", player.fingerprint)
        if ban is not None:
            write_farewell(process, ban_words(ban, self._db.clock()))
        return ban is not None

