"""A player card: anyone's record per pool, the rating over time as a small chart, and
their last rated games, each opening in the replay viewer (Enter on its row). Opened from
the leaderboard, the lobby (`p`, any name) and a table's seat list."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Sparkline, Static

from ..ratings.board import LISTED_GAMES, GameLine, PlayerCard, PoolRecord
from ..services import GameRefused
from .base import MoonModal, set_text, steady_input
from .games_text import refusal_words
from .leaderboard import who
from .rows import RowList

TRUMP_WORDS = {"doubles": "doubles", "none": "no trump"}


def trump_words(trump: str | None) -> str:
    if trump is None:
        return "–"
    return TRUMP_WORDS.get(trump, f"{trump}s")


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def pool_lines(pool: PoolRecord) -> str:
    place = f"#{pool.place}" if pool.place is not None else \
        f"not placed yet ({pool.games} of {LISTED_GAMES} games)"
    return (f"{pool.players} players · rating {pool.rating:.1f} · {place}\n"
            f"  {plural(pool.games, 'game')}, {pool.wins} won ({pool.win_rate:.0%}) · "
            f"{pool.points_per_hand:+.2f} points a hand\n"
            f"  bids made {pool.bids_made} of {pool.bids_tried} · moons made "
            f"{pool.moons_made} of {pool.moons_tried} · favourite trump "
            f"{trump_words(pool.favourite_trump)}")


def place_words(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def game_line(game: GameLine, name: str) -> str:
    day = time.strftime("%d %b %H:%M", time.localtime(game.at))
    others = ", ".join(n for n in game.seats if n != name)
    won = "won" if game.won else place_words(game.place)
    return f"{day}  {won:<4} {game.rating:6.1f}  {game.code or '':6}  with {others}"


GAMES_TITLE = "Last rated games"
NO_REPLAY = "-"
"""The row key of a game with no code to open."""


class PlayerCardScreen(MoonModal):
    """`name`'s card, read from the host's `RatingBook` as it opens."""

    AUTO_FOCUS = "#card-games"

    def __init__(self, name: str) -> None:
        super().__init__(classes="dialog")
        self.player = name

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide", id="card-box"):
            yield Static(Text(self.player, style="bold"), classes="title", id="card-title")
            with VerticalScroll(id="card-body"):
                yield Vertical(id="card-pools")
                yield Static(id="card-none")
                yield RowList([(GAMES_TITLE, 40)], flex=(0,), id="card-games")
            yield Static("Esc closes", classes="hint", id="card-hint")

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="card")
    async def load(self) -> None:
        ratings = self.moon.ratings
        card = None if ratings is None else await ratings.card(self.player)
        await self.show(card)

    async def show(self, card: PlayerCard | None) -> None:
        games = self.query_one("#card-games", RowList)
        if card is None:
            games.display = False
            set_text(self.query_one("#card-none", Static),
                     f"{self.player} has played no rated game yet.", layout=True)
            return
        title = Text(who(card.name, card.bot), style="bold")
        set_text(self.query_one("#card-title", Static), title)
        pools = self.query_one("#card-pools", Vertical)
        widgets: list[Widget] = []
        for pool in card.pools:
            widgets.append(Static(pool_lines(pool), classes="card-pool"))
            if len(pool.history) < 2:
                continue  # a chart of one point says nothing
            low, high = min(pool.history), max(pool.history)
            widgets.append(Horizontal(
                Static(Content(f"  {low:.1f} "), classes="card-low"),
                Sparkline(pool.history, summary_function=max, classes="card-chart"),
                Static(Content(f" {high:.1f}"), classes="card-high"),
                classes="card-chart-row"))
        await pools.mount_all(widgets)
        games.display = bool(card.last_games)
        games.set_rows([(game.code or f"{NO_REPLAY}{i}", (game_line(game, card.name),))
                        for i, game in enumerate(card.last_games)])
        if card.last_games and self.moon.games is not None:
            set_text(self.query_one("#card-hint", Static),
                     "↑↓ a game · Enter watches it · Esc closes")

    @on(RowList.Selected, "#card-games")
    def _chosen(self, event: RowList.Selected) -> None:
        if not event.key.startswith(NO_REPLAY):
            self.open_game(event.key)

    @work(exclusive=True, group="open")
    async def open_game(self, code: str) -> None:
        """The game in the replay viewer, over the card (Esc comes back to it)."""
        from .replay import ReplayScreen

        archive = self.moon.games
        if archive is None:
            return
        try:
            opened = await archive.open(code)
        except GameRefused as refused:
            words = refusal_words(refused.why, refused.code)
            set_text(self.query_one("#card-hint", Static), "✗ " + words[:1].upper()
                     + words[1:] + ".")
            return
        self.app.push_screen(ReplayScreen(opened))


class AskPlayerScreen(MoonModal):
    """Whose card to open: a name typed (your own by default)."""

    AUTO_FOCUS = "Input"

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("Player card", classes="title")
            yield Static("Whose? (a computer: easy bot, normal bot, expert bot)")
            yield steady_input(value=self.moon.player_name, id="card-name", max_length=16)
            yield Static("Enter opens · Esc closes", classes="hint")

    @on(Input.Submitted)
    def _open(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if name:
            self.app.switch_screen(PlayerCardScreen(name))
