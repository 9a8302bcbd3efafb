"""The tables' journal in SQLite: what lets a table come back after a restart or a crash.

Tables write each change here and wait for it before they tell anyone (`moon_tui.lobby.
journal`). A write goes at once to the database's writer thread, in a transaction of its
own, so the loop never waits on the disk. While a commit is on its way, the writes of
every table gather and go together in the next (a group commit), as soon as it is done:
a busy evening costs one commit per round trip to the thread, not one per move.

A batch the disk refuses (full, read-only) is not kept: its tables told nobody of it,
wait, and write it again themselves (`moon_tui.lobby.table`), each with all it changed
since its last write that worked, so nothing is written twice (chat lines were). Only a
table's closing is kept, to be written first next time (a closed table has nobody left to
write it). The operators are told by an alarm until the disk takes writes again, and new
tables are refused meanwhile (`writable`); a server that starts on a disk that refuses
writes says so, and tries a small write every few seconds until one works (`check`).

With several workers (`moon-server --workers N`), one worker owns each table: it holds
the table's lease on the bus (`lease.py`) and has claimed the table here, which numbers
its ownership (`claim`: the table's epoch, one more than the last owner's). Each of its
writes carries that epoch and is checked in the same transaction: a worker that lost its
lease (paused, cut off) and still writes is refused (`StaleOwner`), its rows untouched,
so it can never write over the new owner. The epoch lives here, with the rows it guards,
not on the bus: a bus that restarts empty cannot make an old owner current again. A
process alone (the default) claims nothing, and its writes are not checked.

Reading the rows back at start, the file is not trusted (it may have been edited or
damaged): a row that is too long, not JSON, or nested deeper than the server writes
loses its table (logged), never the start; the lobby checks the rest
(`moon_tui.lobby.restoring`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import sqlite3
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from moon_tui.lobby.chat import CHAT_KEPT
from moon_tui.lobby.journal import (
    LOBBY_ROOM,
    ChatRow,
    HandRow,
    JournalEntry,
    NewGame,
    NotOwner,
    SavedTable,
    TableGone,
    TableRow,
)
from moon_tui.lobby.restoring import shown
from moon_tui.services import TablesWaiting

if TYPE_CHECKING:
    import sqlite3

    from .store import Database

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS saved_tables (
    table_id TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS saved_hands (
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (table_id, hand)
);
CREATE TABLE IF NOT EXISTS saved_chat (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS saved_chat_table ON saved_chat(table_id, id);
CREATE TABLE IF NOT EXISTS table_epochs (
    table_id TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL
);
"""

ROW_CHARS_MAX = 1_000_000
"""The longest saved row read back: the server writes a table's row in a few kilobytes
and a hand's in less; a longer one loses its table, unread."""
JSON_DEPTH_MAX = 16
"""How deep a saved row may nest (the server's nest 4 deep at most): deeper ones, up to
JSON's own limit where reading raised RecursionError and the server did not start, lose
their table."""
ALARM = "tables"
CHECK_FIRST_SECONDS = 0.5
CHECK_MAX_SECONDS = 5.0
"""While the disk refuses writes, a small write is tried after `CHECK_FIRST_SECONDS`, then
twice as long each time up to this (waiting tables also try, every 2 s at most)."""

T = TypeVar("T")
_Writer = tuple["asyncio.Future[None]", "Callable[[], object] | None", frozenset[str]]
"""A write's future, what runs once its entries are committed (`TableJournal.write`), and
the tables its entries are about."""
_Fenced = tuple[JournalEntry, "int | None"]
"""An entry and the epoch it was written under (None: not checked)."""


class StaleOwner(NotOwner):
    """A table's entries were refused: another worker took the table over since."""

    def __init__(self, tables: frozenset[str]) -> None:
        super().__init__(f"table {', '.join(sorted(tables))}: another worker owns it now "
                         "(a newer epoch); nothing was written")
        self.tables = tables


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


