"""Ratings kept in the server's database (server/ratings.py): rated as each finished
record is kept, and the same again when rebuilt from the records."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.ratings import read_card, read_leaderboard, rebuild
from server.store import Database
from tests.support.games import finished_record

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(tmp_path / "moon.sqlite3")
    await database.open()
    yield database
    await database.close()


def everything(conn: sqlite3.Connection) -> dict[str, list[Any]]:
    return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
            for table in ("ratings", "rated_games", "rating_games")}


CLUB = ("ann", "bob", "cid", "dan", "eve")
LEVELS = ("easy bot", "normal bot", "expert bot")


def evening(games: int) -> list[tuple[dict[str, Any], bool]]:
    """A club's evening: three and four players, people and computers, unrated games, a
    guest, games cut short, a player who left."""
    out = []
    for n in range(games):
        players = 3 + n % 2
        names = [CLUB[(n + i) % len(CLUB)] for i in range(players - 1)]
        names.append(LEVELS[n % 3] if n % 5 else "guest-1234")
        if n % 7 == 3:
            names[1] = LEVELS[(n + 1) % 3]
        changes: dict[str, Any] = {}
        if n % 6 == 5:
            changes["seat_changes"] = [{"hand": 0, "at": 1, "seat": 0, "name": "normal bot",
                                        "computer": True, "why": "left"}]
        record = finished_record(names, n, rated=n % 9 != 4, **changes)
        out.append((record, n % 11 != 10))
    return out


async def test_live_ratings_and_a_rebuild_agree(db: Database) -> None:
    for record, finished in evening(40):
        await db.save_record(record, finished=finished)
    conn = db.connection()
    live = await db.run(lambda: everything(conn))
    assert live["ratings"] and live["rated_games"]
    counted = await db.run(lambda: rebuild(conn))
    assert counted == len(live["rated_games"])
    assert await db.run(lambda: everything(conn)) == live


async def test_who_is_kept_and_how_they_are_marked(db: Database) -> None:
    for record, finished in evening(20):
        await db.save_record(record, finished=finished)
    conn = db.connection()
    kept = await db.run(lambda: conn.execute("SELECT name, bot FROM ratings").fetchall())
    names = {name for name, _ in kept}
    assert "guest-1234" not in names  # a guest's name is someone else's next visit
    assert {name for name, bot in kept if bot} == set(LEVELS)
    assert names - set(LEVELS) <= set(CLUB)


async def test_only_finished_rated_games_count(db: Database) -> None:
    names = ["ann", "bob", "normal bot"]
    await db.save_record(finished_record(names, 1, rated=False), finished=True)
    await db.save_record(finished_record(names, 2), finished=False)
    conn = db.connection()
    assert await db.run(lambda: everything(conn)["ratings"]) == []
    await db.save_record(finished_record(names, 3), finished=True)
    assert len(await db.run(lambda: everything(conn)["ratings"])) == 3


async def test_a_page_and_a_card(db: Database) -> None:
    for record, finished in evening(60):
        await db.save_record(record, finished=finished)
    conn = db.connection()
    page = await db.run(lambda: read_leaderboard(conn, 3, me="ann"))
    assert page.rows and [r.place for r in page.rows] == list(range(1, len(page.rows) + 1))
    assert [r.rating for r in page.rows] == sorted((r.rating for r in page.rows),
                                                    reverse=True)
    assert all(r.games >= 5 for r in page.rows)
    assert page.me is not None and page.me.name == "ann"
    card = await db.run(lambda: read_card(conn, "ann"))
    assert card is not None and not card.bot
    for pool in card.pools:
        assert len(pool.history) == min(pool.games, 60) and pool.history[-1] == pool.rating
        assert pool.bids_made <= pool.bids_tried and pool.moons_made <= pool.moons_tried
    assert card.last_games and all("ann" in game.seats for game in card.last_games)
    assert [g.record_id for g in card.last_games] == sorted(
        (g.record_id for g in card.last_games), reverse=True)
    assert await db.run(lambda: read_card(conn, "nobody")) is None


def ratings_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.cli", "ratings", *args],
                          capture_output=True, text=True, timeout=120, cwd=REPO)


async def test_the_rebuild_command_brings_back_what_the_games_gave(tmp_path: Path) -> None:
    data = tmp_path / "data"
    db = Database(data / "moon.sqlite3")
    await db.open()
    for record, finished in evening(30):
        await db.save_record(record, finished=finished)
    conn = db.connection()
    live = await db.run(lambda: everything(conn))

    def spoil() -> None:  # e.g. a restore brought back ratings older than the records
        with conn:
            conn.execute("UPDATE ratings SET mu = mu + 1, games = 0")
            conn.execute("DELETE FROM rating_games WHERE record_id > 10")

    await db.run(spoil)
    await db.close()
    done = ratings_cli("--rebuild", "--data", str(data))
    assert done.returncode == 0, done.stderr
    counted = len(live["rated_games"])
    assert done.stdout.startswith(f"moon-server ratings: {counted} rated games counted from ")
    again = sqlite3.connect(data / "moon.sqlite3")
    assert everything(again) == live
    again.close()


def test_the_rebuild_command_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    for args, status, words in ((("--rebuild", "--data", str(tmp_path)), 1, "no database"),
                                (("--data", str(tmp_path)), 2, "--rebuild"),
                                (("--rebuild", "--frob"), 2, "--frob")):
        done = ratings_cli(*args)
        assert done.returncode == status, done
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("moon-server ratings:") and words in line, line
