"""The club's saved games: recent games or one player's, 3 or 4 players, a page at a time,
newest first; Enter opens one in the replay viewer.

The games come from the host's `GameArchive` (the server's database): a page is asked for
by key (`GameQuery.before`), so each costs the same however far back it is.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from ..services import GameArchive, GamePage, GameQuery, GameRefused
from .bars import KeyBar
from .base import MoonScreen, set_text, steady_input
from .games_text import COLUMNS, PLAYERS_COLUMN, game_row, refusal_words
from .rows import RowList


def filter_words(query: GameQuery, page: int, me: str) -> str:
    """`my games · 3 players · page 2` / `all games · page 1`."""
    who = "all games" if query.player is None else (
        "my games" if query.player == me else f"games of {query.player}")
    players = "" if query.players is None else f" · {query.players} players"
    return f"{who}{players} · page {page}"


class GamesScreen(MoonScreen):
    AUTO_FOCUS = "RowList"
    BINDINGS = [
        Binding("m", "mine", "my games / all"),
        Binding("p", "player", "a player"),
        Binding("3", "players(3)", "3 players", show=False),
        Binding("4", "players(4)", "4 players", show=False),
        Binding("right", "page(1)", "older"),
        Binding("left", "page(-1)", "newer"),
        Binding("question_mark", "help", "help"),
        Binding("escape,q", "back", "back"),
    ]

    def __init__(self, archive: GameArchive, *, code: str | None = None) -> None:
        """`code`: open that game in the viewer at once (`ssh -t host replay CODE`)."""
        super().__init__(classes="games")
        self.archive = archive
        self.query_ = GameQuery()
        self.starts: list[int | None] = [None]
        """The `before` key of each page seen so far (the first: None, the newest)."""
        self.page: GamePage | None = None
        self._code = code

    def compose_body(self) -> ComposeResult:
        yield Static(id="header")
        yield steady_input(placeholder="a player's name, then Enter (Esc: all players)",
                           max_length=16, id="player-filter")
        yield RowList(COLUMNS, flex=(PLAYERS_COLUMN,), id="games")
        yield Static(id="note")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()
        if self._code is not None:
            self.open_game(self._code)

    def _limit(self) -> int:
        return max(5, self.app.size.height - 5)

    @work(exclusive=True, group="games")
    async def load(self) -> None:
        query = GameQuery(self.query_.player, self.query_.players, self.starts[-1],
                          self._limit())
        page = await self.archive.games(query)
        self.page = page
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append(" Moon ", style="bold reverse")
        header.append(" saved games · " + filter_words(query, len(self.starts),
                                                       self.moon.player_name))
        set_text(self.query_one("#header", Static), header)
        rows = self.query_one(RowList)
        width = rows.column_width(PLAYERS_COLUMN)
        widths = tuple(w if i != PLAYERS_COLUMN else width
                       for i, (_, w) in enumerate(COLUMNS))
        rows.set_rows([(e.code, game_row(e, widths=widths)) for e in page.games])
        self._note(self._page_note(page))
        self.refresh_bindings()

    def _page_note(self, page: GamePage) -> str:
        if not page.games:
            return "No saved games here yet." if len(self.starts) == 1 else "No older games."
        more = " · → older games" if page.more else ""
        newer = " · ← newer" if len(self.starts) > 1 else ""
        return f"Enter: watch the game · * won · unfinished: only its players open it" \
               f"{more}{newer}"

    def _note(self, words: str) -> None:
        set_text(self.query_one("#note", Static), words)

    def on_resize(self) -> None:
        self.call_after_refresh(self._reload)

    def _reload(self) -> None:
        if self.page is not None:
            self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "page":
            if parameters and parameters[0] == 1:
                return self.page is not None and self.page.more
            return len(self.starts) > 1
        return True

    # -- filters and pages -----------------------------------------------------------------
    def _set(self, query: GameQuery) -> None:
        self.query_ = query
        self.starts = [None]
        self.load()

    def action_mine(self) -> None:
        me = self.moon.player_name
        self._set(GameQuery(None if self.query_.player == me else me, self.query_.players))

    def action_players(self, count: int) -> None:
        self._set(GameQuery(self.query_.player,
                            None if self.query_.players == count else count))

    def action_player(self) -> None:
        field = self.query_one("#player-filter", Input)
        field.add_class("-editing")
        field.focus()

    @on(Input.Submitted, "#player-filter")
    def _player_named(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        self._close_filter()
        self._set(GameQuery(name or None, self.query_.players))

    def _close_filter(self) -> None:
        field = self.query_one("#player-filter", Input)
        field.remove_class("-editing")
        field.value = ""
        self.query_one(RowList).focus()

    def action_page(self, direction: int) -> None:
        page = self.page
        if direction > 0 and page is not None and page.more and page.games:
            self.starts.append(page.games[-1].key)
        elif direction < 0 and len(self.starts) > 1:
            self.starts.pop()
        else:
            return
        self.load()

    def action_back(self) -> None:
        field = self.query_one("#player-filter", Input)
        if field.has_class("-editing"):
            self._close_filter()
            self._set(GameQuery(None, self.query_.players))
            return
        self.app.pop_screen()

    # -- opening a game --------------------------------------------------------------------
    @on(RowList.Selected, "#games")
    def _chosen(self, event: RowList.Selected) -> None:
        self.open_game(event.key)

    @work(exclusive=True, group="open")
    async def open_game(self, code: str) -> None:
        from .replay import ReplayScreen

        try:
            opened = await self.archive.open(code)
        except GameRefused as refused:
            words = refusal_words(refused.why, refused.code)
            self._note("✗ " + words[:1].upper() + words[1:] + ".")
            return
        self.app.push_screen(ReplayScreen(opened))

