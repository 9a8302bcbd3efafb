"""Nothing shown is lost, even on a full disk: a table whose move cannot be written waits
and says so, the operators are told, it goes on by itself once the disk takes writes,
and a crash meanwhile comes back as the players last saw it. A server started on a disk
that refuses writes says so and opens no new table until it can write.

The full disk is a fault put into the database's writes (`database or disk is full`, as
SQLite says it): a real one needs a small filesystem, and root to mount it
(`tools/full_disk.py` does that, for the figures).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_ssh_survive import facts, hand_tiles, move, my_turn, settled

from moon_tui.lobby import LobbyConfig
from moon_tui.services import BanNotSaved, TablesWaiting
from moon_tui.ui.alarm_words import alarm_words
from server.bans import Bans
from server.config import Limits
from server.journal import SqliteJournal
from server.registry import SessionRegistry
from server.service import MoonServer
from server.store import Database
from tools.probe import (
    ScreenClient,
    enter_lobby,
    eventually,
    new_key,
    open_bot_table,
    running_server,
)

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                   bot_time_budget=0.05)
WAIT = 30.0


class Disk:
    """The database's disk, full while `full` is set."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = False
        self.refused = 0
        write_rows = SqliteJournal._write_rows
        try_write = Database.try_write

        def refuse() -> None:
            self.refused += 1
            raise sqlite3.OperationalError("database or disk is full")

        def rows(journal: SqliteJournal, batch: Any) -> frozenset[str]:
            if self.full:
                refuse()
            return write_rows(journal, batch)

        def probe(db: Database) -> None:
            if self.full:
                refuse()
            try_write(db)

        monkeypatch.setattr(SqliteJournal, "_write_rows", rows)
        monkeypatch.setattr(Database, "try_write", probe)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[Disk]:
    yield Disk(monkeypatch)


def toasts(screen: str) -> str:
    """The words of the toasts on screen, their lines joined (a toast wraps its text)."""
    return " ".join(" ".join(row.rpartition("▌")[2].split()) for row in screen.splitlines()
                    if "▌" in row)


def says(words: str) -> Any:
    return lambda screen: words in toasts(screen)


def seats(screen: str) -> list[object]:
    """The seats' bids and points, the player's tiles and what they may do: what a toast
    at the top right does not cover."""
    return [row.split("▏")[0].replace("▶", " ").strip() for row in screen.splitlines()[1:]
            if "▏" in row] + [hand_tiles(screen), move(screen)]


def disk_alarm(server: MoonServer) -> str:
    """The operators' alarm about the disk ("" when there is none)."""
    return " ".join(alarm_words(raised.alarm) for raised in server.dashboard.alarms()
                    if isinstance(raised.alarm, TablesWaiting))


def crash_copy(data: Path, to: Path) -> None:
    """What a `kill -9` leaves on disk: the database and its write-ahead log as they are."""
    to.mkdir()
    for path in data.glob("moon.sqlite3*"):
        if not path.name.endswith("-shm"):
            shutil.copy(path, to / path.name)


async def test_a_move_that_cannot_be_written_is_not_shown_and_the_table_goes_on_after(
        tmp_path: Path, disk: Disk) -> None:
    key = new_key()
    data = tmp_path / "data"
    async with running_server(data, lobby_config=FAST) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=key, width=100, height=30)
        await enter_lobby(ann, WAIT)
        await open_bot_table(ann, WAIT)
        before = await settled(ann, my_turn)
        disk.full = True
        await ann.press("p" if "p pass" in before else "enter")
        waiting = await ann.wait_for(says("cannot save right now: the game waits"), WAIT)
        assert seats(waiting) == seats(before), "the move is not shown"
        await eventually(lambda: disk.refused >= 3, "the table tries again")
        alarm = disk_alarm(server)
        assert "1 table wait" in alarm and "new games are refused" in alarm, alarm
        crash_copy(data, tmp_path / "crashed")
        disk.full = False
        after = await ann.wait_for(says("saves again: the game goes on"), WAIT)
        assert seats(after) != seats(before), "the move is shown once written"
        await eventually(lambda: not disk_alarm(server), "the alarm ends")
        await ann.close()

    async with running_server(tmp_path / "crashed", lobby_config=FAST) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=key, width=100, height=30)
        await ann.wait_for(lambda s: "hand " in s.splitlines()[0], WAIT)
        assert facts(await settled(ann, my_turn)) == facts(before), \
            "after the crash: what ann last saw"
        await ann.close()


async def test_a_server_started_on_a_full_disk_says_so_and_opens_no_table_until_it_can(
        tmp_path: Path, disk: Disk, caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "data"
    async with running_server(data):
        pass  # the database is made
    disk.full = True
    async with running_server(data, lobby_config=FAST) as server:
        assert "cannot write the database" in caplog.text
        assert "new games are refused" in disk_alarm(server)
        ann = await ScreenClient.connect(server.port, "ann", key=new_key(), width=100,
                                         height=30)
        await enter_lobby(ann, WAIT)
        await ann.press("n")
        await ann.wait_for("Create (ctrl+s)", WAIT)
        await ann.press("\x13")
        await ann.wait_for(says("cannot save right now, so it starts no new game"), WAIT)
        disk.full = False
        await eventually(lambda: not disk_alarm(server), "the disk is tried again")
        await ann.press("n")
        await ann.wait_for("Create (ctrl+s)", WAIT)
        await ann.press("\x13")
        await ann.wait_for("waiting room", WAIT)
        await ann.close()


async def test_a_ban_the_disk_refuses_is_told_to_the_operators(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The banned player is out at once (in memory); that the ban will not last is said."""
    db = Database(tmp_path / "moon.sqlite3")
    await db.open()
    try:
        async def refuse(*_: object, **__: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(Database, "ban", refuse)
        bans = Bans(db, SessionRegistry(idle_minutes=10), Limits())
        with pytest.raises(sqlite3.OperationalError):
            await bans.ban("mallory", "spam")
        (raised,) = db.alarms()
        assert raised.alarm == BanNotSaved(False, "mallory", "database or disk is full")
        alarm = alarm_words(raised.alarm)
        assert "the ban of mallory could not be saved" in alarm and "ban them again" in alarm
    finally:
        await db.close()
