"""Who may open which of the club's saved games, for the interface and the commands.

Anyone logged in may open a finished game (RULES.md: once a game is over its full record
may be shown); an unfinished one only those who sat in it, each their own seat, and not
guests (a guest's name lasts one visit and may be someone else's tomorrow).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from moon_tui.rules import RecordFormatError
from moon_tui.rules.record import as_record
from moon_tui.services import GamePage, GameQuery, GameRefusal, GameRefused, OpenedGame

from .game_index import find_game, list_games, normal_code
from .identity import Player
from .store import Database


def seats_of(record: Mapping[str, Any], name: str) -> frozenset[int]:
    """The seats `name` sat in: named in `seats`, or a person in `seat_changes`."""
    seats = record.get("seats")
    found = {i for i, s in enumerate(seats) if s == name} if isinstance(seats, list) else set()
    changes = record.get("seat_changes")
    if isinstance(changes, list):
        found |= {c["seat"] for c in changes if isinstance(c, dict) and c.get("name") == name
                  and not c.get("computer") and isinstance(c.get("seat"), int)}
    return frozenset(found)


def open_game(db: sqlite3.Connection, code: str, player: Player) -> OpenedGame:
    """The game `code` as `player` may see it, or `GameRefused` (see the docstring)."""
    normal = normal_code(code)
    found = None if normal is None else find_game(db, normal)
    if found is None:
        raise GameRefused(GameRefusal.UNKNOWN, code)
    entry, text = found
    data = json.loads(text)
    seats: frozenset[int] | None = None
    if not entry.finished:
        if player.guest:
            raise GameRefused(GameRefusal.GUEST, entry.code)
        seats = seats_of(data, player.name)
        if not seats:
            raise GameRefused(GameRefusal.NOT_SEATED, entry.code)
    try:
        record = as_record(data)
    except RecordFormatError:
        raise GameRefused(GameRefusal.UNKNOWN, entry.code) from None
    return OpenedGame(entry, record, seats, seat_changes_of(data, record.rules.players))


def seat_changes_of(data: Mapping[str, Any], players: int) -> tuple[dict[str, Any], ...]:
    """The record's `seat_changes` entries that have the documented shape."""
    changes = data.get("seat_changes")
    if not isinstance(changes, list):
        return ()
    kept = []
    for change in changes:
        if (isinstance(change, dict) and all(isinstance(change.get(k), int) and
                                             not isinstance(change.get(k), bool)
                                             for k in ("hand", "at", "seat"))
                and 0 <= change["seat"] < players and isinstance(change.get("name"), str)
                and isinstance(change.get("computer"), bool)
                and isinstance(change.get("why"), str)):
            kept.append({k: change[k] for k in ("hand", "at", "seat", "name", "computer",
                                                 "why")})
    return tuple(kept)


class ClubGames:
    """`moon_tui.services.GameArchive` for one player, over the server's database.

    Reads run at once on the loop's read-only connection (store.py): a page is one indexed
    range of rows (well under a millisecond), a game one row."""

    def __init__(self, db: Database, player: Player) -> None:
        self._db = db
        self._player = player

    async def games(self, query: GameQuery) -> GamePage:
        return list_games(self._db.reader(), query)

    async def open(self, code: str) -> OpenedGame:
        return open_game(self._db.reader(), code, self._player)
