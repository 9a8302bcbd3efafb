"""Per-address and total limits on logging in, and how long a misbehaving address waits.

asyncssh has no built-in limit on connections or login attempts; these counters are the
server's own. Everything is in memory: a restart forgives (bans are in the database).

What an address did only ever slows down what anyone could do from it: guests and new
names. A key that already belongs to a player is never refused for what others on its
address did (a club behind one NAT is one address); see `MoonSSHServer`.

The budgets (failed logins, sessions per address and per name, new names) and the
guests' names are `Gate`'s async methods: a worker of a club on a bus uses
`bus_limits.BusGate`, which counts them across the workers; the code that asks is the
same. Connections still logging in, and the server's whole capacity (`max_sessions`,
the guests' share), are each process's own.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from moon_tui.ui.door_words import (
    SERVER_FULL_FOR_GUESTS,
    address_claims_words,
    address_full_words,
    blocked_words,
    crowded_words,
    guests_of_address_words,
    name_full_words,
    server_claims_words,
    server_full_words,
)

from .config import Limits

MAX_BACKOFF = 15 * 60.0
FORGIVEN_AFTER = 60 * 60.0
"""An address with no failed login for this long starts again from a clean slate."""
HOUR = 3600.0
GUEST_NAME_DRAWS = 5
"""Guest names drawn at most for one guest: each one a worker's guest took meanwhile."""
_REMEMBERED = 10_000
"""Addresses with failures kept before the quiet ones are forgotten."""


@dataclass
class _Failures:
    count: int = 0
    strikes: int = 0
    blocked_until: float = 0.0
    last: float = 0.0


