"""Small dialogs: the last trick, the score sheet, joining by invite code."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Static

from ..lobby.messages import Event, JoinByCode, TableUpdate
from ..rules import MOON, SeatView
from .base import MoonModal, set_text, steady_input
from .plain import cell
from .table_text import played_panel, trick_lines
from .words import seat_name, side_name, trump_words


class TableDialog(MoonModal):
    """A dialog about one table that redraws when the table changes."""

    table_id: str

    def __init__(self, table_id: str) -> None:
        super().__init__(classes="dialog")
        self.table_id = table_id
        self.update: TableUpdate | None = None

    def view(self) -> SeatView | None:
        return None if self.update is None else self.update.view

    def table_event(self, event: Event) -> None:
        if isinstance(event, TableUpdate):
            self.update = event
            self.redraw()

    def on_mount(self) -> None:
        self.update = self.moon.model.tables.get(self.table_id)
        self.redraw()

    def redraw(self) -> None:
        """Draw from `update`, the table's latest."""


class LastTrickScreen(TableDialog):
    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("Last trick", classes="title")
            yield Static(id="last")
            yield Static("Esc closes", classes="hint")

    def redraw(self) -> None:
        view = self.view()
        update = self.update
        text: Text | str = "No trick has been played yet in this hand."
        if view is not None and update is not None and view.last_trick is not None:
            trick = view.last_trick
            won = "?" if trick.winner is None else seat_name(update.table, trick.winner)
            text = trick_lines(trick, view, update.table,
                               f"Trick {len(view.tricks)}, won by {won}")
        set_text(self.query_one("#last", Static), text, layout=True)


class ScoreSheetScreen(TableDialog):
    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide"):
            yield Static("Score sheet", classes="title")
            sheet: DataTable[Text] = DataTable(id="sheet", cursor_type="none")
            yield sheet
            yield Static("Esc closes", classes="hint")

    def redraw(self) -> None:
        view = self.view()
        update = self.update
        if view is None or update is None:
            return
        rules, info = view.rules, update.table
        sheet = self.query_one(DataTable)
        sheet.clear(columns=True)
        # Past hands keep the names of those who played them, whoever sits there now.
        tables = [update.table_of_hand(r.number) for r in view.results] or [info]
        sides = [" / ".join(dict.fromkeys(side_name(rules, t, s) for t in tables))
                 for s in range(rules.sides)]
        # Cells and titles as Text: DataTable reads a str as markup, and names are data.
        sheet.add_columns("Hand", "Bid", "Result", *map(cell, sides))
        for result, played in zip(view.results, tables, strict=False):
            if result.redeal or result.declarer is None:
                bid, verdict = "all passed", "redeal"
            else:
                amount = "moon" if result.bid == MOON else str(result.bid)
                trump = "" if result.trump is None else f" {trump_words(result.trump)}"
                bid = f"{seat_name(played, result.declarer)} {amount}{trump}"
                verdict = "made" if result.made else "set"
            cells = [f"{p:+d} = {s}" for p, s in zip(result.points, result.scores,
                                                      strict=True)]
            sheet.add_row(*map(cell, (str(result.number + 1), bid, verdict, *cells)))
        if not view.results:
            sheet.add_row(*map(cell, ("", "no hand finished yet", "", *["0"] * len(sides))))


class InviteCodeScreen(MoonModal):
    AUTO_FOCUS = "Input"

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("Join by invite code", classes="title")
            yield steady_input(placeholder="6 letters or digits", id="code", max_length=12)
            yield Static("Enter joins · Esc closes", classes="hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        code = event.value.strip()
        if code:
            self.moon.send(JoinByCode(code))
            self.dismiss(None)


class PlayedScreen(TableDialog):
    """The tiles played this hand by suit, and the trumps still out (`t`)."""

    BINDINGS = [Binding("t", "close", "close")]

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("What has been played", classes="title")
            yield Static(id="played")
            yield Static("t or Esc closes", classes="hint")

    def redraw(self) -> None:
        view = self.view()
        if view is not None:
            set_text(self.query_one("#played", Static), played_panel(view))


class EndLocalGameScreen(MoonModal):
    """`q` in a game played alone (`moon`): there is no lobby to go back to, so end the
    game (quit) or start a new one. Dismissed with `quit`, `new` or None (keep playing)."""

    BINDINGS = [
        Binding("q", "end('quit')", "quit"),
        Binding("n", "end('new')", "new game"),
        Binding("escape", "close", "keep playing"),
    ]

    def __init__(self, over: bool) -> None:
        super().__init__(classes="dialog")
        self._over = over

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("The game is over" if self._over else "Leave this game?",
                         classes="title")
            yield Static("q  quit Moon (this game ends)\n"
                         "n  start a new game\n"
                         "Esc  keep playing" if not self._over else
                         "q  quit Moon\nn  start a new game\nEsc  back to the table")

    def action_end(self, how: str) -> None:
        self.dismiss(how)  # type: ignore[arg-type]


class EndLessonScreen(EndLocalGameScreen):
    """`q` in the first lesson begun at the welcome screen: the way out is the club's
    lobby (quitting Moon from there), not out of the club at once."""

    BINDINGS = [
        Binding("q", "end('new')", "lobby"),
        Binding("escape", "close", "keep playing"),
    ]

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("Leave the lesson?", classes="title")
            yield Static("q  on to the club's lobby\nEsc  keep playing")
