"""`moon-server ratings --rebuild`: every rating computed again from the game records.

After an upgrade of the rating model (openskill, or its settings) or a restore from a
backup, the ratings are forgotten and the finished records counted again in the order
they were kept, by the very function that rates a game as it ends: the result is the one
the live updates gave. It writes in one transaction: a server running meanwhile waits
for it (its writes time out after a few seconds), so stop the server first on a large
club. A progress bar shows on a terminal (stderr).
"""

from __future__ import annotations

import argparse
import sqlite3
import time

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from moon_tui.bots.progress import terminal_console
from moon_tui.commandline import OneLineParser, say

from .ratings import SCHEMA, rebuild
from .subcommand import DATA_FOLDER_EPILOG, add_data_arguments, config_of

PROG = "moon-server ratings"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(
        prog=PROG,
        description="Compute every rating again from the finished game records, in the "
        "order they were kept (after an upgrade of the rating model, or a restore).",
        epilog=f"{DATA_FOLDER_EPILOG} Stop the server first on a large club: "
        "it waits while the ratings are written. Exit status: 0 done, 1 no database or "
        "it cannot be written, 2 a wrong command line or configuration.",
    )
    parser.add_argument("--rebuild", action="store_true", required=True,
                        help="forget the ratings and count every finished game again")
    add_data_arguments(parser)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    config = config_of(PROG, args)
    if config is None:
        return 2
    path = config.database_path
    if not path.is_file():
        say(PROG, f"there is no database in {path.parent}: point --data at the server's "
                  "data folder")
        return 1
    started = time.monotonic()
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=30)
        try:
            db.executescript(SCHEMA)
            counted, total = _rebuild(db)
        finally:
            db.close()
    except sqlite3.Error as error:
        say(PROG, f"cannot rebuild the ratings in {path}: {error}")
        return 1
    print(f"{PROG}: {counted} rated games counted from {total} finished records "
          f"in {time.monotonic() - started:.1f} s")
    return 0


def _rebuild(db: sqlite3.Connection) -> tuple[int, int]:
    """Rebuild with a progress bar on a terminal; (games counted, records read)."""
    console = terminal_console()
    seen = [0]
    if console is None:
        def note(done: int, total: int) -> None:
            seen[0] = total
        return rebuild(db, note), seen[0]
    progress = Progress(TextColumn("records"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("left"), TimeRemainingColumn(), console=console)
    task = progress.add_task("rebuild", total=None)
    with progress:
        def advance(done: int, total: int) -> None:
            seen[0] = total
            progress.update(task, completed=done, total=total)
        counted = rebuild(db, advance)
    return counted, seen[0]
