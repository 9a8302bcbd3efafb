"""The tables' journal in SQLite: what lets a table come back after a restart or a crash.

Tables write each change here and wait for it before they tell anyone (`moon_tui.lobby.
journal`). Writes made by any table during one pass of the event loop are committed
together in one transaction on the database's writer thread (a group commit), so a busy
evening costs one commit per pass, not one per move, and the loop never waits on the disk.
While a commit is on its way the next batch gathers, and goes as soon as it is done.

A batch the disk refuses (full, read-only) is kept and written first next time: its rows
replace or delete whole rows, so writing it late still leaves each table as its last
change left it. The operators are told by an alarm until the disk takes it again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from moon_tui.lobby.chat import CHAT_KEPT
from moon_tui.lobby.journal import (
    ChatRow,
    HandRow,
    JournalEntry,
    NewGame,
    SavedTable,
    TableGone,
    TableRow,
)

if TYPE_CHECKING:
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
"""

UNWRITTEN_KEPT = 100_000
"""Entries kept in memory while the disk refuses them; past this the oldest are dropped
(a crash then loses more, the game in memory goes on)."""
ALARM = "tables"


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


class SqliteJournal:
    """`TableJournal` on the server's database (see the module's docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gathering: list[JournalEntry] = []
        self._gathered: asyncio.Future[None] | None = None
        """Resolved when the entries gathering now are committed."""
        self._committing = False
        self._unwritten: list[JournalEntry] = []
        """Entries of batches the disk refused, oldest first, written before the next."""
        self.commits = 0
        """Transactions committed so far (a benchmark divides moves by it)."""

    async def write(self, entries: Sequence[JournalEntry]) -> None:
        if not entries:
            return
        loop = asyncio.get_running_loop()
        if self._gathered is None:
            self._gathered = loop.create_future()
            if not self._committing:
                loop.call_soon(self._commit_gathered)  # after this pass's other writers
        self._gathering.extend(entries)
        await asyncio.shield(self._gathered)

    def _commit_gathered(self) -> None:
        done, entries = self._gathered, self._gathering
        if done is None or self._committing:
            return
        self._gathered, self._gathering = None, []
        self._committing = True
        batch = self._unwritten + entries
        future = asyncio.get_running_loop().run_in_executor(
            self._db.executor, self._write_rows, batch)
        future.add_done_callback(lambda finished: self._committed(finished, batch, done))

    def _committed(self, finished: asyncio.Future[None], batch: list[JournalEntry],
                   done: asyncio.Future[None]) -> None:
        self._committing = False
        error = None if finished.cancelled() else finished.exception()
        if error is None:
            self.commits += 1
            if self._unwritten:
                log.warning("the tables' journal is written again (%d entries waited)",
                            len(self._unwritten))
                self._unwritten = []
                self._db.clear_alarm(ALARM)
            if not done.done():
                done.set_result(None)
        else:
            self._keep_unwritten(batch, error)
            if not done.done():
                done.set_exception(error)
            done.exception()  # retrieved here: a table may have stopped waiting
        if self._gathered is not None:
            self._commit_gathered()

    def _keep_unwritten(self, batch: list[JournalEntry], error: BaseException) -> None:
        first = not self._unwritten
        self._unwritten = batch[-UNWRITTEN_KEPT:]
        if first:
            log.error("cannot write the tables' journal (%s): the games go on in memory, "
                      "and a crash now would lose their moves", error)
        self._db.alarm(
            ALARM,
            f"the games' moves cannot be written ({error}): free disk space or make the data "
            "folder writable; a crash now would lose them.")

    def _write_rows(self, batch: list[JournalEntry]) -> None:
        """On the writer thread: the whole batch in one transaction, or nothing."""
        db = self._db.connection()
        with db:
            for entry in batch:
                table_id = entry.table_id
                if isinstance(entry, TableRow):
                    db.execute(
                        "INSERT INTO saved_tables (table_id, data) VALUES (?, ?) "
                        "ON CONFLICT(table_id) DO UPDATE SET data = excluded.data",
                        (table_id, _json(entry.data)))
                elif isinstance(entry, HandRow):
                    db.execute("INSERT OR REPLACE INTO saved_hands (table_id, hand, data) "
                               "VALUES (?, ?, ?)", (table_id, entry.hand, _json(entry.data)))
                elif isinstance(entry, NewGame):
                    db.execute("DELETE FROM saved_hands WHERE table_id = ?", (table_id,))
                elif isinstance(entry, ChatRow):
                    db.execute("INSERT INTO saved_chat (table_id, data) VALUES (?, ?)",
                               (table_id, _json(entry.data)))
                    db.execute(
                        "DELETE FROM saved_chat WHERE table_id = ? AND id <= "
                        "(SELECT id FROM saved_chat WHERE table_id = ? "
                        "ORDER BY id DESC LIMIT 1 OFFSET ?)", (table_id, table_id, CHAT_KEPT))
                elif isinstance(entry, TableGone):
                    for table in ("saved_tables", "saved_hands", "saved_chat"):
                        db.execute(f"DELETE FROM {table} WHERE table_id = ?", (table_id,))

    async def load(self) -> list[SavedTable]:
        return await self._db.run(self._read_tables)

    def _read_tables(self) -> list[SavedTable]:
        db = self._db.connection()
        hands: dict[str, list[Any]] = {}
        chat: dict[str, list[Any]] = {}
        broken: set[str] = set()

        def parse(table_id: str, text: str) -> Any:
            try:
                return json.loads(text)
            except ValueError:
                broken.add(table_id)
                return None

        for table_id, text in db.execute(
                "SELECT table_id, data FROM saved_hands ORDER BY table_id, hand"):
            hands.setdefault(table_id, []).append(parse(table_id, text))
        for table_id, text in db.execute(
                "SELECT table_id, data FROM saved_chat ORDER BY id"):
            chat.setdefault(table_id, []).append(parse(table_id, text))
        saved = []
        for table_id, text in db.execute(
                "SELECT table_id, data FROM saved_tables ORDER BY rowid"):
            data = parse(table_id, text)
            if table_id in broken or not isinstance(data, dict):
                log.error("table %s cannot come back: its saved rows are not readable JSON",
                          table_id)
                continue
            saved.append(SavedTable(table_id, data, tuple(hands.get(table_id, ())),
                                    tuple(chat.get(table_id, ()))))
        return saved

