"""`moon-server backup FILE`: a consistent copy of a live server's database, its refusals,
and a restore that lets the same players back in with the same keys."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest

from moon_tui.lobby import LobbyConfig
from server.identity import openssh_line
from server.service import MoonServer
from tools.probe import (
    ScreenClient,
    decide_once,
    enter_lobby,
    new_key,
    open_bot_table,
    operator_command_line,
    running_server,
)

pytestmark = pytest.mark.ssh

REPO = Path(__file__).resolve().parent.parent
FAST = LobbyConfig(bot_delay=0.0, hand_pause=0.0, bot_time_budget=0.05,
                   operators=frozenset({"olga"}))


async def backup_cli(*args: str) -> tuple[int, str, str]:
    """`moon-server backup ...` in its own process, as a timer runs it; the loop (and the
    server in it) keeps running meanwhile."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "backup", *args, cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def run_backup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "backup", *args],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )


def one_paragraph(stderr: str, *words: str) -> str:
    assert "Traceback" not in stderr, stderr
    (line,) = stderr.strip().splitlines()
    assert line.startswith("moon-server backup:"), line
    for word in words:
        assert word in line, line
    return line


async def saved_records(server: MoonServer, count: int) -> None:
    """Wait until the server's database holds `count` game records."""
    for _ in range(400):
        if len(await server.db.records()) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the server did not save {count} game records")


async def a_club_at_play(server: MoonServer, ann_key: asyncssh.SSHKey,
                         olga_key: asyncssh.SSHKey) -> tuple[ScreenClient, ScreenClient]:
    """ann and olga logged in (their keys claimed their names), and a game olga closed
    in the middle: its record saved."""
    ann = await ScreenClient.connect(server.port, "ann", key=ann_key)
    await enter_lobby(ann)
    olga = await ScreenClient.connect(server.port, "olga", key=olga_key)
    await enter_lobby(olga)
    await open_bot_table(ann)
    await decide_once(ann)  # else the game is not saved
    await operator_command_line(olga)
    (table,) = server.lobby.tables()  # the id the dashboard lists
    await olga.press(*f"close {table.table_id} backup drill", "enter")
    await ann.wait_for("backup drill")
    await saved_records(server, 1)
    return ann, olga


def read_backup(path: Path) -> tuple[dict[str, str], list[str], str]:
    """The accounts (key fingerprint -> name), the records' text and the journal mode of a
    backup file, opened on its own (no -wal next to it) after an integrity check."""
    assert not Path(f"{path}-wal").exists()
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        accounts = dict(connection.execute("SELECT fingerprint, name FROM account_keys"))
        records = [row[0] for row in connection.execute("SELECT record FROM records")]
        (mode,) = connection.execute("PRAGMA journal_mode").fetchone()
    finally:
        connection.close()
    return accounts, records, mode


# --- a backup of a live server -----------------------------------------------------------


async def test_a_backup_taken_while_players_play_holds_their_accounts_and_records(
    tmp_path: Path,
) -> None:
    data, target = tmp_path / "data", tmp_path / "moon-backup.sqlite3"
    ann_key, olga_key = new_key(), new_key()
    operators = {"olga": (openssh_line(olga_key),)}
    async with running_server(data, lobby_config=FAST, operators=operators) as server:
        ann, olga = await a_club_at_play(server, ann_key, olga_key)
        # What was just written is still in the write-ahead log, not in moon.sqlite3:
        # a copy of that file alone would miss it.
        assert (data / "moon.sqlite3-wal").stat().st_size > 0
        status, out, err = await backup_cli(str(target), "--data", str(data))
        assert status == 0, err
        assert "2 accounts, 1 game records" in out
        # The server did not notice: both players still play.
        await ann.press("escape")
        await olga.press("escape")
        await olga.wait_for("new table")
        assert server.sessions.count == 2
        await ann.close()
        await olga.close()
    accounts, records, mode = read_backup(target)
    assert accounts == {ann_key.get_fingerprint("sha256"): "ann",
                        olga_key.get_fingerprint("sha256"): "olga"}
    assert len(records) == 1 and '"ann"' in records[0]
    assert mode == "delete", "one self-contained file"
    assert not list(tmp_path.glob(".*partial")), "no temporary file left behind"


# --- restoring it --------------------------------------------------------------------------


async def test_restoring_a_backup_lets_the_same_players_in_with_the_same_keys(
    tmp_path: Path,
) -> None:
    data, target = tmp_path / "data", tmp_path / "moon-backup.sqlite3"
    ann_key, olga_key, bea_key = new_key(), new_key(), new_key()
    operators = {"olga": (openssh_line(olga_key),)}
    async with running_server(data, lobby_config=FAST, operators=operators) as server:
        ann, olga = await a_club_at_play(server, ann_key, olga_key)
        status, _out, err = await backup_cli(str(target), "--data", str(data))
        assert status == 0, err
        await ann.close()
        await olga.close()
        # After the backup: a new player, and the database is then lost.
        bea = await ScreenClient.connect(server.port, "bea", key=bea_key)
        await bea.wait_for("Welcome, bea")
        await bea.close()
    # Restore as deploy/README.md says: the server stopped, the backup copied over
    # moon.sqlite3, -wal and -shm removed, the server started.
    database = data / "moon.sqlite3"
    shutil.copyfile(target, database)
    for leftover in (Path(f"{database}-wal"), Path(f"{database}-shm")):
        leftover.unlink(missing_ok=True)
    async with running_server(data, lobby_config=FAST, operators=operators) as server:
        again = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await enter_lobby(again)
        await again.close()
        # ann's name is hers again: another key is asked for a code from her keys dialog.
        stranger = await ScreenClient.connect(server.port, "ann", key=new_key())
        await stranger.wait_for("This key is new to ann")
        await stranger.close()
        (record,) = await server.db.records()
        assert not record.finished and "ann" in record.record["seats"]
        assert await server.db.account("bea") is None, "the restored database is the backup"


