"""Ratings kept in the server's database, derived from the game records.

`count_record` rates one finished record: the store calls it in the very transaction that
keeps the record (`Database.save_record`), so a record and its ratings are on the disk
together or not at all, in the order of the records' ids. `rebuild` forgets every rating
and counts the records again in that order, with the same function: it gives the same
figures as the live updates (a test checks it), after an upgrade of the rating model or
a restore from a backup. Guests take part as newcomers and nothing is kept of them (a
guest's name is given to someone else on another visit).

Three tables: `ratings` (a player's rating and totals per pool), `rated_games` (each game
that counted) and `rating_games` (each player's rating after each of their games, for
the chart, the trend and their last games). Every read is a few index lookups, whatever
the club's size (`bench/ratings.py`).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from moon_tui.ratings.board import (
    CHART_GAMES,
    LAST_GAMES,
    LISTED_GAMES,
    TREND_GAMES,
    GameLine,
    LeaderboardPage,
    LeaderRow,
    PlayerCard,
    PoolRecord,
)
from moon_tui.ratings.game import GameResult, is_bot, result_of
from moon_tui.ratings.model import NEWCOMER, Rating, rate
from moon_tui.rules import IllegalRecordError, RecordFormatError

from .identity import GUEST_PREFIX

if TYPE_CHECKING:
    from .store import Database

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS ratings (
    pool INTEGER NOT NULL,
    name TEXT NOT NULL,
    bot INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    shown REAL NOT NULL,
    listed INTEGER NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    points INTEGER NOT NULL,
    bids_tried INTEGER NOT NULL,
    bids_made INTEGER NOT NULL,
    moons_tried INTEGER NOT NULL,
    moons_made INTEGER NOT NULL,
    trumps TEXT NOT NULL,
    PRIMARY KEY (pool, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ratings_board ON ratings(pool, listed, shown DESC, name);
CREATE TABLE IF NOT EXISTS rated_games (
    record_id INTEGER PRIMARY KEY,
    pool INTEGER NOT NULL,
    at REAL NOT NULL,
    seats TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_games (
    name TEXT NOT NULL,
    pool INTEGER NOT NULL,
    record_id INTEGER NOT NULL,
    place INTEGER NOT NULL,
    won INTEGER NOT NULL,
    shown REAL NOT NULL,
    PRIMARY KEY (name, pool, record_id)
) WITHOUT ROWID;
"""

_COUNTED = (
    "hands", "points", "bids_tried", "bids_made", "moons_tried", "moons_made",
)


def kept(name: str) -> bool:
    """A name whose rating is kept: a player with an account, or a computer level."""
    return not name.startswith(GUEST_PREFIX)


# --- writing ------------------------------------------------------------------------------

def count_record(db: sqlite3.Connection, record_id: int, saved_at: float,
                 record: Mapping[str, Any]) -> GameResult | None:
    """Rate the finished game `record` (kept as `record_id`) if it counts, inside the
    caller's transaction. A record that is not legal is logged and not rated."""
    try:
        result = result_of(record)
    except (RecordFormatError, IllegalRecordError) as error:
        log.error("game record %d not rated: %s", record_id, error)
        return None
    if result is None:
        return None
    db.execute("SAVEPOINT rating")
    try:
        apply_result(db, record_id, saved_at, result)
    except sqlite3.Error:
        raise  # the disk: the record waits and is tried again with its ratings
    except Exception:  # a fault of ours must not cost the record
        db.execute("ROLLBACK TO rating")
        log.exception("game record %d not rated", record_id)
        return None
    finally:
        db.execute("RELEASE rating")
    return result


