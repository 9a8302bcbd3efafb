"""`moon-arena`'s progress bar: games done, the running win rates and the time left.

Drawn with rich on a terminal only (stderr), so `--json` on stdout stays clean and a run
piped to a file prints nothing extra.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def terminal_console() -> Console | None:
    """A console on stderr when stderr is a terminal, else None (no progress shown)."""
    if not sys.stderr.isatty():
        return None
    return Console(stderr=True)


def win_rates(wins: Mapping[str, int], games: int) -> str:
    """`expert 52% · normal 24%`: each seat type's share of the games played so far."""
    if games == 0:
        return ""
    return " · ".join(f"{kind} {won / games:.0%}" for kind, won in wins.items())


class ArenaProgress:
    """A progress bar over a run of `games`; `advance` after each game with the wins so far."""

    def __init__(self, console: Console, games: int) -> None:
        self.games = games
        self._progress = Progress(
            TextColumn("games"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rates]}"), TimeElapsedColumn(),
            TextColumn("left"), TimeRemainingColumn(),
            console=console, transient=False)
        self._task = self._progress.add_task("arena", total=games, rates="")
        self._done = 0

    def __enter__(self) -> ArenaProgress:
        self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._progress.stop()

    def advance(self, wins: Mapping[str, int]) -> None:
        self._done += 1
        self._progress.update(self._task, advance=1, rates=win_rates(wins, self._done))
