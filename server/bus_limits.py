"""The club's budgets on the bus: what an address or a person may spend, counted across
the workers (`moon-server --workers N`), so that landing on N workers never buys N times
a budget.

- **`BusGate`** is a worker's `limits.Gate`: the same callers ask it, and its budgets
  (failed logins, sessions per address and per name, new names) are counted in Valkey:
  - failed logins: a hash per address (`moon:limits:failed:<address>`: count, strikes,
    blocked until, last), changed by one script with the same rule as `Gate.failed`;
    it expires an hour after the last failure (a quiet hour forgives);
  - sessions open: each worker keeps its own counts in a hash of its own
    (`moon:limits:sessions:<holder>`, fields `n:<name>`, `a:<address>`, `g:<address>`
    for guests), which expires unless renewed (`keep`): a dead worker's sessions leave
    the counts within `SESSIONS_TTL_MS`. One script sums every live worker's counts
    and counts the new session in the same step (two workers never both let in the
    last place). The hash is also counted here, in process: a bus that lost it (it
    restarted empty) gets it back whole at the next renewal;
  - guests' names: a name given to a guest is a field `r:<name>` of the same hash while
    the worker holds it (a connection, a session, a seat kept): one script gives it only
    if no live worker's hash has it, as a reservation or as a session's name (two
    guests arriving at once on two workers never draw one name);
  - new names (and the lobby's rates): a sorted set of times per address, per person,
    and one for the whole club, kept for the window (a sliding window, as in process).
- **`BusRates`** are the lobby's own rate limits over the same windows
  (`moon_tui.lobby.peers.SharedRates`): tables opened per person per hour.

Times on the bus are wall-clock (`time.time`): every worker of a club reads the same
clock (one host; several would need NTP). Names, addresses and persons are bounded
where they enter; a long one is hashed in a key anyway (`bounded`).

**A bus that does not answer** (within `BUS_SECONDS`) fails closed for strangers and
open for members: guests and new names are refused with words that say why (as when
their address must wait), and failures are not counted; a player with a key of their own
and an operator still log in, their session counted in this process alone (and put on
the bus at the next renewal); a lobby rate falls back to this worker's own count.

Connections still logging in (`connections_per_address`) and the capacity
(`max_sessions`, the guests' share) stay each worker's own: they guard its process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from moon_tui.lobby.chat import RateLimit
from moon_tui.ui.door_words import (
    BUS_AWAY,
    address_claims_words,
    address_full_words,
    blocked_words,
    guests_of_address_words,
    name_full_words,
    server_claims_words,
)

from .bus import still_running
from .limits import FORGIVEN_AFTER, HOUR, MAX_BACKOFF, Gate

if TYPE_CHECKING:
    from valkey.asyncio import Valkey

log = logging.getLogger(__name__)

BUS_SECONDS = 2.0
"""How long a login waits for the bus before it is treated as away."""
KEEP_SECONDS = 2.0
"""How often a worker renews its sessions' hash."""
SESSIONS_TTL_MS = 10_000
"""A worker's sessions leave the counts this long after it last renewed them."""
HOLDERS_KEY = "moon:limits:holders"
SESSIONS_PREFIX = "moon:limits:sessions:"
CLAIMS_KEY = "moon:limits:claims"
KEY_PART_MAX = 64


_SESSIONS_IN = """
local byname, byaddress, byguests = 0, 0, 0
for _, holder in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[1] .. holder
  if key ~= KEYS[2] and redis.call('EXISTS', key) == 0 then
    redis.call('SREM', KEYS[1], holder)
  else
    local got = redis.call('HMGET', key, ARGV[2], ARGV[3], ARGV[4])
    byname = byname + (tonumber(got[1]) or 0)
    byaddress = byaddress + (tonumber(got[2]) or 0)
    byguests = byguests + (tonumber(got[3]) or 0)
  end
end
if byname >= tonumber(ARGV[5]) then return {1, byname} end
if ARGV[8] ~= '1' then
  if byaddress >= tonumber(ARGV[6]) then return {2, byaddress} end
  if ARGV[9] == '1' and byguests >= tonumber(ARGV[7]) then return {3, byguests} end
end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
if ARGV[9] == '1' then redis.call('HINCRBY', KEYS[2], ARGV[4], 1) end
redis.call('PEXPIRE', KEYS[2], ARGV[10])
redis.call('SADD', KEYS[1], ARGV[11])
return {0, 0}
"""
"""Sum every live worker's sessions of the name, the address and its guests (dropping
dead workers from the set); within the limits, count one more in this worker's hash."""

