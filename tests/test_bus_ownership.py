"""A table has one owner among the workers: a lease on a real bus, an epoch in SQLite."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import valkey.asyncio as valkey

from moon_tui.lobby.journal import HandRow, TableGone, TableRow
from server.bus_server import BusServer
from server.journal import SqliteJournal, StaleOwner
from server.ownership import OwnedJournal, TableLeases, lease_key
from server.store import Database


async def until(condition: Callable[[], Awaitable[bool]], what: str) -> None:
    deadline = time.monotonic() + 10
    while not await condition():
        assert time.monotonic() < deadline, f"not within 10 s: {what}"
        await asyncio.sleep(0.02)


@asynccontextmanager
async def worker(bus: BusServer, data: Path, name: str, lease_ms: int = 10_000
                 ) -> AsyncIterator[OwnedJournal]:
    """What one worker process has: its bus client and its own connection to the club's
    database, behind its owned journal."""
    client = valkey.Valkey.from_url(bus.url)
    db = Database(data / "moon.sqlite3")
    await db.open()
    try:
        yield OwnedJournal(SqliteJournal(db), TableLeases(client, name, lease_ms=lease_ms))
    finally:
        await db.close()
        await client.aclose()


async def test_a_stale_owner_is_refused_by_the_epoch_and_cannot_write_over_the_new_one(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    async with worker(valkey_bus, tmp_path, "w0", lease_ms=300) as w0, \
            worker(valkey_bus, tmp_path, "w1") as w1:
        await w0.write([TableRow("t1", {"by": "w0"}), HandRow("t1", 0, {"n": 0})])
        assert w0.journal.epochs == {"t1": 1}
        assert not await w1.leases.take("t1")  # w0 holds it

        # w0 is paused (it renews nothing): its lease lapses, w1 takes the table over.
        await until(lambda: w1.leases.take("t1"), "w0's lease lapsed")
        assert await w1.journal.claim("t1") == 2
        await w1.write([TableRow("t1", {"by": "w1"})])

        # w0 wakes up still believing it owns t1: its write is refused, nothing of it kept.
        told: list[str] = []
        with pytest.raises(StaleOwner, match="t1"):
            await w0.write([TableRow("t1", {"by": "w0, late"}), HandRow("t1", 0, {"n": 9})],
                           then=lambda: told.append("told"))
        assert told == []  # a write refused is told to nobody
        [saved] = await w1.journal.load()
        assert saved.data == {"by": "w1"} and saved.hands == ({"n": 0},)
        # And so are its later writes, even once the bus forgets every lease.
        await w0.leases.bus.flushall()
        with pytest.raises(StaleOwner):
            await w0.write([TableRow("t1", {"by": "w0, later"})])
        assert (await w1.journal.load())[0].data == {"by": "w1"}


async def test_each_saved_table_is_taken_up_by_one_worker_and_a_lapsed_lease_is_taken_back(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    async with worker(valkey_bus, tmp_path, "w0") as w0, \
            worker(valkey_bus, tmp_path, "w1") as w1:
        await w0.write([TableRow(t, {"n": i}) for i, t in enumerate(("a", "b", "c"))])
        w0.leases.held.clear()  # as if w0 had died: its leases are left to lapse
        await w0.leases.bus.delete(*map(lease_key, "abc"))
        await w1.leases.bus.set(lease_key("b"), "w2")  # another worker already runs b
        assert [t.table_id for t in await w0.load()] == ["a", "c"]
        assert [t.table_id for t in await w1.load()] == []
        # The bus restarts empty: w0 renews, finds its leases gone, takes them back (no
        # one claimed them meanwhile) and writes on.
        epochs = dict(w0.journal.epochs)
        await w0.leases.bus.flushall()
        await w0.renew()
        assert w0.lost == set() and w0.leases.held == {"a", "c"}
        # Under the same epochs: a write on its way meanwhile (gathered under them) is not
        # refused as a stale owner's (it was, and the table stopped with nobody to run it).
        assert w0.journal.epochs == epochs
        await w0.write([TableRow("a", {"n": 10})])
        # w2 claimed b after w0's claim (epoch 1): w0 cannot take it back.
        await w1.journal.claim("b")
        w0.leases.held.add("b")
        w0.journal.epochs["b"] = 1
        await w1.leases.bus.delete(lease_key("b"))
        await w0.renew()
        assert "b" in w0.lost
        with pytest.raises(StaleOwner):
            await w0.write([TableRow("b", {"n": 11})])
        # A table closed for good lets its lease go at once.
        await w0.write([TableGone("a")])
        assert "a" not in w0.leases.held and await w1.leases.take("a")


async def test_a_worker_started_again_takes_up_its_dead_predecessors_tables_at_once(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    """The supervisor starts a worker's place again only once its process ended: the new
    process takes its predecessor's tables without waiting for their leases to lapse;
    any other worker still waits."""
    async with worker(valkey_bus, tmp_path, "w0.100") as dead, \
            worker(valkey_bus, tmp_path, "w1.200") as other, \
            worker(valkey_bus, tmp_path, "w0.300") as successor:
        await dead.write([TableRow("t1", {"by": "w0.100"})])
        assert not await other.leases.take("t1")  # the lease has not lapsed
        [taken] = await successor.load()
        assert taken.table_id == "t1" and successor.journal.epochs == {"t1": 2}
        assert await successor.leases.bus.get(lease_key("t1")) == b"w0.300"
        assert not await other.leases.take("t1")
        with pytest.raises(StaleOwner):  # were it alive after all, the epoch refuses it
            await dead.write([TableRow("t1", {"by": "w0.100, late"})])
