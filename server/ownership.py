"""Which worker owns which table: a lease on the bus, an epoch in the database.

With several workers (`moon-server --workers N`) a table lives on one worker, the only
writer of its game and its journal. Two things make that so:

- **the lease**, on the bus: the key `moon:table:<id>:owner` holds the owner's worker
  name, set only if absent (`SET NX PX`) and for `LEASE_MS`; the owner renews it every
  `RENEW_MS`. A worker that dies (or is paused, or cut off from the bus) stops renewing
  and the lease lapses; another worker may then take the table.
- **the epoch**, in the database (`journal.SqliteJournal.claim`): each new owner numbers
  its ownership one past the last, and every journal write carries that number and is
  checked in its transaction. An owner that lost its lease without knowing it yet can
  no longer write: the lease keeps two workers from both running a table in the normal
  course, the epoch makes the journal safe when that fails (a fencing token).

`OwnedJournal` puts both in front of the worker's journal: the lobby sees a plain
`TableJournal`. It restores only the saved tables whose lease it wins, and claims a new
table (lease, then epoch) before its first write.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from moon_tui.lobby.journal import JournalEntry, SavedTable, TableGone

from .bus import still_running
from .journal import SqliteJournal, StaleOwner

if TYPE_CHECKING:
    from valkey.asyncio import Valkey

log = logging.getLogger(__name__)

LEASE_MS = 10_000
"""How long a lease lasts unless renewed: a dead worker's tables are free this long after
its last renewal (the issue asks for a takeover within 10 s of the lease lapsing)."""
RENEW_MS = 3_000
"""How often the owner renews its leases: three renewals may fail before one lapses."""
TAKE_OVER_SECONDS = 2.0
"""How often each worker looks for saved tables that no worker holds (a dead worker's):
one is taken over once it has been seen free for two renewals' time (`RENEW_MS`): its
owner, alive after a bus that restarted empty, takes it back first)."""

_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""
"""Renews each lease (KEYS) still held by ARGV[1]: the positions of those it lost."""
_TAKE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] and string.sub(holder, 1, #ARGV[3]) ~= ARGV[3] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
"""Takes the lease KEYS[1] for ARGV[1] if nobody holds it, or if a process of the same
worker place (its name begins with ARGV[3], "w0.") holds it: a predecessor, which the
supervisor only replaces once it has ended."""
_GIVE_UP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def lease_key(table_id: str) -> str:
    return f"moon:table:{table_id}:owner"


class TableLeases:
    """The leases one worker holds on the bus."""

    def __init__(self, bus: Valkey, worker: str, *, lease_ms: int = LEASE_MS,
                 renew_ms: int = RENEW_MS) -> None:
        self.bus = bus
        self.worker = worker
        self.lease_ms = lease_ms
        self.renew_ms = renew_ms
        self.held: set[str] = set()

    @property
    def place(self) -> str:
        """The worker's place in the club ("w0." of "w0.1234"): a lease held under it by
        another process is a dead predecessor's."""
        return self.worker.partition(".")[0] + "."

    async def take(self, table_id: str) -> bool:
        """The lease of `table_id`, if no worker holds it, or this one's dead predecessor
        (a worker started again after a crash takes up its tables at once, without waiting
        for their leases to lapse: the failover is as quick as the restart)."""
        if table_id in self.held:
            return True
        if await self.bus.eval(  # type: ignore[misc]
                _TAKE, 1, lease_key(table_id), self.worker, str(self.lease_ms), self.place):
            self.held.add(table_id)
            return True
        return False

    async def renew(self) -> frozenset[str]:
        """Renew every lease held; the tables whose lease lapsed or was taken (dropped)."""
        tables = sorted(self.held)
        if not tables:
            return frozenset()
        positions = await self.bus.eval(  # type: ignore[misc]
            _RENEW, len(tables), *map(lease_key, tables), self.worker, str(self.lease_ms))
        lost = frozenset(tables[int(i) - 1] for i in positions)
        self.held -= lost
        return lost

    async def give_up(self, table_id: str) -> None:
        """Let the lease go now (the table closed, or the worker stops), if still ours."""
        if table_id in self.held:
            self.held.discard(table_id)
            await self.bus.eval(  # type: ignore[misc]
                _GIVE_UP, 1, lease_key(table_id), self.worker)



