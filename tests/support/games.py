"""Finished game records made on the spot, for the ratings' tests and benchmarks."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from moon_tui.rules import Rules, record_of
from moon_tui.rules.cli import random_game


def finished_record(names: Sequence[str], seed: int, *, rated: bool = True,
                    target: int = 10, **changes: Any) -> dict[str, Any]:
    """The record of a whole game of random legal decisions between `names` (3 or 4),
    marked rated as a rated table marks it; `changes` are added to the record as they are
    (e.g. `seat_changes`)."""
    rules = Rules.make(players=len(names), target=target)
    rng = random.Random(seed)
    state = random_game(rules, rng, hands=60)
    while not state.is_terminal():  # random play may wander below zero for long
        state = random_game(rules, rng, hands=60)
    record = record_of(state, list(names))
    if rated:
        record["rated"] = True
    record.update(changes)
    return record


BOTS = ("easy bot", "normal bot", "expert bot")


def fill_ratings(conn: sqlite3.Connection, players: int, games: int, *, seed: int = 1,
                 first_id: int = 1, note: Callable[[int], None] | None = None) -> None:
    """Fill the ratings tables of a server's database as `games` rated games between
    `players` people and the three computer levels would have left them, without their
    records (a club's million games would take hours to play out): the shape and size
    the leaderboard and the cards read, for the benchmarks and the paging tests. The
    games take the record ids from `first_id` on."""
    rng = random.Random(seed)
    names = [f"player{i:05}" for i in range(players)] + list(BOTS)
    rows: dict[tuple[int, str], list[Any]] = {}
    history: list[tuple[Any, ...]] = []
    played: list[tuple[Any, ...]] = []
    trumps = ("0", "1", "2", "3", "4", "5", "6", "doubles", "none")
    for game in range(first_id, first_id + games):
        pool = 3 if rng.random() < 0.7 else 4
        seats = rng.sample(names[:-3], pool - 1) + [rng.choice(BOTS)]
        rng.shuffle(seats)
        places = list(range(1, pool + 1)) if pool == 3 else [1, 2, 1, 2]
        rng.shuffle(places)
        played.append((game, pool, 1_700_000_000 + game * 60, json.dumps(seats)))
        for name, place in zip(seats, places, strict=True):
            row = rows.setdefault((pool, name), [25.0, 8.33, 0, 0, 0, 0, 0, 0, 0, 0, {}])
            # A walk that stays where openskill's ratings live (about 0 to 50).
            row[0] = 25 + 0.98 * (row[0] - 25) + (2.5 - place) * row[1] / 10 \
                + rng.gauss(0, 0.3)
            row[1] = max(0.8, row[1] * 0.985)
            row[2] += 1
            row[3] += place == 1
            row[4] += 7
            row[5] += rng.randint(-5, 9)
            tried = rng.random() < 0.35
            row[6] += tried
            row[7] += tried and rng.random() < 0.6
            if tried:
                trump = rng.choice(trumps)
                row[10][trump] = row[10].get(trump, 0) + 1
            history.append((name, pool, game, place, int(place == 1), row[0] - 3 * row[1]))
        if len(history) > 200_000:
            _flush(conn, history, played)
        if note is not None and (game - first_id + 1) % 10_000 == 0:
            note(game - first_id + 1)
    _flush(conn, history, played)
    conn.executemany(
        "INSERT OR REPLACE INTO ratings (pool, name, bot, mu, sigma, shown, listed, games,"
        " wins, hands, points, bids_tried, bids_made, moons_tried, moons_made, trumps)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(pool, name, int(name in BOTS), r[0], r[1], r[0] - 3 * r[1], int(r[2] >= 5), r[2],
          r[3], r[4], r[5], r[6], r[7], r[8], r[9], json.dumps(r[10], sort_keys=True))
         for (pool, name), r in rows.items()])
    conn.commit()


def _flush(conn: sqlite3.Connection, history: list[tuple[Any, ...]],
           played: list[tuple[Any, ...]]) -> None:
    conn.executemany("INSERT INTO rating_games (name, pool, record_id, place, won, shown)"
                     " VALUES (?, ?, ?, ?, ?, ?)", history)
    conn.executemany("INSERT INTO rated_games (record_id, pool, at, seats) VALUES (?, ?, ?, ?)",
                     played)
    history.clear()
    played.clear()