def apply_result(db: sqlite3.Connection, record_id: int, saved_at: float,
                 result: GameResult) -> None:
    """Store what `result` changes: each kept name's rating and totals, and the game."""
    pool = result.players
    rows = {name: _row(db, pool, name) for name in result.names if kept(name)}
    before = [rows[name][0] if name in rows else NEWCOMER for name in result.names]
    after = rate(result, before)
    db.execute("INSERT INTO rated_games (record_id, pool, at, seats) VALUES (?, ?, ?, ?)",
               (record_id, pool, saved_at, json.dumps(list(result.names))))
    for name, (_, totals) in rows.items():
        seats = [s for s, n in enumerate(result.names) if n == name]
        new = after[seats[0]]
        games = totals["games"] + 1
        totals = dict(totals, games=games,
                      wins=totals["wins"] + any(result.won[s] for s in seats))
        trumps: dict[str, int] = json.loads(totals["trumps"])
        for seat in seats:
            deeds = result.deeds[seat]
            for key in _COUNTED:
                totals[key] += getattr(deeds, key)
            for trump, count in deeds.trumps:
                trumps[trump] = trumps.get(trump, 0) + count
        db.execute(
            "INSERT OR REPLACE INTO ratings (pool, name, bot, mu, sigma, shown, listed, games,"
            " wins, hands, points, bids_tried, bids_made, moons_tried, moons_made, trumps)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pool, name, int(is_bot(name)), new.mu, new.sigma, new.shown,
             int(games >= LISTED_GAMES), games, totals["wins"],
             *(totals[key] for key in _COUNTED), json.dumps(trumps, sort_keys=True)))
        db.execute(
            "INSERT INTO rating_games (name, pool, record_id, place, won, shown)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (name, pool, record_id, min(result.places[s] for s in seats),
             int(any(result.won[s] for s in seats)), new.shown))


def _row(db: sqlite3.Connection, pool: int, name: str) -> tuple[Rating, dict[str, Any]]:
    found = db.execute(
        "SELECT mu, sigma, games, wins, hands, points, bids_tried, bids_made, moons_tried,"
        " moons_made, trumps FROM ratings WHERE pool = ? AND name = ?", (pool, name)
    ).fetchone()
    if found is None:
        return NEWCOMER, dict(games=0, wins=0, trumps="{}", **dict.fromkeys(_COUNTED, 0))
    mu, sigma, games, wins, *counted, trumps = found
    return Rating(mu, sigma), dict(games=games, wins=wins, trumps=trumps,
                                   **dict(zip(_COUNTED, counted, strict=True)))


def rebuild(db: sqlite3.Connection,
            progress: Callable[[int, int], None] | None = None) -> int:
    """Forget every rating and count every finished record again, in the order kept, in
    one transaction; `progress(done, total)` hears how far it is. How many games counted."""
    total = int(db.execute("SELECT COUNT(*) FROM records WHERE finished = 1").fetchone()[0])
    counted = done = 0
    with db:
        for table in ("ratings", "rated_games", "rating_games"):
            db.execute(f"DELETE FROM {table}")  # noqa: S608 - names from the code
        last = 0
        if progress is not None:
            progress(0, total)
        while True:
            batch = db.execute(
                "SELECT id, saved_at, record FROM records WHERE finished = 1 AND id > ?"
                " ORDER BY id LIMIT 500", (last,)).fetchall()
            if not batch:
                break
            for record_id, saved_at, text in batch:
                last = record_id
                counted += count_record(db, record_id, saved_at, json.loads(text)) is not None
                done += 1
            if progress is not None:
                progress(done, total)
    return counted


# --- reading ------------------------------------------------------------------------------

def read_leaderboard(db: sqlite3.Connection, players: int, offset: int = 0,
                     limit: int = 20, me: str | None = None) -> LeaderboardPage:
    """A page of the board of the `players` pool: the listed players, best first."""
    listed = int(db.execute("SELECT COUNT(*) FROM ratings WHERE pool = ? AND listed = 1",
                            (players,)).fetchone()[0])
    found = db.execute(
        "SELECT name, bot, shown, games, wins FROM ratings WHERE pool = ? AND listed = 1"
        " ORDER BY shown DESC, name LIMIT ? OFFSET ?", (players, limit, offset)).fetchall()
    rows = tuple(LeaderRow(offset + i + 1, name, bool(bot), shown, games, wins,
                           _trend(db, name, players, shown))
                 for i, (name, bot, shown, games, wins) in enumerate(found))
    mine = None if me is None else _own_row(db, players, me)
    return LeaderboardPage(players, listed, offset, rows, mine)