class OwnedJournal:
    """A worker's `TableJournal`: its own tables only, each write under its epoch."""

    def __init__(self, journal: SqliteJournal, leases: TableLeases) -> None:
        self.journal = journal
        self.leases = leases
        self._unheld: dict[str, float] = {}
        """Saved tables that no worker held at the last look (`load(patient=True)`), and
        since when (monotonic): taken only after two renewals' time."""
        self.lost: set[str] = set()
        """Tables this worker owned and another took over: never written again here."""

    def writable(self) -> bool:
        return self.journal.writable()

    async def lobby_chat(self) -> list[Any]:
        return await self.journal.lobby_chat()

    async def load(self, *, patient: bool = False) -> list[SavedTable]:
        """The saved tables no worker holds, now held and claimed by this one: at start,
        and then every `TAKE_OVER_SECONDS` (`take_over`), those of a worker that died.
        `patient`: only those no worker held for two renewals' time (after a bus that
        restarted empty, each owner takes its own back at its next renewal: another
        worker taking them first would move every table, and its players, for nothing)."""
        candidates = [saved.table_id for saved in await self.journal.load()
                      if saved.table_id not in self.leases.held]
        if patient:
            holders = await self.leases.bus.mget([lease_key(t) for t in candidates]) \
                if candidates else []
            now = time.monotonic()
            self._unheld = {t: self._unheld.get(t, now)
                            for t, holder in zip(candidates, holders, strict=True)
                            if holder is None}
            wait = 2 * self.leases.renew_ms / 1000
            candidates = [t for t, since in self._unheld.items() if now - since >= wait]
        taken = []
        for table_id in candidates:
            if await self.leases.take(table_id):
                taken.append(table_id)
        if not taken:
            return []
        # Read again: a table closed (gone) between the first read and its lease given
        # up must not come back.
        still = {saved.table_id: saved for saved in await self.journal.load()}
        mine = []
        for table_id in taken:
            if table_id in still:
                await self.journal.claim(table_id)
                self.lost.discard(table_id)
                mine.append(still[table_id])
            else:
                await self.leases.give_up(table_id)
        return mine

    async def take_over(self, take_up: Callable[[SavedTable], Awaitable[object]]) -> None:
        """Every `TAKE_OVER_SECONDS` until cancelled: the saved tables whose worker died
        (their lease lapsed) are taken up here (`take_up`), if no other worker was first."""
        while True:
            await asyncio.sleep(TAKE_OVER_SECONDS)
            try:
                for saved in await self.load(patient=True):
                    log.warning("table %s: its worker is gone; taken over here",
                                saved.table_id)
                    await take_up(saved)
            except Exception as error:  # noqa: BLE001 - the bus is down: try again
                log.warning("cannot look for tables to take over: %s", error)
            still_running()

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        """`entries` under each table's epoch; a table not claimed yet (a new one) is
        claimed first. `StaleOwner` for a table another worker owns."""
        for table_id in {entry.table_id for entry in entries}:
            if table_id in self.lost:
                raise StaleOwner(frozenset({table_id}))
            if table_id not in self.journal.epochs:
                if not await self.leases.take(table_id):
                    self.lost.add(table_id)
                    raise StaleOwner(frozenset({table_id}))
                await self.journal.claim(table_id)
        try:
            await self.journal.write(entries, then)
        except StaleOwner as stale:
            self.lost |= stale.tables
            raise
        for entry in entries:
            if isinstance(entry, TableGone):  # closed for good: nothing more to own
                self.journal.disown(entry.table_id)
                await self.leases.give_up(entry.table_id)

    async def keep(self) -> None:
        """Renew the leases every `renew_ms` until cancelled. A bus that does not answer
        is tried again at the next turn (the leases may lapse meanwhile: the epoch keeps
        the journal safe)."""
        while True:
            await asyncio.sleep(self.leases.renew_ms / 1000)
            try:
                await self.renew()
            except Exception as error:  # noqa: BLE001 - the bus is down: try again
                log.warning("cannot renew the tables' leases on the bus: %s", error)
            still_running()

    async def renew(self) -> None:
        """Renew the leases; a table whose lease lapsed (the bus restarted empty, or this
        worker was paused) is taken back if no other worker claimed it meanwhile, and is
        never written here again if one did."""
        for table_id in sorted(await self.leases.renew()):
            epoch = self.journal.epochs.get(table_id)
            if epoch is not None and await self.leases.take(table_id) and \
                    await self.journal.claim(table_id, after=epoch) is not None:
                log.warning("table %s: its lease had lapsed; taken back", table_id)
                continue
            await self.leases.give_up(table_id)
            self.journal.disown(table_id)
            self.lost.add(table_id)
            log.error("worker %s lost table %s to another worker: it no longer writes it",
                      self.leases.worker, table_id)