@dataclass
class Gate:
    """Counts connections (those still logging in apart) and refused login attempts per
    address; says which addresses must wait, and why. Its async methods are the budgets
    (the module's docstring)."""

    limits: Limits
    clock: Callable[[], float] = time.monotonic
    connections: Counter[str] = field(default_factory=Counter)
    """Every open connection, by address."""
    pending: dict[str, dict[Hashable, None]] = field(default_factory=dict)
    """Connections not logged in yet, by address, oldest first."""
    sessions: int = 0
    """Sessions open (`admit` to `left`), over all players."""
    guests: int = 0
    by_address: Counter[str] = field(default_factory=Counter)
    guests_by_address: Counter[str] = field(default_factory=Counter)
    by_name: Counter[str] = field(default_factory=Counter)
    _failures: dict[str, _Failures] = field(default_factory=dict)
    _claims: deque[float] = field(default_factory=deque)
    """When each name of the last hour was claimed, oldest first."""
    _claims_by_address: dict[str, deque[float]] = field(default_factory=dict)
    guest_names: set[str] = field(default_factory=set)
    """Names this process gave to guests and still holds for them (`reserve_guest_name`)."""

    # --- connections ----------------------------------------------------------------

    def logging_in(self, address: str) -> int:
        """How many connections from `address` have not logged in yet."""
        return len(self.pending.get(address, ()))

    def opened(self, address: str, connection: Hashable) -> Hashable | None:
        """Count a new connection; past `connections_per_address_max` still logging in
        from its address, returns the oldest of them, to be closed.

        The oldest goes, not the newest: a flood of silent sockets then only delays a
        player's login instead of refusing it, unless it outruns a login's few round
        trips (and the server spent next to nothing on the sockets it closed)."""
        self.connections[address] += 1
        waiting = self.pending.setdefault(address, {})
        waiting[connection] = None
        if len(waiting) > self.limits.connections_per_address_max:
            oldest = next(iter(waiting))
            del waiting[oldest]
            return oldest
        return None

    def logged_in(self, address: str, connection: Hashable) -> None:
        """The connection authenticated: it no longer counts as one logging in."""
        self._done_waiting(address, connection)

    def closed(self, address: str, connection: Hashable) -> None:
        """A connection ended; one that never logged in is not a failure by itself
        (a silent socket, one closed for capacity): refused attempts are counted apart."""
        self.connections[address] -= 1
        if self.connections[address] <= 0:
            del self.connections[address]
        self._done_waiting(address, connection)

    def _done_waiting(self, address: str, connection: Hashable) -> None:
        waiting = self.pending.get(address)
        if waiting is not None:
            waiting.pop(connection, None)
            if not waiting:
                del self.pending[address]

    # --- what an address may do -------------------------------------------------------

    async def restriction(self, address: str) -> str | None:
        """Why guests and new names from `address` are refused right now, or None."""
        failures = self._failures.get(address)
        now = self.clock()
        if failures is not None and failures.blocked_until > now:
            return blocked_words(int(failures.blocked_until - now) + 1)
        return self.crowded(address)

    def crowded(self, address: str) -> str | None:
        """Why `address` waits for its connections still logging in here, or None."""
        if self.logging_in(address) > self.limits.connections_per_address:
            return crowded_words(self.limits.connections_per_address)
        return None

    async def failed(self, address: str) -> None:
        """One refused key, name or guest try: enough of them make the address wait.

        A quiet hour forgives; a login, even with a good key, does not
        (or anyone with a name of their own could wipe their address's record)."""
        now = self.clock()
        failures = self._failures.get(address)
        if failures is None or now - failures.last > FORGIVEN_AFTER:
            if len(self._failures) >= _REMEMBERED:
                self._forget_quiet(now)
            failures = self._failures[address] = _Failures()
        failures.last = now
        failures.count += 1
        if failures.count >= self.limits.failed_logins_per_address:
            failures.count = 0
            backoff = self.limits.failure_backoff_seconds * 2**failures.strikes
            failures.strikes += 1
            failures.blocked_until = now + min(backoff, MAX_BACKOFF)

    def _forget_quiet(self, now: float) -> None:
        for address, failures in list(self._failures.items()):
            if now - failures.last > FORGIVEN_AFTER and failures.blocked_until <= now:
                del self._failures[address]

    # --- places: sessions per address, per name, and the guests' share ---------------

    async def admit(self, name: str, address: str, *, guest: bool = False,
                    operator: bool = False) -> str | None:
        """Why `name` from `address` may not open a session now, or None, counting it
        (call `left` when it ends).

        300 guests from one address, or one name with 300 connections, filled the server
        for everyone (issue 36): one address holds at most `sessions_per_address_max`
        sessions (guests fewer), a name `sessions_per_name_max`, guests leave
        `places_kept_for_members` free, and an operator always gets in (one name is
        still bounded)."""
        limits = self.limits
        if self.by_name[name] >= limits.sessions_per_name_max:
            return name_full_words(name, self.by_name[name])
        if not operator:
            refusal = self.full(guest=guest)
            if refusal is not None:
                return refusal
            if self.by_address[address] >= limits.sessions_per_address_max:
                return address_full_words(limits.sessions_per_address_max)
            if guest and self.guests_by_address[address] >= \
                    limits.guest_sessions_per_address_max:
                return guests_of_address_words(limits.guest_sessions_per_address_max)
        self.count_in(name, address, guest=guest)
        return None

    def full(self, *, guest: bool) -> str | None:
        """Why this process takes no more sessions (of a guest), or None."""
        limits = self.limits
        if self.sessions >= limits.max_sessions:
            return server_full_words(limits.max_sessions)
        if guest and self.guests >= limits.max_sessions - limits.places_kept_for_members:
            return SERVER_FULL_FOR_GUESTS
        return None

    def count_in(self, name: str, address: str, *, guest: bool) -> None:
        """Count a session let in (`count_out` when it ends)."""
        self.sessions += 1
        self.by_name[name] += 1
        self.by_address[address] += 1
        if guest:
            self.guests += 1
            self.guests_by_address[address] += 1

    async def left(self, name: str, address: str, *, guest: bool = False) -> None:
        """A session that `admit` let in has ended."""
        self.count_out(name, address, guest=guest)

    def count_out(self, name: str, address: str, *, guest: bool) -> None:
        self.sessions -= 1
        for counter, key in ((self.by_name, name), (self.by_address, address),
                             *(((self.guests_by_address, address),) if guest else ())):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]
        if guest:
            self.guests -= 1

    # --- guests' names -------------------------------------------------------------------

    async def reserve_guest_name(self, name: str) -> bool | None:
        """Hold `name` for a guest of this process: False if it is held already (on a
        club's bus, by any of its workers), None if that cannot be told now (the bus is
        away). A name is only held here until `release_guest_names`."""
        if name in self.guest_names:
            return False
        self.guest_names.add(name)
        return True

    def release_guest_names(self, names: Iterable[str]) -> None:
        """Nothing here holds those guest names any more (no connection, session or seat)."""
        self.guest_names.difference_update(names)

    # --- new names per address and per hour ----------------------------------------

    async def claim_refusal(self, address: str) -> str | None:
        """Why a new name may not be claimed from `address` now, or None.

        3,000 names were claimed in 103 s from one address with fresh keys (issue 36)."""
        now = self.clock()
        limits = self.limits
        recent = self._claims_by_address.get(address)
        if recent is not None:
            _forget_before(recent, now - HOUR)
            if len(recent) >= limits.new_names_per_address_per_hour:
                return address_claims_words(int(recent[0] + HOUR - now) + 1)
        _forget_before(self._claims, now - HOUR)
        if len(self._claims) >= limits.new_names_per_hour:
            return server_claims_words(int(self._claims[0] + HOUR - now) + 1)
        return None

    async def claimed(self, address: str) -> None:
        """A new name was claimed from `address`."""
        now = self.clock()
        if address not in self._claims_by_address and \
                len(self._claims_by_address) >= _REMEMBERED:
            for old in [a for a, t in self._claims_by_address.items()
                        if not t or t[-1] <= now - HOUR]:
                del self._claims_by_address[old]
        self._claims_by_address.setdefault(address, deque()).append(now)
        self._claims.append(now)


def _forget_before(times: deque[float], since: float) -> None:
    while times and times[0] <= since:
        times.popleft()