class SqliteJournal:
    """`TableJournal` on the server's database (see the module's docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gathering: list[_Fenced] = []
        self._waiting: list[_Writer] = []
        """One future per write gathering now, resolved once its entries are committed
        (a writer that is cancelled cancels only its own), with what runs then."""
        self._committing = False
        self._unwritten: list[_Fenced] = []
        """Closings of tables in batches the disk refused, written before the next batch."""
        self._refused: set[str] = set()
        """Tables whose last write the disk refused: they wait (the alarm counts them)."""
        self._failing: str | None = None
        """Why the last write (a table's or `check`'s) failed; None once one works."""
        self._checking: asyncio.Task[None] | None = None
        self.commits = 0
        """Transactions committed so far (a benchmark divides moves by it)."""
        self.epochs: dict[str, int] = {}
        """The epoch of each table this worker claimed (`claim`): its writes carry it."""

    async def claim(self, table_id: str, *, after: int | None = None) -> int | None:
        """This worker owns `table_id` from now on (it holds its lease): its epoch, one
        more than the last owner's, which that owner's writes no longer match. With
        `after`, only if the table's epoch is still `after`, and it stays so (a worker
        taking back its own table after its lease lapsed: None if another claimed it
        meanwhile; not moved on, else its own writes on their way would be refused as a
        stale owner's and the table stopped, with nobody to run it)."""

        def claim() -> int | None:
            with self._db.connection() as db:
                if after is None:
                    row = db.execute(
                        "INSERT INTO table_epochs (table_id, epoch) VALUES (?, 1) ON CONFLICT"
                        "(table_id) DO UPDATE SET epoch = epoch + 1 RETURNING epoch",
                        (table_id,)).fetchone()
                else:
                    row = db.execute(
                        "SELECT epoch FROM table_epochs WHERE table_id = ? AND epoch = ?",
                        (table_id, after)).fetchone()
            return None if row is None else int(row[0])

        epoch = await self._db.run(claim)
        if epoch is not None:
            self.epochs[table_id] = epoch
        return epoch

    def disown(self, table_id: str) -> None:
        """This worker no longer owns `table_id` (closed for good, or lost to another
        worker): its epoch is forgotten here (the database keeps the last one)."""
        self.epochs.pop(table_id, None)

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        if not entries:
            return
        done = asyncio.get_running_loop().create_future()
        epochs = self.epochs
        self._gathering.extend((entry, epochs.get(entry.table_id)) for entry in entries)
        self._waiting.append((done, then, frozenset(entry.table_id for entry in entries)))
        if not self._committing:
            self._commit_gathered()
        await done

    def _commit_gathered(self) -> None:
        """Send what gathered to the writer thread. Its answer comes back by one
        callback: each hop through the event loop is a whole pass of it, 20-30 ms on a
        busy server, and a move waited six of them (a future chained to the thread's,
        a shield) before its table could tell anyone (p50 162 ms at 300 players,
        bench/ssh_load.py); now its table tells from that callback (`then`)."""
        batch, waiting = self._unwritten + self._gathering, self._waiting
        self._gathering, self._waiting = [], []
        self._committing = True
        loop = asyncio.get_running_loop()

        def commit() -> None:
            error: Exception | None = None
            stale: frozenset[str] = frozenset()
            try:
                stale = self._write_rows(batch)
            except Exception as failure:  # noqa: BLE001 - told to the writers
                error = failure
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._committed, batch, waiting, error, stale)

        try:
            self._db.executor.submit(commit)
        except RuntimeError as error:  # the writer thread has stopped
            self._committed(batch, waiting, error)

    def _committed(self, batch: list[_Fenced], waiting: list[_Writer],
                   error: Exception | None, stale: frozenset[str] = frozenset()) -> None:
        self._committing = False
        tables = {entry.table_id for entry, _ in batch}
        if error is None:
            self.commits += 1
            self._unwritten = []
            self._refused -= tables
            self._wrote()
        else:
            self._unwritten = [fenced for fenced in batch if isinstance(fenced[0], TableGone)]
            self._refused |= tables - {entry.table_id for entry, _ in self._unwritten}
            self._failed(error)
        if stale:
            log.error("tables %s were taken over by another worker: this one's writes are "
                      "refused", ", ".join(sorted(stale)))
            for table_id in stale:
                self.disown(table_id)
        for done, then, about in waiting:
            if done.done():
                continue  # its writer was cancelled
            if error is not None:
                done.set_exception(error)
                done.exception()  # retrieved here: a table may have stopped waiting
                continue
            if about & stale:  # nothing of it is told: it was not written
                done.set_exception(StaleOwner(about & stale))
                done.exception()
                continue
            if then is not None:
                try:
                    then()
                except Exception as failure:  # noqa: BLE001 - its writer is told
                    done.set_exception(failure)
                    continue
            done.set_result(None)
        if self._waiting:
            self._commit_gathered()

    def writable(self) -> bool:
        return self._failing is None

    def _failed(self, error: BaseException) -> None:
        """A write failed: the log says so once, the operators' alarm until one works."""
        if self._failing is None:
            log.error("cannot write the database (%s): tables wait, showing nothing new, and "
                      "new games are refused until it can", error)
        self._failing = str(error)
        self._db.alarm(ALARM, TablesWaiting(len(self._refused), str(error)))
        if self._checking is None or self._checking.done():
            # An empty context: made from a table's task, it must not keep anything alive.
            self._checking = asyncio.get_running_loop().create_task(
                self._check_until_written(), name="moon-journal-check",
                context=contextvars.Context())

    def _wrote(self) -> None:
        if self._failing is not None and not self._refused:
            log.warning("the database is written again: the tables go on")
            self._failing = None
            self._db.clear_alarm(ALARM)

    async def check(self) -> bool:
        """Try a small write (at start): False, said in the log and the operators' alarm,
        when the disk refuses it; it is then tried again until it works."""
        try:
            await self._db.run(self._db.try_write)
        except sqlite3.Error as error:
            self._failed(error)
            return False
        except RuntimeError:  # the database closed meanwhile (the server stops)
            return False
        self._wrote()
        return True

    async def _check_until_written(self) -> None:
        delay = CHECK_FIRST_SECONDS
        while self._failing is not None:
            await asyncio.sleep(delay)
            delay = min(delay * 2, CHECK_MAX_SECONDS)
            if self._refused:
                continue  # the waiting tables' own writes tell
            await self.check()

    async def close(self) -> None:
        """Stop trying (the server stops)."""
        if self._checking is not None:
            self._checking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checking
            self._checking = None

    def _write_rows(self, batch: list[_Fenced]) -> frozenset[str]:
        """On the writer thread: the whole batch in one transaction, or nothing; what it
        leaves in each table (`_Rows`), in a few statements of many rows each. Entries
        whose epoch is not their table's any more are left out: their tables returned.

        The thread gives up the interpreter's lock at each statement, and on a busy
        server waits up to its switch interval (5 ms) to get it back from the event
        loop: a batch of 40 rows, a statement each, took up to 143 ms beside a busy
        loop, the same rows in one statement up to 17 ms (measured)."""
        db = self._db.connection()
        with db:
            stale = _stale(db, batch)
            rows = _Rows()
            for entry, _ in batch:
                if entry.table_id not in stale:
                    rows.add(entry)
            for ids in _chunks(sorted(rows.gone)):
                db.execute(f"DELETE FROM table_epochs WHERE table_id IN {_marks(ids, 1)}", ids)
            for ids in _chunks(sorted(rows.gone)):
                for table in ("saved_tables", "saved_hands", "saved_chat"):
                    db.execute(f"DELETE FROM {table} WHERE table_id IN {_marks(ids, 1)}", ids)
            for ids in _chunks(sorted(rows.new_game)):
                db.execute(f"DELETE FROM saved_hands WHERE table_id IN {_marks(ids, 1)}", ids)
            for pairs in _chunks(list(rows.tables.items())):
                db.execute(f"INSERT INTO saved_tables (table_id, data) VALUES "
                           f"{_marks(pairs, 2)} ON CONFLICT(table_id) DO UPDATE SET "
                           "data = excluded.data", _flat(pairs))
            for hands in _chunks([(t, hand, data) for (t, hand), data in rows.hands.items()]):
                db.execute("INSERT OR REPLACE INTO saved_hands (table_id, hand, data) "
                           f"VALUES {_marks(hands, 3)}", _flat(hands))
            for lines in _chunks(rows.chat):
                db.execute(f"INSERT INTO saved_chat (table_id, data) VALUES {_marks(lines, 2)}",
                           _flat(lines))
            for ids in _chunks(sorted({table_id for table_id, _ in rows.chat})):
                # Each of these tables keeps its newest CHAT_KEPT lines.
                db.execute(
                    f"DELETE FROM saved_chat WHERE table_id IN {_marks(ids, 1)} AND id <= "
                    "(SELECT kept.id FROM saved_chat AS kept "
                    "WHERE kept.table_id = saved_chat.table_id "
                    "ORDER BY kept.id DESC LIMIT 1 OFFSET ?)", [*ids, CHAT_KEPT])
        return stale

    async def load(self) -> list[SavedTable]:
        return await self._db.run(self._read_tables)

    async def lobby_chat(self) -> list[Any]:
        return await self._db.run(self._read_lobby_chat)

    def _read_lobby_chat(self) -> list[Any]:
        """The lobby's lines as written (a line that is not JSON as the server writes it
        is dropped, logged; the lobby checks the rest, `restoring.saved_chat`)."""
        rows = self._db.connection().execute(
            "SELECT data FROM saved_chat WHERE table_id = ? AND length(data) <= ? "
            "ORDER BY id DESC LIMIT ?", (LOBBY_ROOM, ROW_CHARS_MAX, CHAT_KEPT)).fetchall()
        lines = []
        for (text,) in reversed(rows):
            try:
                data = json.loads(text)
            except (ValueError, TypeError):
                data = None
            if isinstance(data, dict) and _shallow(data):
                lines.append(data)
            else:
                log.error("a saved line of the lobby chat is not JSON as the server writes "
                          "it: dropped")
        return lines

    def _read_tables(self) -> list[SavedTable]:
        db = self._db.connection()
        hands: dict[str, list[Any]] = {}
        chat: dict[str, deque[Any]] = {}
        broken: set[str] = set()

        def rows(table: str, order: str) -> Any:
            # An overlong row comes back as None, without its text.
            return db.execute(f"SELECT table_id, CASE WHEN length(data) <= ? THEN data END "
                              f"FROM {table} ORDER BY {order}", (ROW_CHARS_MAX,))

        def parse(table_id: str, text: object) -> Any:
            try:
                if not isinstance(text, str):
                    raise ValueError("not a text of at most ROW_CHARS_MAX characters")
                data = json.loads(text)
                if not _shallow(data):
                    raise ValueError("nested too deep")
            except (ValueError, RecursionError):
                broken.add(table_id)
                return None
            return data

        for table_id, text in rows("saved_hands", "table_id, hand"):
            hands.setdefault(table_id, []).append(parse(table_id, text))
        for table_id, text in rows("saved_chat", "id"):
            # The journal keeps a table's last CHAT_KEPT lines: more were not written here.
            chat.setdefault(table_id, deque(maxlen=CHAT_KEPT)).append(text)
        saved = []
        for table_id, text in rows("saved_tables", "rowid"):
            data = parse(table_id, text)
            lines = [parse(table_id, line) for line in chat.get(table_id, ())]
            if not isinstance(table_id, str) or table_id in broken \
                    or not isinstance(data, dict) \
                    or not all(isinstance(line, dict) for line in lines):
                log.error("table %s cannot come back: its saved rows are not JSON as the "
                          "server writes it", shown(table_id))
                continue
            saved.append(SavedTable(table_id, data, tuple(hands.get(table_id, ())),
                                    tuple(lines)))
        return saved


