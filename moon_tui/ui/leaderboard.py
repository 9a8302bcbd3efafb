"""The leaderboard: the best players of a pool (3 or 4 players), your own row always in view.

Rows come a page at a time from the host's `RatingBook`; moving past the last row read
asks for the next page. Newcomers (fewer than `LISTED_GAMES` rated games) are not placed,
but a newcomer sees their own row below the board.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from ..ratings.board import LISTED_GAMES, LeaderboardPage, LeaderRow
from .bars import KeyBar
from .base import MoonScreen, set_text
from .rows import Row, RowList

PAGE = 100
"""Rows read at a time."""
COLUMNS = (("#", 5), ("Player", 24), ("Rating", 7), ("Games", 6), ("Win %", 6), ("Trend", 7))
PLAYER_COLUMN = 1


def who(name: str, bot: bool) -> str:
    return f"{name} (computer)" if bot else name


def trend_cell(trend: float | None) -> str:
    """`▲ 1.2`, `▼ 0.4`, `= 0.0`; empty before enough games (arrows read without colour)."""
    if trend is None:
        return ""
    mark = "▲" if trend > 0.05 else "▼" if trend < -0.05 else "="
    return f"{mark} {abs(trend):.1f}"


def row_cells(row: LeaderRow) -> tuple[str, ...]:
    return ("–" if row.place is None else str(row.place), who(row.name, row.bot),
            f"{row.rating:.1f}", str(row.games), f"{row.win_rate:.0%}", trend_cell(row.trend))


def own_line(me: LeaderRow | None, players: int) -> str:
    if me is None:
        return f"You: no rated game at {players} players yet."
    if me.place is None:
        return (f"You: not placed yet ({me.games} of {LISTED_GAMES} rated games) · "
                f"rating {me.rating:.1f}")
    trend = trend_cell(me.trend)
    return (f"You: #{me.place} · rating {me.rating:.1f} · {me.games} games · "
            f"{me.win_rate:.0%} won" + (f" · trend {trend}" if trend else ""))


class BoardList(RowList):
    """The board's rows; says when the cursor reached the last row read."""

    class AtEnd(Message):
        """The cursor is on the last row: time to read the next page."""

    def action_move(self, step: int) -> None:
        super().action_move(step)
        self._maybe_at_end()

    def action_page(self, direction: int) -> None:
        super().action_page(direction)
        self._maybe_at_end()

    def _maybe_at_end(self) -> None:
        if self.selected is not None and self.cursor >= self.row_count - 1:
            self.post_message(self.AtEnd())

    @property
    def row_count(self) -> int:
        return len(self._rows)


class LeaderboardScreen(MoonScreen):
    AUTO_FOCUS = "BoardList"
    BINDINGS = [
        Binding("c", "card", "player card"),
        Binding("t", "switch", "3 / 4 players"),
        Binding("escape,q", "back", "back"),
        Binding("question_mark", "help", "help"),
    ]

    def __init__(self, players: int = 3) -> None:
        super().__init__(classes="leaderboard")
        self.players = players
        self._rows: list[LeaderRow] = []
        self._listed = 0
        self._reading = False

    def compose_body(self) -> ComposeResult:
        yield Static(id="header")
        yield BoardList(COLUMNS, flex=(PLAYER_COLUMN,), id="board")
        yield Static(id="me")
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_header()
        self.read(0)

    def _show_header(self, note: str = "") -> None:
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append(" Moon ", style="bold reverse")
        header.append(f" leaderboard · {self.players} players")
        if self._listed:
            header.append(f" · {self._listed} placed")
        header.append(note or f" · placed after {LISTED_GAMES} games · ↑↓ ⏎ card")
        set_text(self.query_one("#header", Static), header)

    @work(exclusive=True, group="board")
    async def read(self, offset: int) -> None:
        ratings = self.moon.ratings
        if ratings is None:
            self._show_header(" · no ratings here")
            return
        self._reading = True
        try:
            page = await ratings.leaderboard(self.players, offset, PAGE, self.moon.player_name)
        finally:
            self._reading = False
        self.show(page)

    def show(self, page: LeaderboardPage) -> None:
        if page.players != self.players:
            return  # an answer for the pool shown before
        self._rows = self._rows[:page.offset] + list(page.rows)
        self._listed = page.listed
        self._show_header()
        board = self.query_one(BoardList)
        rows: list[Row] = [(row.name, row_cells(row)) for row in self._rows]
        board.set_rows(rows)
        set_text(self.query_one("#me", Static), own_line(page.me, self.players))

    @on(BoardList.AtEnd)
    def _more(self) -> None:
        if not self._reading and len(self._rows) < self._listed:
            self.read(len(self._rows))

    @on(RowList.Selected)
    def action_card(self) -> None:
        name = self.query_one(BoardList).selected
        if name is not None:
            from .card import PlayerCardScreen

            self.app.push_screen(PlayerCardScreen(name))

    def action_switch(self) -> None:
        self.players = 7 - self.players
        self._rows = []
        self._listed = 0
        self.query_one(BoardList).set_rows([])
        self._show_header(" · reading…")
        self.read(0)

    def action_back(self) -> None:
        self.dismiss(None)
