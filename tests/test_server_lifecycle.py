"""Start, stop and restart: the host key, accounts and game records outlive the process."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from pathlib import Path

import asyncssh
import pytest

from moon_tui.lobby.journal import ChatRow, HandRow, TableRow
from server.journal import SqliteJournal
from server.store import Database, SQLiteRecordStore
from tests.support.settings import FAST
from tools.probe import (
    ScreenClient,
    enter_lobby,
    moon_server_process,
    new_key,
    open_bot_table,
    open_connection,
    running_server,
)

pytestmark = pytest.mark.ssh


async def test_the_host_key_is_made_once_and_kept(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        first = conn.get_server_host_key()
        conn.close()
    assert (tmp_path / "host_ed25519_key").stat().st_mode & 0o077 == 0
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "bea", key=new_key())
        again = conn.get_server_host_key()
        conn.close()
    assert first is not None and again is not None
    assert first.get_fingerprint() == again.get_fingerprint()


async def test_records_in_sqlite_survive_a_restart(tmp_path: Path) -> None:
    db = Database(tmp_path / "moon.sqlite3")
    await db.open()
    await SQLiteRecordStore(db).save({"format": "moon/1", "players": ["ann"]}, finished=True)
    await db.close()
    db = Database(tmp_path / "moon.sqlite3")
    await db.open()
    (stored,) = await db.records()
    assert stored.finished and stored.record["players"] == ["ann"]
    await db.close()


async def test_a_game_in_progress_at_shutdown_is_there_after_restart(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key)
        await enter_lobby(client)
        await open_bot_table(client)
        # leaving the block stops the server: the player is told, the table kept
    await client.wait_closed()
    assert "shutting down" in client.text() and "will be here" in client.text()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        assert await server.db.records() == []  # not saved as a record: it goes on
        (table,) = server.lobby.tables()
        assert table.status == "playing" and table.seats[0].name == "ann"
        # The account survived too: the same key logs in as ann, back in her seat.
        again = await ScreenClient.connect(server.port, "ann", key=key)
        await again.wait_for("ann (you)")
        await again.wait_for("hand 1")
        await again.close()


async def test_moon_server_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    process, port, log_lines = await moon_server_process(tmp_path / "data")
    assert process.stderr is not None
    assert (tmp_path / "data" / "host_ed25519_key").exists()
    assert (tmp_path / "data" / "moon.sqlite3").exists()
    client = await ScreenClient.connect(port, "ann", key=new_key())
    await client.wait_for("Welcome, ann", timeout=30)
    await enter_lobby(client, timeout=30)
    arriving = await ScreenClient.connect(port, "bea", key=new_key())
    await arriving.wait_for("Welcome, bea", timeout=30)  # still on the welcome banner
    process.send_signal(signal.SIGTERM)
    await client.wait_closed(timeout=30)
    assert "shutting down" in client.text()
    await arriving.wait_closed(timeout=30)
    assert "shutting down" in arriving.text()
    rest = (await asyncio.wait_for(process.stderr.read(), 30)).decode()
    assert await asyncio.wait_for(process.wait(), 30) == 0
    text = "".join(log_lines) + rest
    for expected in ("connection from 127.0.0.1", "login ann", "session start ann", "stopped"):
        assert expected in text


def test_moon_server_help_runs() -> None:
    import subprocess

    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "--data" in result.stdout and "MOON_DATA" in result.stdout


async def test_the_server_starts_on_tampered_saved_tables_and_takes_up_the_good_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    # Issue 36: a table row of deeply nested JSON kept the server from starting; a game in
    # mid-hand marked finished was saved as a finished record; 100,000 spectators stalled it.
    from test_lobby_restore import four_tables_mid_game

    disk = await four_tables_mid_game()
    deep, over, crowd, good = disk.tables  # in the order they were created
    disk.tables[over] = {**disk.tables[over], "status": "finished"}
    disk.tables[crowd] = {**disk.tables[crowd],
                          "spectators": [f"p{number}" for number in range(100_000)]}
    db = Database(tmp_path / "moon.sqlite3")
    await db.open()
    journal = SqliteJournal(db)
    await journal.write(
        [TableRow(t, row) for t, row in disk.tables.items()]
        + [HandRow(t, n, hand) for t, hands in disk.hands.items() for n, hand in hands.items()]
        + [ChatRow(t, line) for t, lines in disk.chat.items() for line in lines])

    def nest() -> None:
        with db.connection() as conn:
            conn.execute("UPDATE saved_tables SET data = ? WHERE table_id = ?",
                         ("[" * 100_000 + "]" * 100_000, deep))

    await db.run(nest)
    await db.close()
    with caplog.at_level(logging.INFO):
        async with running_server(tmp_path, lobby_config=FAST) as server:
            assert [t.table_id for t in server.lobby.tables()] == [good]
            assert [t.status for t in server.lobby.tables()] == ["playing"]
            assert [s.finished for s in await server.db.records()] == [False, False], \
                "the dropped games are kept as unfinished ones, the one marked finished too"
            client = await ScreenClient.connect(server.port, "dee", key=new_key())
            await client.wait_for("dee (you)")  # back in her seat at the good table
            await client.close()
    log = caplog.text
    assert f"table '{deep}' cannot come back" in log
    assert f"table '{over}' could not be taken up" in log and "has not ended" in log
    assert f"table '{crowd}' could not be taken up" in log and "at most 1000 names" in log
    assert f"table {good} taken up after the restart" in log