def _stale(db: sqlite3.Connection, batch: list[_Fenced]) -> frozenset[str]:
    """The tables of `batch` written under an epoch that is not theirs any more (another
    worker claimed them since, or they are gone), read in the writing transaction."""
    written: dict[str, set[int]] = {}
    for entry, epoch in batch:
        if epoch is not None:
            written.setdefault(entry.table_id, set()).add(epoch)
    if not written:
        return frozenset()
    current: dict[str, int] = {}
    for ids in _chunks(sorted(written)):
        current.update(db.execute(
            f"SELECT table_id, epoch FROM table_epochs WHERE table_id IN {_marks(ids, 1)}",
            ids).fetchall())
    return frozenset(table_id for table_id, epochs in written.items()
                     if epochs != {current.get(table_id)})


def _shallow(data: Any) -> bool:
    """`data` nests at most `JSON_DEPTH_MAX` deep (looked at without recursion)."""
    todo: list[tuple[Any, int]] = [(data, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            if depth >= JSON_DEPTH_MAX:
                return False
            todo.extend((item, depth + 1) for item in value)
    return True


ROWS_PER_STATEMENT = 200
"""Rows written by one statement at most (three values each: SQLite before 3.32 takes 999
values in a statement)."""


class _Rows:
    """What a batch of entries leaves in the database, table by table, in the order its
    statements run: first the tables gone and the hands of new games deleted, then the
    tables, hands and chat lines written. An entry undoes what came before it in the
    batch as it would in the database (a table gone drops its earlier rows; a new game,
    its earlier hands), so running the batch this way leaves what running each entry in
    turn would (tests/test_server_journal.py checks it against `MemoryJournal`)."""

    def __init__(self) -> None:
        self.gone: set[str] = set()
        self.new_game: set[str] = set()
        self.tables: dict[str, str] = {}
        self.hands: dict[tuple[str, int], str] = {}
        self.chat: list[tuple[str, str]] = []

    def add(self, entry: JournalEntry) -> None:
        table_id = entry.table_id
        if isinstance(entry, TableRow):
            self.tables[table_id] = _json(entry.data)
        elif isinstance(entry, HandRow):
            self.hands[table_id, entry.hand] = _json(entry.data)
        elif isinstance(entry, NewGame):
            self.new_game.add(table_id)
            self._drop_hands(table_id)
        elif isinstance(entry, ChatRow):
            self.chat.append((table_id, _json(entry.data)))
        elif isinstance(entry, TableGone):
            self.gone.add(table_id)
            self.new_game.discard(table_id)
            self.tables.pop(table_id, None)
            self._drop_hands(table_id)
            self.chat = [line for line in self.chat if line[0] != table_id]

    def _drop_hands(self, table_id: str) -> None:
        for key in [key for key in self.hands if key[0] == table_id]:
            del self.hands[key]


def _chunks(rows: list[T]) -> list[list[T]]:
    return [rows[i:i + ROWS_PER_STATEMENT] for i in range(0, len(rows), ROWS_PER_STATEMENT)]


def _marks(chunk: Sequence[object], width: int) -> str:
    """The placeholders of `chunk`'s rows of `width` values: "(?, ?), (?, ?)", or "(?, ?)"
    for a list of single values (`IN (?, ?)`)."""
    if width == 1:
        return "(" + ", ".join("?" * len(chunk)) + ")"
    row = "(" + ", ".join("?" * width) + ")"
    return ", ".join([row] * len(chunk))


def _flat(chunk: Sequence[tuple[object, ...]]) -> list[object]:
    return [value for row in chunk for value in row]