# --- what it refuses ---------------------------------------------------------------------


async def test_a_backup_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    data, target = tmp_path / "data", tmp_path / "moon-backup.sqlite3"
    async with running_server(data, lobby_config=FAST):
        pass
    target.write_text("last week's backup")
    result = run_backup(str(target), "--data", str(data))
    assert result.returncode == 1
    one_paragraph(result.stderr, str(target), "already exists", "--force")
    assert target.read_text() == "last week's backup"

    result = run_backup(str(target), "--data", str(data), "--force")
    assert result.returncode == 0, result.stderr
    assert read_backup(target)[0] == {}

    # Never over the database itself, forced or not.
    database = data / "moon.sqlite3"
    before = database.read_bytes()
    for own in (database, data / "moon.sqlite3-wal"):
        result = run_backup(str(own), "--data", str(data), "--force")
        assert result.returncode == 1
        one_paragraph(result.stderr, "the database itself")
    assert database.read_bytes() == before


def test_a_backup_refuses_a_data_folder_without_a_database(tmp_path: Path) -> None:
    data = tmp_path / "empty"
    data.mkdir()
    target = tmp_path / "backup.sqlite3"
    result = run_backup(str(target), "--data", str(data))
    assert result.returncode == 1
    one_paragraph(result.stderr, "no database", str(data), "--data", "MOON_DATA")
    assert not target.exists()
    assert list(data.iterdir()) == [], "no database was made in the data folder"


def test_a_backup_finds_the_data_folder_as_the_server_does(tmp_path: Path) -> None:
    # From the configuration file (the one the server is started with), and from
    # MOON_DATA; each names the folder it looked in when there is no database there.
    config = tmp_path / "config.toml"
    config.write_text('data = "from-config"\n')
    result = run_backup(str(tmp_path / "b.sqlite3"), "--config", str(config))
    assert result.returncode == 1
    one_paragraph(result.stderr, "no database", str(tmp_path / "from-config"))

    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "backup", str(tmp_path / "b.sqlite3")],
        capture_output=True, text=True, timeout=60, cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "MOON_DATA": str(tmp_path / "from-env")},
    )
    assert result.returncode == 1
    one_paragraph(result.stderr, "no database", str(tmp_path / "from-env"))


def test_a_backup_with_a_wrong_configuration_or_folder_says_so(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("data = [\n")
    result = run_backup(str(tmp_path / "b.sqlite3"), "--config", str(config))
    assert result.returncode == 2
    one_paragraph(result.stderr, "not valid TOML")

    data = tmp_path / "data"
    data.mkdir()
    sqlite3.connect(data / "moon.sqlite3").close()
    result = run_backup(str(tmp_path / "no-such-folder" / "b.sqlite3"), "--data", str(data))
    assert result.returncode == 1
    one_paragraph(result.stderr, "does not exist")
    result = run_backup(str(tmp_path), "--data", str(data))
    assert result.returncode == 1
    one_paragraph(result.stderr, "is a folder")


async def test_force_replaces_only_a_regular_file(tmp_path: Path) -> None:
    # Run as root on /dev/full, --force replaced the device with a SQLite file (issue 31):
    # a FIFO, a symlink (and so a device behind it) are refused, and left as they were.
    data = tmp_path / "data"
    async with running_server(data, lobby_config=FAST):
        pass
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not yours")
    link = tmp_path / "link.sqlite3"
    link.symlink_to(elsewhere)
    for target in (fifo, link):
        result = run_backup(str(target), "--data", str(data), "--force")
        assert result.returncode == 1
        one_paragraph(result.stderr, str(target), "not a regular file")
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and link.is_symlink()
    assert elsewhere.read_text() == "not yours"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "elsewhere.txt",
                                                         "link.sqlite3", "pipe"]


async def test_the_database_its_wal_and_backups_are_for_the_servers_user_only(
        tmp_path: Path) -> None:
    # They hold keys, bans and addresses: 0600, the data folder 0700 (issue 30, item 19),
    # whatever the umask lets others read.
    old = os.umask(0o022)
    try:
        data = tmp_path / "data"
        async with running_server(data, lobby_config=FAST):
            wal = data / "moon.sqlite3-wal"
            assert wal.exists()
            assert stat.S_IMODE(wal.stat().st_mode) == 0o600
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        for name in ("moon.sqlite3", "moon.lock"):
            assert stat.S_IMODE((data / name).stat().st_mode) == 0o600, name
        target = tmp_path / "backup.sqlite3"
        result = run_backup(str(target), "--data", str(data))
        assert result.returncode == 0, result.stderr
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
    finally:
        os.umask(old)