_SESSIONS_OUT = """
for i = 1, #ARGV do
  if redis.call('HINCRBY', KEYS[1], ARGV[i], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0
"""

_GUEST_NAME = """
for _, holder in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[1] .. holder
  if key ~= KEYS[2] and redis.call('EXISTS', key) == 0 then
    redis.call('SREM', KEYS[1], holder)
  elseif redis.call('HEXISTS', key, ARGV[2]) == 1 or redis.call('HEXISTS', key, ARGV[3]) == 1 then
    return 0
  end
end
redis.call('HSET', KEYS[2], ARGV[2], 1)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[1], ARGV[5])
return 1
"""
"""Whether a guest name (ARGV[2], its reservation field; ARGV[3], its sessions' field) is
free on every live worker; if so, reserve it in this worker's hash."""

_FAILED = """
local f = redis.call('HMGET', KEYS[1], 'count', 'strikes', 'until', 'last')
local now = tonumber(ARGV[1])
local count, strikes, till = tonumber(f[1]) or 0, tonumber(f[2]) or 0, tonumber(f[3]) or 0
local last = tonumber(f[4])
if last == nil or now - last > tonumber(ARGV[5]) then count, strikes, till = 0, 0, 0 end
count = count + 1
if count >= tonumber(ARGV[2]) then
  count = 0
  till = now + math.min(tonumber(ARGV[3]) * 2 ^ strikes, tonumber(ARGV[4]))
  strikes = strikes + 1
end
redis.call('HSET', KEYS[1], 'count', count, 'strikes', strikes, 'until', tostring(till),
           'last', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[5]) * 1000))
return 0
"""
"""`Gate.failed`'s rule: the threshold makes the address wait, doubling on each repeat;
an hour without a failure starts from a clean slate."""

_WINDOW = """
local now, window, count = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tostring(now - window))
if count > 0 then
  local n = redis.call('ZCARD', KEYS[1])
  if n >= count then
    local oldest = redis.call('ZRANGE', KEYS[1], n - count, n - count, 'WITHSCORES')
    return tostring(tonumber(oldest[2]) + window - now)
  end
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
end
return '0'
"""
"""A sliding window: forget what is older than the window; with `count` events in it,
the seconds until one more fits; else count one (ARGV[4], a unique member) unless
only asked (''). A count of 0 counts without looking."""


