"""The server's SQLite database: accounts and their keys, bans, game records, and the
open tables (`journal.py`).

Writes go through one connection on one worker thread, so a slow disk never blocks the
event loop (WAL mode, `synchronous=FULL`: a write is on the disk when it returns, even
against a power cut, which a table's move waits for; each commit costs an fsync, ~2 ms
here, so the journal commits the writes of a whole loop pass together). Reads of a few
indexed rows, the checks of a login, run at once on the loop from a second, read-only
connection (WAL lets it read while the thread writes): a trip to the thread and back
costs two passes of the loop, and under load those passes were most of a login's wait
(measured). Every method is a coroutine all the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import logging
import os
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from moon_tui.services import Alarm, BanFacts, RaisedAlarm, RecordsWaiting

from . import game_index
from .analyses import SCHEMA as ANALYSES_SCHEMA
from .datafolder import CannotStart
from .journal import SCHEMA as JOURNAL_SCHEMA
from .logtext import shown
from .ratings import SCHEMA as RATINGS_SCHEMA
from .ratings import count_record

log = logging.getLogger(__name__)

T = TypeVar("T")
BanKind = Literal["account", "key", "address"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL,
    last_seen REAL NOT NULL,
    invitations INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS account_keys (
    fingerprint TEXT PRIMARY KEY,
    name TEXT NOT NULL REFERENCES accounts(name),
    public_key TEXT NOT NULL,
    added REAL NOT NULL,
    comment TEXT NOT NULL DEFAULT '',
    last_used REAL
);
CREATE INDEX IF NOT EXISTS account_keys_name ON account_keys(name);
CREATE TABLE IF NOT EXISTS bans (
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    reason TEXT NOT NULL,
    banned_at REAL NOT NULL,
    expires REAL,
    name TEXT,
    kick INTEGER NOT NULL DEFAULT 0,
    by TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (kind, value)
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seen_addresses (
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    seen REAL NOT NULL,
    PRIMARY KEY (name, address)
);
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    saved_at REAL NOT NULL,
    finished INTEGER NOT NULL,
    record TEXT NOT NULL,
    digest TEXT
);
"""


StoreFailure = sqlite3.Error
"""What a read or write raises when the file is damaged, full or read-only."""

_DAMAGED = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})


def _add_columns(conn: sqlite3.Connection, table: str, wanted: dict[str, str]) -> None:
    """Add the columns a database made by an older version lacks (with their defaults)."""
    columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    for column, kind in wanted.items():
        if column not in columns:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _create_private(path: Path) -> None:
    """Create the database file for its owner only (0600) if it is not there yet: it holds
    keys, bans and addresses, and SQLite gives its `-wal` and `-shm` the same mode."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


class DatabaseUnusable(CannotStart):
    """The database cannot be used at start: damaged, not a database, or not writable."""

    @classmethod
    def because(cls, path: Path, error: sqlite3.Error | OSError | str) -> DatabaseUnusable:
        """The one-paragraph message for the operator: what is wrong and what to do."""
        damaged = isinstance(error, str) or getattr(error, "sqlite_errorname", "") in _DAMAGED
        if damaged:
            return cls(
                f"the database {path} is damaged ({error}). Stop here and restore it from "
                f"your latest backup: copy the backup to {path} and delete {path}-wal and "
                f"{path}-shm if they exist, then start the server again (keep the damaged "
                f"file: 'sqlite3 {path} .recover' may save what the backup lacks)."
            )
        return cls(
            f"cannot open or write the database {path} ({error}). Check that the folder "
            f"{path.parent} exists, that the user running moon-server may write in it, and "
            "that its disk is not full; then start the server again."
        )


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    fingerprints: tuple[str, ...]
    created: float
    last_seen: float


@dataclass(frozen=True, slots=True)
class BanEntry:
    """A ban in force on one name, key or address."""

    reason: str
    expires: float | None
    kick: bool
    """A kick's short ban (the player may come back after `expires`)."""


@dataclass(frozen=True, slots=True)
class StoredRecord:
    id: int
    saved_at: float
    finished: bool
    record: dict[str, Any]


