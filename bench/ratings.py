"""The ratings at club scale: a leaderboard page, a player card, and rating one game, on a
database of 10,000 players and 1,000,000 rated games (targets: page and card under 50 ms,
a game rated under 1 ms).

The database is made once (`--db`, kept for the next run): the ratings tables filled as
a million games would have left them (`tests/support/games.py: fill_ratings`; playing out
a million real records would take hours), in the server's own schema. The reads are the
server's own (`read_leaderboard`, `read_card`), timed on a fresh connection: the first
page, a page in the middle and your own row, and the cards of ordinary players and of
the computer level with the most games (the longest history).

Rating one game is timed on real records: finished games of random legal decisions
between club members and a computer, each rated into the big database exactly as the
store does it (in a transaction, here rolled back so the database stays as made). Two
figures: the rating itself (openskill and the rows written: `apply_result`) and the whole
of `count_record`, which first replays the record through the rules to learn its result.

    .venv/bin/python bench/ratings.py [--players 10000] [--games 1000000] [--db PATH]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from moon_tui.ratings.game import result_of  # noqa: E402
from server.ratings import (  # noqa: E402
    SCHEMA,
    apply_result,
    count_record,
    read_card,
    read_leaderboard,
)
from tests.support.games import BOTS, fill_ratings, finished_record  # noqa: E402

RUNS = 30


def make(path: Path, players: int, games: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    started = time.perf_counter()

    def note(done: int) -> None:
        if done % 100_000 == 0:
            print(f"  {done:,} games written ({time.perf_counter() - started:.0f} s)",
                  file=sys.stderr)

    fill_ratings(conn, players, games, note=note)
    conn.close()


def timed(action: object, runs: int = RUNS) -> tuple[float, float]:
    """p50 and max in ms of `action()` over `runs` calls."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, default=Path("/tmp/moon-bench-ratings.sqlite3"))
    parser.add_argument("--records", type=int, default=200,
                        help="real records rated for the per-game figure")
    args = parser.parse_args()
    if not args.db.exists():
        print(f"making {args.db}: {args.players:,} players, {args.games:,} games",
              file=sys.stderr)
        made = time.perf_counter()
        make(args.db, args.players, args.games)
        print(f"  made in {time.perf_counter() - made:.0f} s", file=sys.stderr)
    conn = sqlite3.connect(args.db)
    size = args.db.stat().st_size / 1e6
    rows = conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0]
    games = conn.execute("SELECT COUNT(*) FROM rated_games").fetchone()[0]
    print(f"database: {size:.0f} MB, {rows:,} ratings, {games:,} rated games")
    rng = random.Random(7)
    people = [f"player{i:05}" for i in rng.sample(range(args.players), 20)]
    top = conn.execute("SELECT name FROM ratings WHERE pool = 3 ORDER BY games DESC"
                       " LIMIT 1").fetchone()[0]
    listed = conn.execute("SELECT COUNT(*) FROM ratings WHERE pool = 3 AND listed = 1"
                          ).fetchone()[0]
    cases = [
        ("leaderboard, first page + own row", lambda: read_leaderboard(
            conn, 3, 0, 20, people[0])),
        ("leaderboard, a middle page", lambda: read_leaderboard(
            conn, 3, listed // 2, 20, people[1])),
        ("leaderboard, the last page", lambda: read_leaderboard(
            conn, 3, max(0, listed - 20), 20, people[2])),
        ("leaderboard, 100 rows (a screen's read)", lambda: read_leaderboard(
            conn, 3, 0, 100, people[3])),
        ("player card, a player", lambda: [read_card(conn, p) for p in people[:1]]),
        (f"player card, {top} (most games)", lambda: read_card(conn, top)),
    ]
    for label, action in cases:
        p50, worst = timed(action)
        print(f"{label:<45} p50 {p50:6.2f} ms   max {worst:6.2f} ms")
    cards = [timed(lambda p=p: read_card(conn, p), 3)[0] for p in people]
    print(f"{'player card, 20 players (each p50)':<45} p50 {statistics.median(cards):6.2f} ms"
          f"   max {max(cards):6.2f} ms")

    club = people[:12]
    records = [finished_record([*rng.sample(club, 2), rng.choice(BOTS)], n, target=21)
               for n in range(args.records)]
    results = [result_of(record) for record in records]
    conn.execute("BEGIN")
    base = 2_000_000_000
    applied, counted = [], []
    for n, (record, result) in enumerate(zip(records, results, strict=True)):
        assert result is not None
        start = time.perf_counter()
        apply_result(conn, base + 2 * n, 0.0, result)
        applied.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        count_record(conn, base + 2 * n + 1, 0.0, record)
        counted.append((time.perf_counter() - start) * 1000)
    conn.rollback()
    hands = statistics.mean(len(r["hands"]) for r in records)
    print(f"rating one game (openskill + rows), {len(records)} real 3-player records to 21:"
          f" p50 {statistics.median(applied):.3f} ms  max {max(applied):.3f} ms")
    print(f"the same with the record replayed first (count_record, {hands:.1f} hands a game):"
          f" p50 {statistics.median(counted):.3f} ms  max {max(counted):.3f} ms")
    conn.close()


if __name__ == "__main__":
    main()
