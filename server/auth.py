"""Authentication: the SSH user name is the player's name, and keys decide who may use it.

- A valid, free name: the first key that logs in with it claims it.
- A claimed name: only one of its keys; anyone else is refused with a clear banner.
- An operator's name: only the keys in the config (or added later by that operator).
- A new key for a name that made a code in its keys dialog: let in to type the code
  (server/linking.py), which adds the key. A key that belongs to a name is never moved.
- No key at all: a guest-NNNN name when guests are on (keyboard-interactive, no prompt).

What an address did (failed logins, too many connections logging in at once, a ban that
reached it) refuses only what anyone could do from it: guests and new names. A key that
belongs to a player gets in whatever others on its address did; only its own ban stops it.

`validate_public_key` is also called for unsigned probes, so identity is only trusted
once `auth_completed` runs; the claim happens there.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Concatenate, ParamSpec

import asyncssh

from moon_tui.services import DatabaseFailed, DatabaseStep
from moon_tui.ui.account_words import refusal_words
from moon_tui.ui.door_words import (
    BUS_AWAY,
    DATABASE_PROBLEM,
    GUEST_MEANWHILE,
    GUESTS_OFF,
    KEY_HAS_A_NAME,
    address_kept_out_words,
    banned_words,
    key_banned_words,
    looks_like_operator_words,
    name_banned_words,
    name_has_a_key_words,
    name_not_saved_words,
)
from moon_tui.ui.plain import printable

from .config import ServerConfig
from .connlog import ConnectionLog
from .identity import (
    Player,
    confusable_with,
    fingerprint,
    guest_name,
    name_fault,
    openssh_line,
)
from .limits import GUEST_NAME_DRAWS, Gate
from .link_codes import LinkCodes
from .logtext import shown
from .store import Account, BanEntry, Database, StoreFailure

log = logging.getLogger(__name__)
P = ParamSpec("P")

MAX_ATTEMPTS_PER_CONNECTION = 12


def _database_guarded(
    answer: bool,
) -> Callable[
    [Callable[Concatenate[MoonSSHServer, P], Awaitable[bool]]],
    Callable[Concatenate[MoonSSHServer, P], Awaitable[bool]],
]:
    """An auth step whose database read fails says so (ERROR in the log, plain words to
    the player) and closes the connection, answering `answer` meanwhile (never "come in")."""

    def wrap(
        step: Callable[Concatenate[MoonSSHServer, P], Awaitable[bool]],
    ) -> Callable[Concatenate[MoonSSHServer, P], Awaitable[bool]]:
        @functools.wraps(step)
        async def guarded(server: MoonSSHServer, /, *args: P.args, **kwargs: P.kwargs) -> bool:
            try:
                return await step(server, *args, **kwargs)
            except StoreFailure as error:
                server._database_failed(error, DATABASE_PROBLEM)
                return answer

        return guarded

    return wrap


def minutes_left(ban: BanEntry, now: float) -> int:
    """Whole minutes until a kick ends (at least 1)."""
    return max(1, math.ceil(((ban.expires or now) - now) / 60))


def ban_words(ban: BanEntry, now: float) -> str:
    """What the banned (or kicked) player alone reads, with the operator's reason."""
    return banned_words(kick=ban.kick, reason=ban.reason, minutes_left=minutes_left(ban, now))


@dataclass(frozen=True, slots=True)
class GuestLogin:

    """Where a guest logged in from, and under which SSH user name."""

    address: str
    username: str


@dataclass(frozen=True, slots=True)
class AuthContext:
    """What every connection's auth needs from the server."""

    config: ServerConfig
    db: Database
    gate: Gate
    operator_keys: Mapping[str, frozenset[str]]
    """Operator name -> fingerprints of the keys named in the config."""
    online: Callable[[], frozenset[str]]
    guests: set[str] = field(default_factory=set)
    """Guest names given to connections still open: a guest waiting for its game to
    start is not online yet, and must not get a name that another guest will use."""
    link_codes: LinkCodes = field(default_factory=LinkCodes)
    """Codes made in keys dialogs, waiting for a login with a new key to type them."""
    held: Callable[[], frozenset[str]] = frozenset
    """Names the lobby's tables hold a place for (a seat kept during the grace)."""
    guest_seats: dict[str, GuestLogin] = field(default_factory=dict)
    """Guest name -> how it logged in, while anything holds the name: a guest's seat
    goes back only to the same address and SSH user name."""
    clock: Callable[[], float] = time.time
    """Wall-clock time, for bans that expire."""
    connection_log: ConnectionLog = field(default_factory=ConnectionLog)
    """Connections that never log in, summed up per address (not a line each)."""


