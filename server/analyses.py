"""The analyses of saved games' hands, kept in the database beside the games
(`moon_tui.bots.analysis.AnalysisStore`): a hand is weighed in the bot workers once, and
every later opening of it, after a restart too, reads one row.

A row is keyed by the game's code, the hand, the seats shown (`all` for a finished
game, else the viewer's own seats: an unfinished game's analysis has no hindsight) and
the samples behind the fair figures (an analysis made with other settings is not taken
for this one). Its text is `HandAnalysis.to_json`, a few kilobytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .store import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS analyses (
    code TEXT NOT NULL,
    hand INTEGER NOT NULL,
    seats TEXT NOT NULL,
    samples INTEGER NOT NULL,
    analysis TEXT NOT NULL,
    PRIMARY KEY (code, hand, seats, samples)
) WITHOUT ROWID;
"""


class DatabaseAnalyses:
    """Reads on the loop's read-only connection (one row by its key, well under a
    millisecond, as `archive.ClubGames` reads a game); writes on the writer thread."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def load(self, code: str, hand: int, seats: str, samples: int) -> str | None:
        row = self._db.reader().execute(
            "SELECT analysis FROM analyses WHERE code = ? AND hand = ? AND seats = ?"
            " AND samples = ?", (code, hand, seats, samples)).fetchone()
        return None if row is None else str(row[0])

    async def save(self, code: str, hand: int, seats: str, samples: int, text: str) -> None:
        def write() -> None:
            conn = self._db.connection()
            conn.execute("INSERT OR REPLACE INTO analyses (code, hand, seats, samples,"
                         " analysis) VALUES (?, ?, ?, ?, ?)", (code, hand, seats, samples, text))
            conn.commit()

        await self._db.run(write)