def _place(db: sqlite3.Connection, pool: int, name: str, shown: float) -> int:
    ahead = db.execute(
        "SELECT COUNT(*) FROM ratings WHERE pool = ? AND listed = 1"
        " AND (shown > ? OR (shown = ? AND name < ?))", (pool, shown, shown, name)
    ).fetchone()[0]
    return int(ahead) + 1


def _own_row(db: sqlite3.Connection, pool: int, name: str) -> LeaderRow | None:
    found = db.execute(
        "SELECT bot, shown, games, wins, listed FROM ratings WHERE pool = ? AND name = ?",
        (pool, name)).fetchone()
    if found is None:
        return None
    bot, shown, games, wins, listed = found
    place = _place(db, pool, name, shown) if listed else None
    return LeaderRow(place, name, bool(bot), shown, games, wins,
                     _trend(db, name, pool, shown))


def _trend(db: sqlite3.Connection, name: str, pool: int, shown: float) -> float | None:
    then = db.execute(
        "SELECT shown FROM rating_games WHERE name = ? AND pool = ?"
        " ORDER BY record_id DESC LIMIT 1 OFFSET ?", (name, pool, TREND_GAMES)).fetchone()
    return None if then is None else shown - float(then[0])


def read_card(db: sqlite3.Connection, name: str) -> PlayerCard | None:
    """Everything a player card shows, or None for a name with no rated game."""
    pools = []
    for pool in (3, 4):
        found = db.execute(
            "SELECT mu, sigma, shown, listed, games, wins, hands, points, bids_tried,"
            " bids_made, moons_tried, moons_made, trumps FROM ratings"
            " WHERE pool = ? AND name = ?", (pool, name)).fetchone()
        if found is None:
            continue
        (mu, sigma, shown, listed, games, wins, hands, points, bids_tried, bids_made,
         moons_tried, moons_made, trumps) = found
        history = [float(row[0]) for row in db.execute(
            "SELECT shown FROM rating_games WHERE name = ? AND pool = ?"
            " ORDER BY record_id DESC LIMIT ?", (name, pool, CHART_GAMES))]
        named = sorted(json.loads(trumps).items(), key=lambda item: (-item[1], item[0]))
        pools.append(PoolRecord(
            pool, _place(db, pool, name, shown) if listed else None, shown, mu, sigma,
            games, wins, hands, points, bids_tried, bids_made, moons_tried, moons_made,
            tuple(named), tuple(reversed(history))))
    if not pools:
        return None
    games = db.execute(
        "SELECT * FROM (SELECT record_id, pool, place, won, shown FROM rating_games"
        "  WHERE name = ? AND pool = 3 ORDER BY record_id DESC LIMIT ?)"
        " UNION ALL SELECT * FROM (SELECT record_id, pool, place, won, shown"
        "  FROM rating_games WHERE name = ? AND pool = 4 ORDER BY record_id DESC LIMIT ?)"
        " ORDER BY record_id DESC LIMIT ?",
        (name, LAST_GAMES, name, LAST_GAMES, LAST_GAMES)).fetchall()
    lines = []
    for record_id, pool, place, won, shown in games:
        at, seats = db.execute("SELECT at, seats FROM rated_games WHERE record_id = ?",
                               (record_id,)).fetchone()
        coded = db.execute("SELECT code FROM records WHERE id = ?", (record_id,)).fetchone()
        lines.append(GameLine(record_id, at, pool, tuple(json.loads(seats)), place,
                              bool(won), shown, None if coded is None else coded[0]))
    return PlayerCard(name, is_bot(name), tuple(pools), tuple(lines))


class DatabaseRatings:
    """`moon_tui.services.RatingBook` over the server's database: each read is a few
    index lookups (~1 ms at 10,000 players), made on the database's thread."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def leaderboard(self, players: int, offset: int, limit: int,
                          me: str | None) -> LeaderboardPage:
        return await self._db.run(
            lambda: read_leaderboard(self._db.connection(), players, offset, limit, me))

    async def card(self, name: str) -> PlayerCard | None:
        return await self._db.run(lambda: read_card(self._db.connection(), name))
