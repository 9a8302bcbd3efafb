"""The data folder under stress: a damaged or unwritable database, a full disk, two servers
on one folder. Each is reported in plain words; nothing is silently dropped."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from moon_tui.services import DatabaseFailed, DatabaseStep
from moon_tui.ui.alarm_words import alarm_words
from server.config import Limits, ServerConfig
from server.datafolder import DataFolderBusy
from server.identity import fingerprint
from server.service import MoonServer, load_or_create_host_key
from server.store import Database, DatabaseUnusable, SQLiteRecordStore
from tests.support.settings import FAST
from tools.probe import (
    ScreenClient,
    enter_lobby,
    eventually,
    new_key,
    open_connection,
    operator_command_line,
    running_server,
)

pytestmark = pytest.mark.ssh

REPO = Path(__file__).resolve().parent.parent
PAGE = 4096


async def make_data_folder(data: Path) -> Path:
    """A data folder as a server leaves it: host key and a database (WAL folded in)."""
    async with running_server(data, lobby_config=FAST):
        pass
    database = data / "moon.sqlite3"
    assert database.stat().st_size > 4 * PAGE
    return database


def damage_pages(database: Path) -> None:
    """Garbage over every page past the first (the header and schema stay readable)."""
    size = database.stat().st_size
    with open(database, "r+b") as file:
        file.seek(PAGE)
        file.write(bytes(range(256)) * ((size - PAGE) // 256))


AS_NOBODY = """
import os, sys
import server.cli
os.setgroups([]); os.setegid(65534); os.seteuid(65534)
sys.exit(server.cli.main(sys.argv[1:]))
"""
"""`moon-server` started by root that then runs as `nobody`, as a service would under its
own user (`nobody` cannot start this Python by itself: it lives in root's home)."""


def run_cli(data: Path, *, as_nobody: bool = False) -> subprocess.CompletedProcess[str]:
    command = ["-c", AS_NOBODY] if as_nobody else ["-m", "server.cli"]
    return subprocess.run(
        [sys.executable, *command, "--host", "127.0.0.1", "--port", "0", "--data", str(data)],
        capture_output=True, text=True, timeout=30, cwd=REPO,
    )


def assert_one_paragraph(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Refused to start: exit status 1, no traceback, one paragraph saying what to do."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    message = [line for line in result.stderr.splitlines() if line.startswith("moon-server:")]
    assert len(message) == 1, result.stderr
    for word in words:
        assert word in message[0], message[0]
    return message[0]


# --- a damaged database ------------------------------------------------------------------


async def test_a_database_with_damaged_pages_is_refused_at_start(tmp_path: Path) -> None:
    database = await make_data_folder(tmp_path)
    damage_pages(database)
    server = MoonServer(ServerConfig(host="127.0.0.1", port=0, data=tmp_path),
                        lobby_config=FAST)
    with pytest.raises(DatabaseUnusable, match="damaged") as refused:
        await server.start()
    assert "restore it from your latest backup" in str(refused.value)
    assert str(database) in str(refused.value)
    # The refused server let go of the folder: once the backup is back, it starts.
    database.unlink()
    async with running_server(tmp_path, lobby_config=FAST):
        pass


async def test_moon_server_refuses_damaged_pages_with_a_plain_message(tmp_path: Path) -> None:
    database = await make_data_folder(tmp_path)
    damage_pages(database)
    message = assert_one_paragraph(run_cli(tmp_path), "damaged", "backup", str(database))
    assert "listening" not in message


async def test_moon_server_refuses_a_file_of_random_bytes(tmp_path: Path) -> None:
    database = await make_data_folder(tmp_path)
    database.write_bytes(os.urandom(64 * 1024))
    for leftover in (tmp_path / "moon.sqlite3-wal", tmp_path / "moon.sqlite3-shm"):
        leftover.unlink(missing_ok=True)
    assert_one_paragraph(run_cli(tmp_path), "damaged", "backup", str(database))


@pytest.fixture
def read_only_data() -> Iterator[tuple[Path, bool]]:
    """A data folder with its host key but no database, that the server may not write.

    Root writes anywhere whatever the mode, so as root the server runs as `nobody` (the
    folder stays root's, mode 0755); otherwise the folder is made read-only for us."""
    top = Path(tempfile.mkdtemp(prefix="moon-ro-"))
    data = top / "data"
    data.mkdir()
    load_or_create_host_key(data / "host_ed25519_key")
    as_nobody = os.geteuid() == 0
    if as_nobody:
        top.chmod(0o755)
        data.chmod(0o755)
        os.chown(data / "host_ed25519_key", 65534, 65534)
    else:
        data.chmod(0o555)
    try:
        yield data, as_nobody
    finally:
        data.chmod(0o755)
        for path in data.iterdir():
            path.unlink()
        data.rmdir()
        top.rmdir()


def test_moon_server_refuses_a_folder_it_may_not_write(
    read_only_data: tuple[Path, bool],
) -> None:
    data, as_nobody = read_only_data
    assert_one_paragraph(run_cli(data, as_nobody=as_nobody), str(data), "write")
    assert not (data / "moon.sqlite3").exists()


def test_moon_server_refuses_a_data_folder_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    assert_one_paragraph(run_cli(tmp_path / "file" / "data"), "--data")


async def test_a_login_whose_database_read_fails_is_told_and_logged_as_an_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = await make_data_folder(tmp_path)
    async with running_server(tmp_path, lobby_config=FAST) as server:
        damage_pages(database)  # the disk goes bad while the server runs
        banners: list[str] = []
        with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
            conn = await open_connection(server.port, "ann", key=new_key(), banners=banners)
            conn.close()
        assert "problem with its database" in " ".join(banners)
        assert "tell the club's operator" in " ".join(banners)
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert any("malformed" in r.getMessage() for r in errors), caplog.text
        (raised,) = server.db.alarms()
        assert isinstance(raised.alarm, DatabaseFailed)
        assert raised.alarm.step is DatabaseStep.LOGIN
        assert "a login failed: the database said" in alarm_words(raised.alarm)


# --- a full disk ---------------------------------------------------------------------------


def _fill(conn: sqlite3.Connection, insert: str, row: Any) -> None:
    """Insert rows of shrinking size until not even a tiny one fits."""
    for size in (2000, 200, 20, 0):
        while True:
            try:
                with conn:
                    conn.execute(insert, row(size))
            except sqlite3.OperationalError as error:
                assert "full" in str(error)
                break


async def fill_the_disk(db: Database) -> None:
    """A real "database or disk is full": the database may not grow a page more, and
    its accounts, keys and records have no room left (`PRAGMA max_page_count`)."""

    def fill() -> None:
        conn = db.connection()
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        conn.execute(f"PRAGMA max_page_count = {pages}")
        count = iter(range(1_000_000))
        _fill(conn, "INSERT INTO accounts (name, created, last_seen) VALUES (?, 0, 0)",
              lambda size: (f"~filler{next(count)}" + "x" * size,))
        _fill(conn, "INSERT INTO account_keys (fingerprint, name, public_key, added)"
              " VALUES (?, '~filler', '', 0)",
              lambda size: (f"~filler{next(count)}" + "x" * size,))
        _fill(conn, "INSERT INTO records (saved_at, finished, record) VALUES (0, 0, ?)",
              lambda size: (json.dumps({"filler": "x" * size}),))

    await db.run(fill)


async def free_the_disk(db: Database) -> None:
    def free() -> None:
        db.connection().execute("PRAGMA max_page_count = 1073741823")

    await db.run(free)


def games(stored: list[Any]) -> list[Any]:
    return [s for s in stored if "filler" not in s.record]


async def test_a_name_the_disk_cannot_save_is_explained_to_the_player(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await fill_the_disk(server.db)
        client = await ScreenClient.connect(server.port, "ann", key=new_key())
        await client.wait_closed()
        screen = client.text()
        assert "could not save your new name 'ann'" in screen
        assert "disk is full or read-only" in screen and "guest" in screen
        assert await server.db.account("ann") is None
        assert any(r.levelno >= logging.ERROR and "full" in r.getMessage()
                   for r in caplog.records), caplog.text
        # Once there is room again, the same player claims the name as usual.
        await free_the_disk(server.db)
        key = new_key()
        again = await ScreenClient.connect(server.port, "ann", key=key)
        await again.wait_for("Welcome, ann")
        await again.close()


async def test_records_the_disk_refuses_wait_and_the_operator_sees_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    olga_key = new_key()
    line = olga_key.export_public_key("openssh").decode()
    async with running_server(
        tmp_path, lobby_config=FAST, operators={"olga": (line,)},
        limits=Limits(record_retry_seconds=0.2),
    ) as server:
        olga = await ScreenClient.connect(server.port, "olga", key=olga_key, width=100)
        await enter_lobby(olga)
        await operator_command_line(olga)
        assert "could not be saved" not in olga.text()

        await fill_the_disk(server.db)
        await server.lobby.store.save({"format": "moon/1", "seats": ["ann", "bot"]},
                                      finished=True)  # as a table does at a game's end
        assert len(server.records.waiting) == 1
        assert any(r.levelno >= logging.ERROR and "kept in memory" in r.getMessage()
                   for r in caplog.records), caplog.text
        await olga.wait_for("game records could not be saved")
        assert "full" in olga.text()

        await free_the_disk(server.db)  # the operator made room: the timer saves it
        await eventually(lambda: not server.records.waiting, "the waiting record saved")
        (stored,) = games(await server.db.records())
        assert stored.finished and stored.record["seats"] == ["ann", "bot"]
        await olga.wait_for(lambda s: "could not be saved" not in s)
        await olga.close()


async def test_waiting_records_are_bounded_and_retried_at_shutdown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = Database(tmp_path / "moon.sqlite3")
    await db.open()
    store = SQLiteRecordStore(db, keep=2, retry_seconds=3600)
    await fill_the_disk(db)
    for number in (1, 2, 3):
        await store.save({"format": "moon/1", "seats": [f"p{number}"]}, finished=True)
    assert [r["seats"] for r, _ in store.waiting] == [["p2"], ["p3"]]
    assert "game record of p1 lost" in caplog.text
    await free_the_disk(db)
    await store.close()  # at shutdown: one last try, which now succeeds
    assert [s.record["seats"] for s in games(await db.records())] == [["p2"], ["p3"]]
    assert db.alarms() == ()
    await db.close()


async def test_records_still_refused_at_shutdown_are_logged_in_full(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = Database(tmp_path / "moon.sqlite3")
    await db.open()
    store = SQLiteRecordStore(db, retry_seconds=3600)
    await fill_the_disk(db)
    await store.save({"format": "moon/1", "seats": ["ann"]}, finished=False)
    await store.close()
    lost = [r.getMessage() for r in caplog.records if "lost at shutdown" in r.getMessage()]
    assert len(lost) == 1 and '{"format":"moon/1","seats":["ann"]}' in lost[0]
    await db.close()


# --- one server per data folder --------------------------------------------------------------


async def test_a_second_server_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST):
        second = MoonServer(ServerConfig(host="127.0.0.1", port=0, data=tmp_path),
                            lobby_config=FAST)
        with pytest.raises(DataFolderBusy, match=f"pid {os.getpid()}"):
            await second.start()
    async with running_server(tmp_path, lobby_config=FAST):  # free again once stopped
        pass


async def test_moon_server_refuses_a_folder_another_one_runs_on(tmp_path: Path) -> None:
    first = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "--host", "127.0.0.1", "--port", "0",
        "--data", str(tmp_path), stderr=asyncio.subprocess.PIPE, cwd=REPO,
    )
    assert first.stderr is not None
    try:
        while True:
            line = (await asyncio.wait_for(first.stderr.readline(), 30)).decode()
            assert line, "the first moon-server exited early"
            if re.search(r"listening on \S+ port \d+", line):
                break
        result = await asyncio.to_thread(run_cli, tmp_path)
        assert_one_paragraph(result, f"pid {first.pid}", "in use by another moon-server")
    finally:
        first.send_signal(signal.SIGTERM)
        await asyncio.wait_for(first.communicate(), 30)
    assert first.returncode == 0


async def test_a_key_the_disk_cannot_save_is_explained(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ann_key, laptop = new_key(), new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await client.wait_for("Welcome, ann")
        await client.close()
        code = server.link_codes.issue("ann")
        await fill_the_disk(server.db)
        client = await ScreenClient.connect(server.port, "ann", key=laptop)
        await client.wait_for("type the code from your keys dialog")
        await client.press(code, "enter")
        await client.wait_for("could not save your key")
        await client.close()
        assert await server.db.key_owner(fingerprint(laptop)) is None
        assert any(r.levelno >= logging.ERROR for r in caplog.records)
        (raised,) = server.db.alarms()
        assert isinstance(raised.alarm, DatabaseFailed)
        assert raised.alarm.step is DatabaseStep.NEW_KEY