class Database:
    """All persistent state: writes on the DB thread, point reads at once (see above)."""

    READ_TIMEOUT = 1.0
    """Seconds a read on the loop may wait for a lock (WAL readers hardly ever do)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="moon-db")
        self._conn: sqlite3.Connection | None = None
        self._reader: sqlite3.Connection | None = None
        self._alarms: dict[str, RaisedAlarm] = {}
        self.clock: Callable[[], float] = time.time
        """Wall-clock time written with accounts, bans and records (tests move it on)."""

    async def open(self) -> None:
        """Open and check the file (`PRAGMA quick_check`); `DatabaseUnusable` says why not.

        A damaged file used to start a server that then dropped every login."""
        await self.run(self._open)

    def _open(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _create_private(self.path)
            conn = sqlite3.connect(self.path, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check(3)")]
            if problems != ["ok"]:
                found = " ".join(" ".join(problems).split())  # one paragraph
                raise DatabaseUnusable.because(self.path, shown(found, 200))
            conn.execute("PRAGMA synchronous=FULL")
            conn.executescript(_SCHEMA)
            conn.executescript(JOURNAL_SCHEMA)
            conn.executescript(RATINGS_SCHEMA)
            conn.executescript(ANALYSES_SCHEMA)
            _add_columns(conn, "bans", {  # a database from before bans could expire...
                "expires": "REAL", "name": "TEXT", "kick": "INTEGER NOT NULL DEFAULT 0",
                "by": "TEXT NOT NULL DEFAULT ''"})
            _add_columns(conn, "account_keys", {  # ... or keys had comments
                "comment": "TEXT NOT NULL DEFAULT ''", "last_used": "REAL"})
            _add_columns(conn, "accounts", {"invitations": "INTEGER NOT NULL DEFAULT 1"})
            columns = {row[1] for row in conn.execute("PRAGMA table_info(records)")}
            if "digest" not in columns:  # a database from before records were kept once
                conn.execute("ALTER TABLE records ADD COLUMN digest TEXT")
            conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS records_once ON records(digest)")
            conn.commit()
            game_index.migrate(conn)  # codes and list summaries for older records
        except (sqlite3.Error, OSError) as error:
            if conn is not None:
                conn.close()
            raise DatabaseUnusable.because(self.path, error) from error
        except BaseException:
            if conn is not None:
                conn.close()
            raise
        self._conn = conn
        # Made here, used only by the loop's thread.
        reader = sqlite3.connect(self.path, check_same_thread=False, timeout=self.READ_TIMEOUT)
        reader.execute("PRAGMA query_only=ON")
        self._reader = reader

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._conn is not None:
            await self.run(self._close)
        self.executor.shutdown(wait=True)

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def run(self, func: Callable[[], T]) -> T:
        """`func()` on the writer thread (every write goes there, in order)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, func)

    def connection(self) -> sqlite3.Connection:
        """The writer connection: use it only on the writer thread (`run`, `executor`)."""
        if self._conn is None:
            raise RuntimeError(f"database {self.path} is not open")
        return self._conn

    def _read(self) -> sqlite3.Connection:
        if self._reader is None:
            raise RuntimeError(f"database {self.path} is not open")
        return self._reader

    def reader(self) -> sqlite3.Connection:
        """The read-only connection, for a few indexed rows read at once on the loop (the
        lists of saved games, `archive.py`): use it only on the loop's thread."""
        return self._read()

    def try_write(self) -> None:
        """On the writer thread: a small real write (when the disk was last found
        writable), raising `StoreFailure` if the disk refuses it (`journal.py`)."""
        db = self.connection()
        with db:
            db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                       ("written_at", str(self.clock())))

    # --- alarms for the operators ---------------------------------------------------

    def alarm(self, topic: str, alarm: Alarm) -> None:
        """Note a failure for the operators (their operator screen lists the alarms);
        a new alarm on `topic` replaces the last one."""
        self._alarms[topic] = RaisedAlarm(time.time(), alarm)

    def clear_alarm(self, topic: str) -> None:
        self._alarms.pop(topic, None)

    def alarms(self) -> tuple[RaisedAlarm, ...]:
        """`moon_tui.services.ServerHealth`: what is wrong now."""
        return tuple(self._alarms.values())

    # --- accounts -------------------------------------------------------------------

    async def account(self, name: str) -> Account | None:
        db = self._read()
        row = db.execute(
            "SELECT name, created, last_seen FROM accounts WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            return None
        keys = db.execute(
            "SELECT fingerprint FROM account_keys WHERE name = ? ORDER BY added", (name,)
        ).fetchall()
        return Account(row[0], tuple(k[0] for k in keys), row[1], row[2])

    async def key_owner(self, fingerprint: str) -> str | None:
        row = self._read().execute(
            "SELECT name FROM account_keys WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        return None if row is None else str(row[0])

    async def claim(self, name: str, fingerprint: str, public_key: str) -> bool:
        """Create the account `name` owned by this key; False if someone was faster."""

        def claim() -> bool:
            db = self.connection()
            now = self.clock()
            try:
                with db:
                    db.execute(
                        "INSERT INTO accounts (name, created, last_seen) VALUES (?, ?, ?)",
                        (name, now, now),
                    )
                    db.execute(
                        "INSERT INTO account_keys (fingerprint, name, public_key, added,"
                        " last_used) VALUES (?, ?, ?, ?, ?)",
                        (fingerprint, name, public_key, now, now),
                    )

            except sqlite3.IntegrityError:
                return False
            return True

        return await self.run(claim)

    async def add_key(self, name: str, fingerprint: str, public_key: str) -> str | None:
        """Add a key to `name`, for a login that proved it holds it (server/linking.py).

        A key that belongs to a name already is never moved: returns that name instead."""

        def add() -> str | None:
            db = self.connection()
            row = db.execute(
                "SELECT name FROM account_keys WHERE fingerprint = ?", (fingerprint,)
            ).fetchone()
            if row is not None:
                return str(row[0])
            with db:
                db.execute(
                    "INSERT INTO account_keys (fingerprint, name, public_key, added)"
                    " VALUES (?, ?, ?, ?)",
                    (fingerprint, name, public_key, self.clock()),
                )
            return None

        return await self.run(add)

    async def open_account(self, name: str) -> None:
        """Make sure the account `name` exists, with no key of its own (an operator's:
        their keys are in the config, and one of them may belong to another name)."""

        def open_() -> None:
            db = self.connection()
            now = self.clock()
            with db:
                db.execute(
                    "INSERT OR IGNORE INTO accounts (name, created, last_seen) VALUES (?, ?, ?)",
                    (name, now, now),
                )

        await self.run(open_)

    def touch_soon(self, name: str, fingerprint: str | None = None) -> None:
        """Note that `name` was seen now (with the key `fingerprint`), without waiting for
        the disk: a login need not wait for its last-seen time to be written. A failure
        is logged."""

        def touch() -> None:
            db = self.connection()
            now = self.clock()
            with db:
                db.execute("UPDATE accounts SET last_seen = ? WHERE name = ?", (now, name))
                if fingerprint is not None:
                    db.execute("UPDATE account_keys SET last_used = ? WHERE fingerprint = ?"
                               " AND name = ?", (now, fingerprint, name))

        def report(done: asyncio.Future[None]) -> None:
            if not done.cancelled() and done.exception() is not None:
                log.error("could not note when %s was last seen: %s", name, done.exception())

        asyncio.get_running_loop().run_in_executor(self.executor, touch).add_done_callback(
            report
        )

    # --- bans -----------------------------------------------------------------------

    async def ban(
        self, kind: BanKind, value: str, reason: str, *, until: float | None = None,
        name: str | None = None, kick: bool = False, by: str = "",
    ) -> None:
        """Ban `value` (for good, or until the wall-clock time `until`). `name` is whom
        the ban was for (an unban lifts every row of it), `kick` marks a kick's short
        ban, `by` the operator."""

        def ban() -> None:
            db = self.connection()
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO bans (kind, value, reason, banned_at, expires,"
                    " name, kick, by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (kind, value, reason, self.clock(), until, name, int(kick), by),
                )

        await self.run(ban)

    async def ban_reason(
        self, kind: BanKind, value: str, *, now: float | None = None
    ) -> str | None:
        """The reason `value` is banned at wall-clock time `now`, or None when it is not."""
        entry = await self.ban_entry(kind, value, now=now)
        return None if entry is None else entry.reason

    async def ban_entry(
        self, kind: BanKind, value: str, *, now: float | None = None
    ) -> BanEntry | None:
        """The ban of `value` in force at wall-clock time `now`, or None."""
        row = self._read().execute(
            "SELECT reason, expires, kick FROM bans WHERE kind = ? AND value = ?"
            " AND (expires IS NULL OR expires > ?)",
            (kind, value, self.clock() if now is None else now),
        ).fetchone()
        return None if row is None else BanEntry(str(row[0]), row[1], bool(row[2]))

    async def bans(self, *, limit: int = 500) -> list[BanFacts]:
        """The bans in force, one per banned name (its account, keys and addresses
        together), latest first. A row written before bans named whom they were for
        stands alone."""
        now = self.clock()

        def query() -> list[BanFacts]:
            rows = self.connection().execute(
                "SELECT COALESCE(name, CASE kind WHEN 'account' THEN value"
                "   ELSE kind || ' ' || value END) AS who,"
                " MAX(reason), MIN(banned_at), MAX(COALESCE(expires, 1e300)), MAX(kick),"
                " MAX(by), SUM(kind = 'key'), SUM(kind = 'address')"
                " FROM bans WHERE expires IS NULL OR expires > ?"
                " GROUP BY who ORDER BY MIN(banned_at) DESC LIMIT ?",
                (now, limit),
            ).fetchall()
            return [BanFacts(str(r[0]), str(r[1]), r[2], None if r[3] >= 1e300 else r[3],
                           bool(r[4]), str(r[5]), int(r[6]), int(r[7])) for r in rows]

        return await self.run(query)

    async def unban(self, name: str) -> int:
        """Lift every ban made for `name` (its account, keys and addresses); how many
        rows were lifted (0: it was not banned)."""

        def unban() -> int:
            db = self.connection()
            with db:
                cursor = db.execute(
                    "DELETE FROM bans WHERE name = ? OR (name IS NULL AND kind = 'account'"
                    " AND value = ?)", (name, name))
            return int(cursor.rowcount)

        return await self.run(unban)

    # --- settings an operator changes while the server runs -------------------------

    async def setting(self, key: str) -> str | None:
        row = self._read().execute("SELECT value FROM settings WHERE key = ?",
                                   (key,)).fetchone()
        return None if row is None else str(row[0])

    async def set_setting(self, key: str, value: str | None) -> None:
        """Keep `value` under `key` (None: forget it)."""

        def write() -> None:
            db = self.connection()
            with db:
                if value is None:
                    db.execute("DELETE FROM settings WHERE key = ?", (key,))
                else:
                    db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                               (key, value))

        await self.run(write)

    def note_address_soon(self, name: str, address: str) -> None:
        """Remember that `name` logged in from `address` (a ban reaches the addresses a
        name last used), without making the login wait for the disk."""

        def note() -> None:
            db = self.connection()
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO seen_addresses (name, address, seen)"
                    " VALUES (?, ?, ?)",
                    (name, address, self.clock()),
                )

        def report(done: asyncio.Future[None]) -> None:
            if not done.cancelled() and done.exception() is not None:
                log.error("could not note %s's address: %s", name, done.exception())

        asyncio.get_running_loop().run_in_executor(self.executor, note).add_done_callback(
            report
        )

    async def addresses_since(self, name: str, since: float, limit: int = 8) -> list[str]:
        """The addresses `name` logged in from since `since`, latest first."""

        def query() -> list[str]:
            rows = self.connection().execute(
                "SELECT address FROM seen_addresses WHERE name = ? AND seen >= ?"
                " ORDER BY seen DESC LIMIT ?",
                (name, since, limit),
            ).fetchall()
            return [str(row[0]) for row in rows]

        return await self.run(query)

    # --- records --------------------------------------------------------------------

    async def save_record(self, record: dict[str, Any], *, finished: bool) -> int:
        """Keep `record`; its id, or 0 when this very record was kept already (a table
        restored after a crash saves its finished game again: it cannot know whether the
        first save reached the disk). A finished game is rated in the same transaction
        (`ratings.py`)."""
        text = json.dumps(record, separators=(",", ":"), sort_keys=True)
        digest = hashlib.sha256(f"{int(finished)}{text}".encode()).hexdigest()

        def save() -> int:
            db = self.connection()
            saved_at = self.clock()
            with db:
                cursor = db.execute(
                    "INSERT OR IGNORE INTO records (saved_at, finished, record, digest)"
                    " VALUES (?, ?, ?, ?)",
                    (saved_at, int(finished), text, digest),
                )
                record_id = int(cursor.lastrowid or 0) if cursor.rowcount else 0
                if record_id:
                    game_index.index_record(db, record_id, record)
                if record_id and finished:  # rated with it, in the records' order
                    count_record(db, record_id, saved_at, record)
            return record_id

        return await self.run(save)

    async def records(self) -> list[StoredRecord]:
        def query() -> list[StoredRecord]:
            rows = self.connection().execute(
                "SELECT id, saved_at, finished, record FROM records ORDER BY id"
            ).fetchall()
            return [StoredRecord(r[0], r[1], bool(r[2]), json.loads(r[3])) for r in rows]

        return await self.run(query)


