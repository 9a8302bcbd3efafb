"""The index of the club's saved games: each record's short code, and what a list shows.

A record is kept whole in `records.record` (store.py); reading a list from those texts
would parse megabytes per page. So when a record is saved (and once, for the records of
an older database, when it is opened) this module notes beside it what a list shows: a
short code, the number of players, and a small summary (the seats, the rules, hands,
scores and winner, replayed once through the rules), and each seated name in
`record_players`. A page is then one indexed range of rows, newest first, read by key
(`before`) so that it costs the same on page 1 and page 5,000 (`bench/games_list.py`).
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
from collections.abc import Mapping
from typing import Any

from moon_tui.lobby.messages import CODE_ALPHABET, CODE_LENGTH
from moon_tui.rules import RecordFormatError, Rules, RulesError
from moon_tui.rules.replay import replay_game
from moon_tui.services import GameEntry, GamePage, GameQuery

log = logging.getLogger(__name__)

PAGE_MAX = 200
"""The most games one page (or `games --limit`) lists."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS record_players (
    name TEXT NOT NULL,
    record_id INTEGER NOT NULL,
    PRIMARY KEY (name, record_id)
) WITHOUT ROWID;
"""
COLUMNS = (("code", "TEXT"), ("players", "INTEGER"), ("summary", "TEXT"))
INDEXES = (
    "CREATE UNIQUE INDEX IF NOT EXISTS records_code ON records(code)",
    "CREATE INDEX IF NOT EXISTS records_players ON records(players, id)",
)


def new_code() -> str:
    """A game's short code: 6 letters and digits that are not misread (no 0/O, 1/I)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """A code as typed (any case, spaces or a dash around), or None if it cannot be one."""
    code = text.strip().replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def summary_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a list shows of a record, replayed once: seats, rules, hands, scores, winner."""
    seats = record.get("seats")
    out: dict[str, Any] = {"seats": [str(s) for s in seats] if isinstance(seats, list) else [],
                           "rules": record.get("rules", {}), "hands": 0, "scores": [],
                           "winner": None}
    try:
        game = replay_game(record, keep_hands=False)
    except (RecordFormatError, ValueError):  # kept as it came, listed with what is known
        return out
    out.update(rules=game.record.rules.to_dict(), hands=game.hand_count,
               scores=list(game.scores),
               winner=None if game.outcome is None else game.outcome.winner)
    return out


def index_record(db: sqlite3.Connection, record_id: int, record: Mapping[str, Any]) -> str:
    """Note a record just saved (inside the caller's transaction): its code, summary and
    players. Returns the code."""
    summary = summary_of(record)
    while True:
        code = new_code()
        try:
            db.execute("UPDATE records SET code = ?, players = ?, summary = ? WHERE id = ?",
                       (code, len(summary["seats"]), json.dumps(summary), record_id))
            break
        except sqlite3.IntegrityError:  # one chance in a billion per code: another
            continue
    db.executemany("INSERT OR IGNORE INTO record_players (name, record_id) VALUES (?, ?)",
                   [(name, record_id) for name in set(summary["seats"])])
    return code


def migrate(db: sqlite3.Connection) -> None:
    """Bring an older database's records into the index (at open, on the writer thread).

    Adds the columns and indexes, then codes and summaries for the records that have none
    (a record replays in about a millisecond: a club's thousands take seconds, once)."""
    db.executescript(SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(records)")}
    for name, kind in COLUMNS:
        if name not in columns:
            db.execute(f"ALTER TABLE records ADD COLUMN {name} {kind}")
    for index in INDEXES:
        db.execute(index)
    waiting = [row[0] for row in db.execute("SELECT id FROM records WHERE code IS NULL")]
    if not waiting:
        db.commit()
        return
    log.info("indexing %d game records saved before games had codes", len(waiting))
    for record_id in waiting:
        (text,) = db.execute("SELECT record FROM records WHERE id = ?", (record_id,)).fetchone()
        try:
            record = json.loads(text)
        except ValueError:
            record = {}
        index_record(db, record_id, record if isinstance(record, dict) else {})
    db.commit()


def _entry(row: tuple[Any, ...]) -> GameEntry:
    record_id, code, saved_at, finished, summary_text = row
    summary = json.loads(summary_text or "{}")
    try:
        rules = Rules.from_dict(summary.get("rules") or {})
    except (RulesError, TypeError):
        rules = Rules.make(players=len(summary.get("seats", [])) or 3)
    winner = summary.get("winner")
    return GameEntry(
        key=int(record_id), code=str(code), saved_at=float(saved_at), finished=bool(finished),
        seats=tuple(str(s) for s in summary.get("seats", [])), rules=rules,
        hands=int(summary.get("hands", 0)),
        scores=tuple(int(s) for s in summary.get("scores", [])),
        winner=winner if isinstance(winner, int) else None,
    )


_FIELDS = "r.id, r.code, r.saved_at, r.finished, r.summary"


def list_games(db: sqlite3.Connection, query: GameQuery) -> GamePage:
    """A page of games, newest first, as `query` asks (see the module docstring)."""
    limit = max(1, min(query.limit, PAGE_MAX))
    where: list[str] = ["r.code IS NOT NULL"]
    args: list[object] = []
    if query.players is not None:
        where.append("r.players = ?")
        args.append(query.players)
    if query.player is not None:
        source = "record_players p JOIN records r ON r.id = p.record_id"
        where.append("p.name = ?")
        args.append(query.player)
        order = "p.record_id"
    else:
        source, order = "records r", "r.id"
    if query.before is not None:
        where.append(f"{order} < ?")
        args.append(query.before)
    rows = db.execute(
        f"SELECT {_FIELDS} FROM {source} WHERE {' AND '.join(where)}"
        f" ORDER BY {order} DESC LIMIT ?", (*args, limit + 1)).fetchall()
    return GamePage(tuple(_entry(row) for row in rows[:limit]), len(rows) > limit)


def find_game(db: sqlite3.Connection, code: str) -> tuple[GameEntry, str] | None:
    """The game with this code and its record's text, or None."""
    row = db.execute(f"SELECT {_FIELDS}, r.record FROM records r WHERE r.code = ?",
                     (code,)).fetchone()
    if row is None:
        return None
    return _entry(row[:5]), str(row[5])
