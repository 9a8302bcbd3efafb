"""The tables' journal in SQLite: it keeps what the memory journal keeps, commits the
writes of one loop pass together, is on disk when `write` returns, and survives a full
disk without losing the moves written meanwhile."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moon_tui.lobby.chat import CHAT_KEPT
from moon_tui.lobby.journal import (
    ChatRow,
    HandRow,
    JournalEntry,
    MemoryJournal,
    NewGame,
    TableGone,
    TableRow,
)
from moon_tui.services import TablesWaiting
from moon_tui.ui.alarm_words import alarm_words
from server.journal import JSON_DEPTH_MAX, ROW_CHARS_MAX, ROWS_PER_STATEMENT, SqliteJournal
from server.store import Database

TABLE_IDS = st.sampled_from(["1", "2", "3"])
DATA = st.fixed_dictionaries({"n": st.integers(0, 9), "text": st.text(max_size=8)})
ENTRIES: st.SearchStrategy[JournalEntry] = st.one_of(
    st.builds(TableRow, TABLE_IDS, DATA),
    st.builds(HandRow, TABLE_IDS, st.integers(0, 4), DATA),
    st.builds(NewGame, TABLE_IDS),
    st.builds(ChatRow, TABLE_IDS, DATA),
    st.builds(TableGone, TABLE_IDS),
)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(tmp_path / "moon.sqlite3")
    await database.open()
    try:
        yield database
    finally:
        await database.close()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(ENTRIES, max_size=30), max_size=8))
def test_sqlite_keeps_what_the_memory_journal_keeps(
        tmp_path_factory: pytest.TempPathFactory, batches: list[list[JournalEntry]]) -> None:
    async def both() -> None:
        memory = MemoryJournal()
        database = Database(tmp_path_factory.mktemp("j") / "moon.sqlite3")
        await database.open()
        try:
            journal = SqliteJournal(database)
            for batch in batches:
                await memory.write(batch)
                await journal.write(batch)
            assert await journal.load() == await memory.load()
        finally:
            await database.close()

    asyncio.run(both())


async def test_the_chat_keeps_its_last_lines(db: Database) -> None:
    journal = SqliteJournal(db)
    await journal.write([TableRow("1", {"name": "t"})])
    for n in range(CHAT_KEPT + 7):
        await journal.write([ChatRow("1", {"n": n})])
    (saved,) = await journal.load()
    assert [line["n"] for line in saved.chat] == list(range(7, CHAT_KEPT + 7))



async def test_a_batch_larger_than_a_statement_keeps_every_row(db: Database) -> None:
    # A batch is written a few statements of many rows each: past ROWS_PER_STATEMENT
    # rows, and past CHAT_KEPT chat lines in one batch, it keeps what the memory journal
    # keeps.
    count = ROWS_PER_STATEMENT * 2 + 7
    batch: list[JournalEntry] = [TableRow(str(n), {"n": n}) for n in range(count)]
    batch += [HandRow(str(n), 1, {"n": n}) for n in range(count)]
    batch += [ChatRow("3", {"n": n}) for n in range(CHAT_KEPT + 9)]
    batch += [TableGone(str(n)) for n in range(0, count, 2)]
    memory, journal = MemoryJournal(), SqliteJournal(db)
    await memory.write(batch)
    await journal.write(batch)
    assert journal.commits == 1
    assert await journal.load() == await memory.load()
    (three,) = [saved for saved in await journal.load() if saved.table_id == "3"]
    assert [line["n"] for line in three.chat] == list(range(9, CHAT_KEPT + 9))

async def test_writes_of_one_pass_are_two_commits_and_on_disk_when_write_returns(
        db: Database) -> None:
    journal = SqliteJournal(db)
    await asyncio.gather(*(journal.write([TableRow(str(n), {"n": n})]) for n in range(50)))
    # The first goes at once; the other 49 gather while it is on its way, and go together.
    assert journal.commits == 2
    # Another connection (another process, after a crash) sees every row.
    with sqlite3.connect(db.path) as other:
        assert other.execute("SELECT count(*) FROM saved_tables").fetchone() == (50,)


async def test_writes_while_a_commit_is_on_its_way_go_in_the_next_one(db: Database) -> None:
    journal = SqliteJournal(db)
    first = asyncio.ensure_future(journal.write([TableRow("1", {"n": 1})]))
    await asyncio.sleep(0)  # the first batch is on its way to the writer thread
    later = [journal.write([HandRow("1", n, {"n": n})]) for n in range(5)]
    await asyncio.gather(first, *later)
    assert journal.commits == 2
    (saved,) = await journal.load()
    assert [hand["n"] for hand in saved.hands] == [0, 1, 2, 3, 4]



async def test_what_runs_then_runs_as_the_commit_is_known_before_its_writers_wake(
        db: Database) -> None:
    # A table tells its players from `then`: in the pass the commit's answer comes, not
    # a pass later when the table's task wakes.
    journal = SqliteJournal(db)
    first = asyncio.ensure_future(journal.write([TableRow("1", {"n": 1})]))
    await asyncio.sleep(0)  # on its way: the next two gather for the next commit
    order: list[str] = []

    async def writer(table_id: str) -> None:
        await journal.write([TableRow(table_id, {})],
                            then=lambda: order.append(f"{table_id} told"))
        order.append(f"{table_id} woke")

    await asyncio.gather(first, writer("2"), writer("3"))
    assert order == ["2 told", "3 told", "2 woke", "3 woke"]
    assert journal.commits == 2

async def test_a_cancelled_writer_stops_waiting_alone(db: Database) -> None:
    journal = SqliteJournal(db)
    first = asyncio.ensure_future(journal.write([TableRow("1", {"n": 1})]))
    await asyncio.sleep(0)  # on its way: the next two gather for the next commit
    gone = asyncio.ensure_future(journal.write([TableRow("2", {"n": 2})]))
    kept = asyncio.ensure_future(journal.write([TableRow("3", {"n": 3})]))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.gather(first, kept)
    assert gone.cancelled()
    # What it handed over is written all the same, with the others of its commit.
    assert {saved.table_id for saved in await journal.load()} == {"1", "2", "3"}
    assert journal.commits == 2


async def test_a_row_that_is_not_json_loses_only_its_table(
        db: Database, caplog: pytest.LogCaptureFixture) -> None:
    journal = SqliteJournal(db)
    await journal.write([TableRow("1", {"n": 1}), TableRow("2", {"n": 2}),
                         HandRow("2", 0, {"deal": []})])

    def damage() -> None:
        with db.connection() as conn:
            conn.execute("UPDATE saved_hands SET data = '{not json' WHERE table_id = '2'")

    await db.run(damage)
    with caplog.at_level(logging.ERROR):
        saved = await journal.load()
    assert [t.table_id for t in saved] == ["1"]
    assert "table '2' cannot come back" in caplog.text


async def test_rows_nested_deep_or_overlong_lose_their_table_not_the_start(
        db: Database, caplog: pytest.LogCaptureFixture) -> None:
    # Issue 36: a table row of deeply nested JSON raised RecursionError from `load`, and
    # the server did not start.
    journal = SqliteJournal(db)
    await journal.write([TableRow(table_id, {"n": 1}) for table_id in "12345"]
                        + [ChatRow("4", {"text": "hi"})])
    deep = "[" * 100_000 + "]" * 100_000
    too_deep = "[" * (JSON_DEPTH_MAX + 1) + "]" * (JSON_DEPTH_MAX + 1)

    def damage() -> None:
        with db.connection() as conn:
            for table_id, data in (("1", deep), ("2", too_deep),
                                   ("3", '{"x": "' + "y" * ROW_CHARS_MAX + '"}')):
                conn.execute("UPDATE saved_tables SET data = ? WHERE table_id = ?",
                             (data, table_id))
            conn.execute("UPDATE saved_chat SET data = ? WHERE table_id = '4'", (deep,))

    await db.run(damage)
    with caplog.at_level(logging.ERROR):
        saved = await journal.load()
    assert [t.table_id for t in saved] == ["5"]
    for table_id in "1234":
        assert f"table '{table_id}' cannot come back" in caplog.text


async def _fill(db: Database) -> None:
    """A real full disk: the file may not grow by a page (`PRAGMA max_page_count`), and
    its tables' pages have no room left."""

    def fill() -> None:
        conn = db.connection()
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        conn.execute(f"PRAGMA max_page_count = {pages}")
        for table in ("saved_chat", "settings"):
            for size in (2000, 200, 20, 0):
                while True:
                    try:
                        with conn:
                            if table == "saved_chat":
                                conn.execute("INSERT INTO saved_chat (table_id, data) VALUES "
                                             "('~filler', ?)", ("x" * size,))
                            else:
                                conn.execute("INSERT INTO settings (key, value) VALUES "
                                             "(hex(randomblob(8)), ?)", ("x" * size,))
                    except sqlite3.OperationalError as error:
                        assert "full" in str(error)
                        break

    await db.run(fill)