class SQLiteRecordStore:
    """The lobby's `RecordStore`, kept in the server's database.

    A record the database cannot take (disk full, folder read-only) is not lost at once:
    up to `keep` records wait in memory, retried every `retry_seconds` and at `close()`,
    and the operators are told (an ERROR in the log, an alarm on their operator screen).
    """

    ALARM = "records"

    def __init__(self, db: Database, *, keep: int = 200, retry_seconds: float = 60.0) -> None:
        self._db = db
        self._keep = keep
        self._retry_seconds = retry_seconds
        self.waiting: deque[tuple[dict[str, Any], bool]] = deque()
        """Records not written yet (with their `finished` flag), oldest first."""
        self._retrying: asyncio.Task[None] | None = None
        self._why = ""
        """The database's last answer to a record, e.g. "database or disk is full"."""

    async def save(self, record: dict[str, Any], *, finished: bool) -> None:
        if self.waiting:  # keep the order: this one waits behind the others
            self._wait(record, finished)
            return
        try:
            await self._write(record, finished)
        except StoreFailure as error:
            self._why = str(error)
            self._wait(record, finished)

    async def _write(self, record: dict[str, Any], finished: bool) -> None:
        record_id = await self._db.save_record(record, finished=finished)
        if not record_id:
            log.info("game record of %s already kept", _players(record))
            return
        log.info(
            "%s: %s, %d hands (record %d)",
            "game finished" if finished else "unfinished game saved",
            _players(record),
            len(record["hands"]) if isinstance(record.get("hands"), list) else 0,
            record_id,
        )

    def _wait(self, record: dict[str, Any], finished: bool) -> None:
        if len(self.waiting) >= self._keep:
            lost, _ = self.waiting.popleft()
            log.error("game record of %s lost: %d records already wait for the database",
                      _players(lost), self._keep)
        self.waiting.append((record, finished))
        log.error(
            "could not save the game record of %s (%s): kept in memory, %d waiting, "
            "retried every %g s", _players(record), self._why, len(self.waiting),
            self._retry_seconds,
        )
        self._db.alarm(self.ALARM, RecordsWaiting(len(self.waiting), self._keep,
                                                  self._retry_seconds, self._why))
        if self._retrying is None or self._retrying.done():
            # An empty context: made from a table's task, it must not keep anything alive.
            self._retrying = asyncio.get_running_loop().create_task(
                self._retry_every(), name="moon-records-retry", context=contextvars.Context()
            )

    async def _retry_every(self) -> None:
        while self.waiting:
            await asyncio.sleep(self._retry_seconds)
            await self.retry()

    async def retry(self) -> int:
        """Write the waiting records, oldest first, until one fails; how many were written."""
        written = 0
        while self.waiting:
            record, finished = self.waiting[0]
            try:
                await self._write(record, finished)
            except StoreFailure as error:
                self._why = str(error)
                log.error("the database still cannot take game records (%s): %d waiting",
                          error, len(self.waiting))
                return written
            self.waiting.popleft()
            written += 1
        if written:
            log.warning("saved %d game records that had waited for the database", written)
        self._db.clear_alarm(self.ALARM)
        return written

    async def close(self) -> None:
        """At shutdown: one last try; what still fails is logged in full, to be re-entered
        by hand (each record is one line of JSON)."""
        if self._retrying is not None:
            self._retrying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retrying
            self._retrying = None
        await self.retry()
        for record, finished in self.waiting:
            log.error("game record lost at shutdown (finished=%s): %s", finished,
                      json.dumps(record, separators=(",", ":"), sort_keys=True))
        self.waiting.clear()


def _players(record: dict[str, Any]) -> str:
    seats = record.get("seats")
    return ", ".join(str(s) for s in seats) if isinstance(seats, list) else "?"