@dataclass(frozen=True, slots=True)
class KeyToLink:
    """A login that proved it holds a key new to `name`: in once it types a code."""

    name: str
    fingerprint: str
    public_key: str
    operator: bool
    address: str

    def player(self) -> Player:
        return Player(
            self.name,
            operator=self.operator,
            fingerprint=self.fingerprint,
            public_key=self.public_key,
            address=self.address,
        )


class MoonSSHServer(asyncssh.SSHServer):
    """One per connection: limits, then authentication, then the player's identity."""

    def __init__(self, context: AuthContext) -> None:
        self._ctx = context
        self._conn: asyncssh.SSHServerConnection | None = None
        self._address = ""
        self._username = ""
        self._account: Account | None = None
        self._name_refusal: str | None = None
        self._banned_account: Account | None = None
        """The account of the banned name logging in (its keys are told the reason)."""
        self._ban_reason = ""
        self._key: asyncssh.SSHKey | None = None
        self._new_key = False
        self._guest = False
        self._banners: set[str] = set()
        self._kbdint_refused = False
        self._restriction: str | None = None
        """Why guests and new names from this address are refused now (None: they are not)."""
        self._failures = 0
        self._channel_timer: asyncio.TimerHandle | None = None
        self._silence_timer: asyncio.TimerHandle | None = None
        self._channel_opened = False
        self.player: Player | None = None
        self.link: KeyToLink | None = None
        """Set instead of `player` for a new key: it must type a code before it plays."""
        self.refusal: str | None = None
        """Why a login that passed authentication still cannot play (said on its channel)."""
        self.identified = asyncio.Event()
        """Set once `auth_completed` has settled `player` or `link` (both None: refused)."""

    # --- connection -----------------------------------------------------------------

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        conn.set_extra_info(moon_auth=self)
        peer = conn.get_extra_info("peername")
        self._address = str(peer[0]) if peer else "?"
        oldest = self._ctx.gate.opened(self._address, self)
        if isinstance(oldest, MoonSSHServer):
            oldest.close_for_capacity()
        wait = self._ctx.config.limits.version_timeout_seconds
        if wait > 0:
            self._silence_timer = asyncio.get_running_loop().call_later(
                wait, self._close_if_silent)

    def _close_if_silent(self) -> None:
        """A connection that has not said it speaks SSH (a client's first line) is no
        player's: closed before its login would time out. Silent sockets from everywhere
        cost memory and collection time while they stay (issue 36)."""
        self._silence_timer = None
        conn = self._conn
        if conn is not None and conn.get_extra_info("client_version") is None:
            conn.abort()

    def close_for_capacity(self) -> None:
        """Too many connections from this address are logging in: the oldest goes."""
        conn = self._conn
        if conn is not None:
            log.info("connection from %s closed: too many from there logging in at once",
                     self._address)
            asyncio.get_running_loop().call_soon(conn.abort)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._silence_timer is not None:
            self._silence_timer.cancel()
            self._silence_timer = None
        if self._channel_timer is not None:
            self._channel_timer.cancel()
            self._channel_timer = None
        if self.player is not None and self.player.guest:
            self._ctx.guests.discard(self.player.name)
        self._ctx.gate.closed(self._address, self)
        self._conn = None
        if self.player is None:  # one line per address per minute, not two per connection
            self._ctx.connection_log.closed_unlogged(self._address, exc)
            return
        who = self.player.name
        if exc is not None:  # e.g. "... not responding to keepalive"
            log.info("connection from %s closed for %s: %s", self._address, who, shown(exc))
        else:
            log.info("connection from %s closed for %s", self._address, who)

    def _banner(self, text: str) -> None:
        if text in self._banners or self._conn is None:
            return
        self._banners.add(text)
        try:  # it may quote a name or a ban's reason: no escape code reaches the client
            self._conn.send_auth_banner(printable(text).rstrip("\n").replace("\n", "\r\n")
                                        + "\r\n")
        except OSError:
            pass

    async def _failed_attempt(self) -> None:
        """Each refused key, name or guest try counts, here and for the address; a client
        that keeps trying is cut off."""
        self._failures += 1
        await self._ctx.gate.failed(self._address)
        if self._failures >= MAX_ATTEMPTS_PER_CONNECTION and self._conn is not None:
            self._conn.disconnect(
                asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, "too many login attempts"
            )

    def _database_failed(self, error: StoreFailure, message: str) -> None:
        """The database failed this login: log it as an error, raise the operators' alarm,
        tell the player in words (a banner while authenticating, else on their channel)."""
        log.error("database failure while %s from %s logged in: %s",
                  shown(self._username), self._address, error)
        self._ctx.db.alarm("logins", DatabaseFailed(DatabaseStep.LOGIN, str(error)))
        self.player = None
        self.refusal = message + "\n"
        conn = self._conn
        if conn is not None and not conn.get_extra_info("username"):  # still authenticating
            self._banner(message)
            conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, "server database problem")

    # --- authentication -------------------------------------------------------------

    @_database_guarded(answer=True)
    async def begin_auth(self, username: str) -> bool:
        self._username = username
        self._account = None
        self._name_refusal = None
        self._banned_account = None
        self._restriction = await self._address_restriction()
        if username in self._ctx.operator_keys:
            self._account = await self._ctx.db.account(username)
            return True
        fault = name_fault(username)
        problem = None if fault is None else refusal_words(fault, username)
        if problem is None:
            ban = await self._ctx.db.ban_entry("account", username)
            if ban is not None:
                # The reason is for the banned player alone, known by a key of theirs:
                # whoever else types the name only reads that it is banned.
                problem = name_banned_words(username, kick=ban.kick)
                self._ban_reason = ban_words(ban, self._ctx.db.clock())
                self._banned_account = await self._ctx.db.account(username)
            else:
                self._account = await self._ctx.db.account(username)
        if problem is None and self._account is None:
            operator = confusable_with(username, self._ctx.operator_keys)
            if operator is not None:
                problem = looks_like_operator_words(username)
        self._name_refusal = problem
        return True

    async def _address_restriction(self) -> str | None:
        now = self._ctx.clock()
        banned = await self._ctx.db.ban_entry("address", self._address, now=now)
        if banned is not None and banned.kick:  # the reason is for the kicked player alone
            return address_kept_out_words(minutes_left(banned, now))
        if banned is not None:  # the reason is for the banned player alone (bans.py)
            return address_kept_out_words(None)
        return await self._ctx.gate.restriction(self._address)

    def public_key_auth_supported(self) -> bool:
        return True

    @_database_guarded(answer=False)
    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if username != self._username:
            await self.begin_auth(username)
        self._key = None
        self._new_key = False
        self._guest = False
        print_ = fingerprint(key)
        banned = await self._ctx.db.ban_reason("key", print_)
        if banned is not None:
            self._banner(key_banned_words(banned))
            self._kbdint_refused = True  # and no way back in as a guest
            await self._failed_attempt()
            return False
        if username in self._ctx.operator_keys:
            allowed = set(self._ctx.operator_keys[username])
            if self._account is not None:
                allowed.update(self._account.fingerprints)
            if print_ not in allowed:
                return await self._new_key_for(print_, key)
        elif self._name_refusal is not None:
            account = self._banned_account
            if account is not None and print_ in account.fingerprints:  # the banned player
                self._banner(self._ban_reason)

            else:
                self._banner(self._name_refusal)
            self._kbdint_refused = True  # someone with a key wants a name: tell, don't guest
            await self._failed_attempt()
            return False
        elif self._account is not None and print_ not in self._account.fingerprints:
            return await self._new_key_for(print_, key)
        elif self._account is None and await self._ctx.db.key_owner(print_) is not None:
            self._banner(KEY_HAS_A_NAME)  # one key, one name: it cannot claim a second
            self._kbdint_refused = True  # someone with a key wants a name: tell, don't guest
            await self._failed_attempt()
            return False
        elif self._account is None and self._restriction is not None:
            # A new name is what anyone could claim: not counted, not let in now.
            self._banner(self._restriction)
            return False
        elif self._account is None and (
                refusal := await self._ctx.gate.claim_refusal(self._address)) is not None:
            self._banner(refusal)  # not a failure: the name may well be free later
            self._kbdint_refused = True  # someone with a key wants a name: tell, don't guest
            return False
        self._key = key
        return True

    async def _new_key_for(self, print_: str, key: asyncssh.SSHKey) -> bool:
        """A key that is not one of the name's: let in to type a code if it belongs to
        nobody, whether or not the name waits for one (`linking.py` answers the same
        either way: who could tell, could tell whose code to guess); refused otherwise.

        Wrong codes count as failed logins of the address they come from; once it must
        wait, its new keys are refused here like its guests, and the owner's waiting
        code stays theirs."""
        if await self._ctx.db.key_owner(print_) is None and self._restriction is None:
            self._key = key
            self._new_key = True
            return True
        if self._restriction is not None:
            self._banner(self._restriction)  # the address waits: not counted again
            self._kbdint_refused = True
            return False
        self._banner(KEY_HAS_A_NAME)
        self._kbdint_refused = True  # keyless would be refused too: one failure
        await self._failed_attempt()
        return False

    def kbdint_auth_supported(self) -> bool:
        # Offered even with guests off, so a keyless client is told why it cannot enter.
        return not self._kbdint_refused

    async def get_kbdint_challenge(  # asyncssh awaits it
        self, username: str, lang: str, submethods: str
    ) -> bool | tuple[str, str, str, list[tuple[str, bool]]]:
        refusal = self._guest_refusal(username)
        if refusal is not None:
            self._banner(refusal)
            self._kbdint_refused = True
            await self._failed_attempt()
            return False
        if self._restriction is not None:
            self._banner(self._restriction)
            self._kbdint_refused = True
            return False
        self._key = None
        self._guest = True
        return True  # no questions: a guest only needs to show up

    def _guest_refusal(self, username: str) -> str | None:
        if not self._ctx.config.guests:
            return GUESTS_OFF
        if username in self._ctx.operator_keys or self._account is not None:
            return name_has_a_key_words(username)
        return None

    def password_auth_supported(self) -> bool:
        return False

    async def auth_completed(self) -> None:
        try:
            await self._identify()
        except StoreFailure as error:
            self._database_failed(error, DATABASE_PROBLEM)
        finally:
            self.identified.set()
        if self.player is not None and self._conn is not None:
            self._ctx.gate.logged_in(self._address, self)
            if self._channel_opened:  # the client did not wait for the claim to be saved
                return
            timeout = self._ctx.config.limits.login_timeout_seconds
            self._channel_timer = asyncio.get_running_loop().call_later(
                timeout, self._no_channel, timeout
            )

    def channel_opened(self) -> None:
        """The player opened a channel (an SSH session): the connection is no longer a
        bare login."""
        self._channel_opened = True
        if self._channel_timer is not None:
            self._channel_timer.cancel()
            self._channel_timer = None

    def _no_channel(self, timeout: float) -> None:
        """A login that opened no channel (`ssh -N`) holds a connection for nothing."""
        self._channel_timer = None
        if self._conn is not None and self.player is not None:
            log.info("closed %s from %s: no session opened within %g s",
                     self.player.name, self._address, timeout)
            self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, "no session opened")

    async def _claim(self, name: str, print_: str, key: asyncssh.SSHKey) -> bool | None:
        """Claim `name` for `key`: False if someone was faster, None (the player told why)
        if the database could not save it."""
        try:
            return await self._ctx.db.claim(name, print_, openssh_line(key))
        except StoreFailure as error:
            message = name_not_saved_words(name)
            self._database_failed(error, message + (GUEST_MEANWHILE if self._ctx.config.guests
                                                    else ""))
            return None

    async def _identify(self) -> None:
        conn = self._conn
        if conn is None:
            return
        if self._guest:
            await self._identify_guest()
            return
        key = self._key
        if key is None:
            conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, "no identity")
            return
        name = self._username
        print_ = fingerprint(key)
        operator = name in self._ctx.operator_keys
        if self._new_key:
            # Proved it holds the key (a probe never gets here): now it must type a code.
            self.link = KeyToLink(name, print_, openssh_line(key), operator, self._address)
            log.info("login %s with new key %s from %s: asking for a code",
                     name, print_, self._address)
            return
        if self._account is None and not operator:
            refusal = await self._ctx.gate.claim_refusal(self._address)  # others were faster
            if refusal is not None:
                self.refusal = refusal + "\n"
                return
        claimed = await self._claim(name, print_, key) if self._account is None else False
        if claimed is None:
            return
        if claimed:
            await self._ctx.gate.claimed(self._address)
            log.info("account %s claimed by key %s from %s", name, print_, self._address)
        elif self._account is None and operator:
            # The config says whose name this is. Their key may belong to another name
            # (one of theirs, or pasted by someone before keys needed proof): a key never
            # moves, so the account is made without it.
            await self._ctx.db.open_account(name)
        else:
            if self._account is None:  # claimed by someone else since begin_auth?
                account = await self._ctx.db.account(name)
                if account is None or print_ not in account.fingerprints:
                    conn.disconnect(
                        asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                        f"the name '{name}' was just claimed by someone else",
                    )
                    return
            self._ctx.db.touch_soon(name, print_)
        self._ctx.db.note_address_soon(name, self._address)
        self.player = Player(
            name,
            operator=operator,
            fingerprint=print_,
            public_key=openssh_line(key),
            address=self._address,
        )
        log.info(
            "login %s%s with key %s from %s",
            name,
            " (operator)" if operator else "",
            print_,
            self._address,
        )

    def key_linked(self) -> Player:
        """The new key typed its code and was added: from now on this is a login."""
        if self.link is None:
            raise RuntimeError("no key is waiting for a code on this connection")
        self.player = self.link.player()
        self.link = None
        log.info("login %s%s with key %s from %s", self.player.name,
                 " (operator)" if self.player.operator else "", self.player.fingerprint,
                 self._address)
        return self.player

    async def _identify_guest(self) -> None:
        """A fresh guest name, or the held one this address and user name were given.

        A name is never given while anything holds it (a session, a connection, a seat
        kept during the grace), here or, on a club's bus, on another worker (the gate
        reserves it): whoever gets it lands in that seat, and a guest has nothing to
        prove who they are but where they come from."""
        ctx = self._ctx
        online, seated = ctx.online(), ctx.held()
        held = online | seated | ctx.guests
        gone = [n for n in ctx.guest_seats if n not in held]
        for name in gone:
            del ctx.guest_seats[name]
        ctx.gate.release_guest_names(gone)
        login = GuestLogin(self._address, self._username)
        back = next(
            (n for n, seen in ctx.guest_seats.items()
             if seen == login and n in seated and n not in online and n not in ctx.guests),
            None,
        )
        given = back or await self._free_guest_name(held)
        if given is None:
            return
        ctx.guests.add(given)
        ctx.guest_seats[given] = login
        self.player = Player(given, guest=True, address=self._address)
        log.info("login %s as guest from %s%s", given, self._address,
                 " (back to its seat)" if back else "")

    async def _free_guest_name(self, held: frozenset[str]) -> str | None:
        """A guest name drawn free of `held` and reserved by the gate; None (the guest
        told why) if the gate cannot reserve one now."""
        taken = set(held)
        for _ in range(GUEST_NAME_DRAWS):
            name = guest_name(taken)
            reserved = await self._ctx.gate.reserve_guest_name(name)
            if reserved:
                return name
            if reserved is None:
                break
            taken.add(name)  # another worker's guest has it: draw again
        log.warning("no guest name for %s: the gate could not reserve one", self._address)
        self.refusal = BUS_AWAY + "\n"
        return None

    # --- everything that is not a game session is refused -----------------------------

    def connection_requested(
        self, dest_host: str, dest_port: int, orig_host: str, orig_port: int
    ) -> bool:
        log.info("refused port forwarding to %s:%s from %s", shown(dest_host), dest_port,
                 self._address)
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        log.info("refused remote forwarding of port %s from %s", listen_port, self._address)
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        log.info("refused socket forwarding from %s", self._address)
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        log.info("refused socket forwarding from %s", self._address)
        return False