async def _free(db: Database) -> None:
    def free() -> None:
        db.connection().execute("PRAGMA max_page_count = 1073741823")

    await db.run(free)


async def test_a_full_disk_tells_nobody_and_the_tables_write_it_again_once(
        db: Database, caplog: pytest.LogCaptureFixture) -> None:
    journal = SqliteJournal(db)
    await journal.write([TableRow("1", {"n": 0}), TableRow("2", {"n": 0}),
                         ChatRow("1", {"text": "hi"})])
    await _fill(db)
    with caplog.at_level(logging.ERROR):
        told = []
        for n in range(3):
            with pytest.raises(sqlite3.OperationalError, match="full"):
                await journal.write([HandRow("1", n, {"n": n, "pad": "x" * 10_000}),
                                     ChatRow("1", {"text": f"line {n}"})],
                                    then=lambda n=n: told.append(n))
        with pytest.raises(sqlite3.OperationalError, match="full"):
            await journal.write([TableGone("2"), HandRow("1", 3, {"n": 3, "pad": "x" * 10_000})])
        assert told == [], "nobody is told of what is not written"
    assert caplog.text.count("cannot write the database") == 1  # said once
    (raised,) = db.alarms()
    alarm = alarm_words(raised.alarm)
    assert "1 table wait" in alarm and "new games are refused" in alarm
    assert not journal.writable()

    await _free(db)
    # The waiting table writes all it held since its last write, once.
    await journal.write([HandRow("1", n, {"n": n}) for n in range(4)]
                        + [ChatRow("1", {"text": f"line {n}"}) for n in range(3)],
                        then=lambda: told.append(3))
    assert told == [3]
    (saved,) = await journal.load()  # table 2's closing was kept, and written first
    assert saved.table_id == "1"
    assert [hand["n"] for hand in saved.hands] == [0, 1, 2, 3]
    assert [line["text"] for line in saved.chat] == ["hi", "line 0", "line 1", "line 2"]
    assert journal.writable() and db.alarms() == ()
    await journal.close()


async def test_a_disk_that_refuses_writes_at_start_is_said_and_tried_until_it_takes_one(
        db: Database, caplog: pytest.LogCaptureFixture) -> None:
    journal = SqliteJournal(db)
    await _fill(db)
    with caplog.at_level(logging.ERROR):
        assert not await journal.check()
    assert "cannot write the database" in caplog.text
    (raised,) = db.alarms()
    assert isinstance(raised.alarm, TablesWaiting) and raised.alarm.tables == 0
    assert "no table waits yet and new games are refused" in alarm_words(raised.alarm)
    await _free(db)
    async with asyncio.timeout(20):  # tried again by itself, with no table writing
        while not journal.writable():
            await asyncio.sleep(0.05)
    assert db.alarms() == ()
    await journal.close()