def bounded(part: str) -> str:
    """`part` as a piece of a key: as it is if short and printable, else its hash."""
    if len(part) <= KEY_PART_MAX and part.isprintable():
        return part
    return "#" + hashlib.sha256(part.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def failed_key(address: str) -> str:
    return f"moon:limits:failed:{bounded(address)}"


def claims_key(address: str) -> str:
    return f"moon:limits:claims:{bounded(address)}"


def rate_key(kind: str, who: str) -> str:
    return f"moon:limits:rate:{kind}:{bounded(who)}"


class Windows:
    """Sliding windows on the bus, each event a unique member of a sorted set."""

    def __init__(self, bus: Valkey, holder: str) -> None:
        self._script = bus.register_script(_WINDOW)
        self._holder = holder
        self._events = itertools.count()

    async def wait(self, key: str, now: float, window: float, count: int, *,
                   spend: bool) -> float:
        """Seconds until `key` has room for one more event (0: now), counting one if
        `spend` and there is room (`count` 0: counted without looking)."""
        member = f"{now!r}:{self._holder}:{next(self._events)}" if spend else ""
        answer = await self._script(keys=[key], args=[repr(now), repr(window), count, member])
        return float(answer)


@dataclass
class BusGate(Gate):
    """A worker's gate: its budgets counted on the bus (`attach` it before it opens)."""

    holder: str = ""
    """This worker process on the bus (its sessions' hash)."""
    wall: Callable[[], float] = time.time
    bus: Valkey | None = None
    _scripts: dict[str, Any] = field(default_factory=dict)
    _windows: Windows | None = None
    _dirty: bool = False
    """A change to this worker's sessions did not reach the bus: the next renewal
    writes them whole."""
    away: int = 0
    """Questions the bus did not answer (each logged)."""

    def attach(self, bus: Valkey, holder: str) -> None:
        self.bus, self.holder = bus, holder
        self._scripts = {"in": bus.register_script(_SESSIONS_IN),
                         "out": bus.register_script(_SESSIONS_OUT),
                         "failed": bus.register_script(_FAILED),
                         "guest": bus.register_script(_GUEST_NAME)}
        self._windows = Windows(bus, holder)

    @property
    def sessions_key(self) -> str:
        return SESSIONS_PREFIX + self.holder

    async def _ask(self, call: Awaitable[Any]) -> Any:
        """`call`'s answer, or `BusAway` if the bus does not give it in time."""
        try:
            return await asyncio.wait_for(call, BUS_SECONDS)
        except Exception as error:  # noqa: BLE001 - any failure of the bus is the same
            self.away += 1
            log.warning("bus: a login limit could not be checked: %s", error)
            raise BusAway from error

    # --- failed logins -------------------------------------------------------------------

    async def restriction(self, address: str) -> str | None:
        assert self.bus is not None, "the gate is not attached to the bus"
        try:
            until = await self._ask(
                self.bus.hget(failed_key(address), "until"))  # type: ignore[arg-type]
        except BusAway:
            return BUS_AWAY
        now = self.wall()
        if until is not None and float(until) > now:
            return blocked_words(int(float(until) - now) + 1)
        return self.crowded(address)

    async def failed(self, address: str) -> None:
        limits = self.limits
        with contextlib.suppress(BusAway):  # not counted: strangers wait meanwhile anyway
            await self._ask(self._scripts["failed"](
                keys=[failed_key(address)],
                args=[repr(self.wall()), limits.failed_logins_per_address,
                      repr(limits.failure_backoff_seconds), repr(MAX_BACKOFF),
                      repr(FORGIVEN_AFTER)]))

    # --- sessions per address and per name -----------------------------------------------

    async def admit(self, name: str, address: str, *, guest: bool = False,
                    operator: bool = False) -> str | None:
        if not operator and (refusal := self.full(guest=guest)) is not None:
            return refusal
        limits = self.limits
        try:
            answer = await self._ask(self._scripts["in"](
                keys=[HOLDERS_KEY, self.sessions_key],
                args=[SESSIONS_PREFIX, *_fields(name, address),
                      limits.sessions_per_name_max, limits.sessions_per_address_max,
                      limits.guest_sessions_per_address_max, int(operator), int(guest),
                      SESSIONS_TTL_MS, self.holder]))
        except BusAway:
            if guest:
                return BUS_AWAY
            self._dirty = True  # counted here alone: the next renewal tells the bus
            return await super().admit(name, address, guest=guest, operator=operator)
        why, count = int(answer[0]), int(answer[1])
        if why == 1:
            return name_full_words(name, count)
        if why == 2:
            return address_full_words(limits.sessions_per_address_max)
        if why == 3:
            return guests_of_address_words(limits.guest_sessions_per_address_max)
        self.count_in(name, address, guest=guest)
        return None

    async def left(self, name: str, address: str, *, guest: bool = False) -> None:
        self.count_out(name, address, guest=guest)
        by_name, by_address, of_guests = _fields(name, address)
        try:
            await self._ask(self._scripts["out"](
                keys=[self.sessions_key],
                args=[by_name, by_address, *((of_guests,) if guest else ())]))
        except BusAway:
            self._dirty = True

    def counts(self) -> dict[str, int]:
        """This worker's sessions as its hash on the bus holds them."""
        held: dict[str, int] = {}
        for prefix, counter in (("n:", self.by_name), ("a:", self.by_address),
                                ("g:", self.guests_by_address)):
            for key, count in counter.items():
                held[prefix + bounded(key)] = count
        for name in self.guest_names:
            held[_reserved(name)] = 1
        return held

    async def renew(self) -> None:
        """Keep this worker's sessions on the bus; write them whole if the bus lost
        them (it restarted empty) or missed a change."""
        assert self.bus is not None, "the gate is not attached to the bus"
        key = self.sessions_key
        async with self.bus.pipeline(transaction=False) as pipe:
            pipe.pexpire(key, SESSIONS_TTL_MS)
            pipe.sadd(HOLDERS_KEY, self.holder)
            kept, _ = await pipe.execute()
        counts = self.counts()
        if not self._dirty and (kept or not counts):
            return
        self._dirty = False
        async with self.bus.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if counts:
                pipe.hset(key, mapping=counts)
                pipe.pexpire(key, SESSIONS_TTL_MS)
            await pipe.execute()

    async def keep(self) -> None:
        """Renew every `KEEP_SECONDS` until cancelled."""
        while True:
            try:
                await self.renew()
            except Exception as error:  # noqa: BLE001 - the bus is away: next round
                self._dirty = True
                log.warning("bus: this worker's sessions could not be renewed: %s", error)
            still_running()
            await asyncio.sleep(KEEP_SECONDS)

    async def close(self) -> None:
        """This worker stops: its sessions leave the counts now."""
        if self.bus is not None:
            with contextlib.suppress(Exception):
                await self.bus.delete(self.sessions_key)
                await self.bus.srem(HOLDERS_KEY, self.holder)  # type: ignore[misc]

    # --- guests' names ---------------------------------------------------------------

    async def reserve_guest_name(self, name: str) -> bool | None:
        if name in self.guest_names:
            return False
        try:
            free = await self._ask(self._scripts["guest"](
                keys=[HOLDERS_KEY, self.sessions_key],
                args=[SESSIONS_PREFIX, _reserved(name), _fields(name, "")[0],
                      SESSIONS_TTL_MS, self.holder]))
        except BusAway:
            return None
        if not int(free):
            return False
        self.guest_names.add(name)
        return True

    def release_guest_names(self, names: Iterable[str]) -> None:
        """Released on the bus at the next renewal, which writes the hash whole."""
        gone = self.guest_names.intersection(names)
        if gone:
            super().release_guest_names(gone)
            self._dirty = True

    # --- new names -------------------------------------------------------------------

    async def claim_refusal(self, address: str) -> str | None:
        assert self._windows is not None, "the gate is not attached to the bus"
        limits, now = self.limits, self.wall()
        try:
            wait = await self._ask(self._windows.wait(
                claims_key(address), now, HOUR, limits.new_names_per_address_per_hour,
                spend=False))
            if wait > 0:
                return address_claims_words(int(wait) + 1)
            wait = await self._ask(self._windows.wait(
                CLAIMS_KEY, now, HOUR, limits.new_names_per_hour, spend=False))
        except BusAway:
            return BUS_AWAY
        return server_claims_words(int(wait) + 1) if wait > 0 else None

    async def claimed(self, address: str) -> None:
        assert self._windows is not None, "the gate is not attached to the bus"
        now = self.wall()
        with contextlib.suppress(BusAway):
            for key in (claims_key(address), CLAIMS_KEY):
                await self._ask(self._windows.wait(key, now, HOUR, 0, spend=True))


class BusAway(Exception):
    """The bus did not answer a question of the limits in time."""


def _reserved(name: str) -> str:
    """A guest name's reservation field in a worker's sessions hash."""
    return f"r:{bounded(name)}"


def _fields(name: str, address: str) -> tuple[str, str, str]:
    """A session's fields in a worker's sessions hash: its name, its address, and its
    address's guests."""
    return f"n:{bounded(name)}", f"a:{bounded(address)}", f"g:{bounded(address)}"


class BusRates:
    """The lobby's own rate limits counted on the bus (`moon_tui.lobby.peers.SharedRates`);
    each worker's own count while the bus is away."""

    def __init__(self, bus: Valkey, holder: str,
                 wall: Callable[[], float] = time.time) -> None:
        self._windows = Windows(bus, holder)
        self._wall = wall
        self._local: dict[tuple[str, int, float], RateLimit] = {}

    async def spend(self, kind: str, who: str, count: int, window: float) -> float:
        try:
            return await asyncio.wait_for(self._windows.wait(
                rate_key(kind, who), self._wall(), window, count, spend=True), BUS_SECONDS)
        except Exception as error:  # noqa: BLE001 - the bus is away: this worker counts
            log.warning("bus: a lobby rate counted on this worker alone: %s", error)
            local = self._local.setdefault((kind, count, window), RateLimit(count, window))
            local.forget_idle()
            return 0.0 if local.allow(who) else local.wait(who)
