"""How long a page of the games screen takes with a big club's records (issue 34).

Fills a fresh database with N records (default 100,000: a few hundred distinct random
games, each saved under many seatings of 30 players, with their codes, summaries and
players as `save_record` notes them), then times what opening a page does: the indexed
query (`game_index.list_games` on the read connection) and making the page's rows
(`games_text.game_row`), for the first page, a page far back, one player's games, the
4-player games, and one player's 4-player games. Prints median and p99 per case.

    .venv/bin/python bench/games_list.py [--records 100000] [--repeat 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from moon_tui.rules import Rules, record_of
from moon_tui.rules.cli import random_game
from moon_tui.services import GameQuery
from moon_tui.ui.games_text import game_row
from server.game_index import list_games, new_code, summary_of
from server.store import Database

PAGE = 20


def fill(db: Database, count: int) -> float:
    """Insert `count` records in one transaction; seconds taken."""
    rng = random.Random(1)
    names = [f"player{i:02d}" for i in range(30)]
    games = []
    for seed in range(300):
        players = 4 if seed % 4 == 0 else 3
        state = random_game(Rules.make(players=players), random.Random(seed), hands=12)
        games.append((players, state))
    conn = db.connection()
    started = time.perf_counter()
    with conn:
        for i in range(count):
            players, state = games[i % len(games)]
            seats = tuple(rng.sample(names, players))
            record = record_of(state, seats)
            summary = summary_of(record) if i < len(games) else {
                **summary_of_cache[i % len(games)], "seats": list(seats)}
            if i < len(games):
                summary_of_cache.append(summary)
            while True:  # ~5 codes of 100,000 meet one already given: another
                try:
                    cursor = conn.execute(
                        "INSERT INTO records (saved_at, finished, record, digest, code,"
                        " players, summary) VALUES (?, ?, ?, NULL, ?, ?, ?)",
                        (1.7e9 + i * 60, int(state.is_terminal()), json.dumps(record),
                         new_code(), players, json.dumps(summary)))
                    break
                except sqlite3.IntegrityError:
                    continue
            conn.executemany("INSERT INTO record_players (name, record_id) VALUES (?, ?)",
                             [(name, cursor.lastrowid) for name in seats])
    return time.perf_counter() - started


summary_of_cache: list[dict[str, object]] = []


def timed(db: Database, query: GameQuery, repeat: int) -> tuple[float, float, int]:
    times = []
    shown = 0
    for _ in range(repeat):
        started = time.perf_counter()
        page = list_games(db.reader(), query)
        rows = [game_row(entry) for entry in page.games]
        times.append((time.perf_counter() - started) * 1000)
        shown = len(rows)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))], shown


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Database(Path(folder) / "moon.sqlite3")
        await db.open()
        seconds = await db.run(lambda: fill(db, args.records))
        print(f"{args.records:,} records written in {seconds:.1f} s")
        far_back = list_games(db.reader(), GameQuery(limit=200))
        for _ in range(args.records // 400):  # page 500 or so, by key
            far_back = list_games(db.reader(), GameQuery(before=far_back.games[-1].key,
                                                         limit=200))
        cases = {
            "first page": GameQuery(limit=PAGE),
            f"a page {args.records // 2:,} games back": GameQuery(
                before=far_back.games[-1].key, limit=PAGE),
            "one player's games": GameQuery(player="player07", limit=PAGE),
            "4-player games": GameQuery(players=4, limit=PAGE),
            "one player's 4-player games": GameQuery(player="player07", players=4,
                                                     limit=PAGE),
        }
        print(f"{'page (20 rows: query + rows made)':<40} {'median':>8} {'p99':>8}")
        for name, query in cases.items():
            median, p99, rows = timed(db, query, args.repeat)
            assert rows == PAGE, (name, rows)
            print(f"{name:<40} {median:7.2f}ms {p99:7.2f}ms")
        await db.close()


if __name__ == "__main__":
    asyncio.run(main())
