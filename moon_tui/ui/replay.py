"""The replay viewer: a saved game stepped through decision by decision.

It draws what the table screen draws (the same text functions of `table_text.py`) from
views rebuilt by replaying the record (`rules/timeline.py`): one seat's view, what that
seat knew, or, for a finished game, all hands open. An unfinished game shows only its
viewer's own seat: the timeline refuses the others.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from ..rules import Phase, SeatView
from ..rules.timeline import Timeline
from ..services import OpenedGame
from .bars import KeyBar
from .base import MoonScreen, set_text
from .dominoes import HandTile, Mark
from .hand import HandView
from .panel import Line, LinePanel
from .replay_text import hand_result, open_hands, replay_table, step_lines
from .table_text import centre_panel, header, seats_panel
from .words import fit, name_width

ALL = -1
"""The view with every hand open."""


class ReplayScreen(MoonScreen):
    AUTO_FOCUS = "HandView"
    BINDINGS = [
        Binding("right", "step(1)", "move", key_display="←→"),
        Binding("left", "step(-1)", "back", show=False),
        Binding("down", "trick(1)", "trick", key_display="↑↓"),
        Binding("up", "trick(-1)", "trick back", show=False),
        Binding("pagedown", "hand(1)", "hand", key_display="PgUp/Dn"),
        Binding("pageup", "hand(-1)", "hand back", show=False),
        Binding("home", "to(0)", "start", key_display="Home"),
        Binding("end", "to(-1)", "end", key_display="End"),
        Binding("v", "view", "view"),
        Binding("question_mark", "help", "help"),
        Binding("escape,q", "back", "back"),
    ]

    def __init__(self, opened: OpenedGame) -> None:
        super().__init__(classes="replay")
        self.opened = opened
        self.timeline = Timeline(opened.record, opened.seats)
        self.table = replay_table(opened.entry)
        self.index = 0
        seats = sorted(opened.seats) if opened.seats is not None else None
        self.views: list[int] = [ALL, *range(opened.record.rules.players)] \
            if seats is None else seats
        self.seat = self.views[0]

    def compose_body(self) -> ComposeResult:
        yield Line(id="header")
        with Horizontal(id="middle"):
            yield LinePanel(id="seats")
            yield LinePanel(id="centre")
            yield LinePanel(id="side")
        yield Line(id="prompt")
        yield HandView(id="hand")
        yield KeyBar()

    def on_mount(self) -> None:
        self.draw()

    def on_resize(self) -> None:
        self.call_after_refresh(self.draw)

    # -- drawing ---------------------------------------------------------------------------
    def _view(self) -> SeatView:
        return self.timeline.view(self.index, None if self.seat == ALL else self.seat)

    def draw(self) -> None:
        view = self._view()
        names = name_width(self.app.size.width)
        width = self.app.size.width
        timeline, index = self.timeline, self.index
        set_text(self.query_one("#header", Static), header(view, self.table, width, names))
        seats = self.query_one("#seats", Static)
        panel = seats_panel(view, self.table, None, seats.content_size.width or 29, names)
        set_text(seats, self._not_you(panel))
        hand, k = timeline.at(index)
        if view.phase in (Phase.DEAL, Phase.OVER) and k:
            centre = hand_result(timeline, index, self.table)
        else:
            centre = centre_panel(view, self.table, names)
        set_text(self.query_one("#centre", Static), centre)
        side = step_lines(timeline, index, self.opened.entry, self.opened.seat_changes, names)
        set_text(self.query_one("#side", Static), side)
        set_text(self.query_one("#prompt", Static), self._prompt(names))
        shown = self.query_one(HandView)
        if self.seat == ALL:
            shown.show_text(open_hands(timeline, index, self.opened.entry, names))
        else:
            shown.show_text(None if view.hand else Text(" (no tiles left in hand)"))
            shown.set_tiles(tuple(HandTile(t, Mark.PLAIN, "") for t in view.hand),
                            show_cursor=False)

    def _not_you(self, panel: Text) -> Text:
        """The seats as drawn for the seat viewed, without "(you)" when the viewer is not
        that seat's player."""
        mine = self.seat != ALL and self.opened.entry.seats[self.seat] == self.moon.player_name
        at = panel.plain.find(" (you)")
        return panel if mine or at < 0 else panel[:at] + panel[at + len(" (you)"):]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "view":
            return len(self.views) > 1
        return True

    def _prompt(self, names: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.seat == ALL:
            text.append("All hands open", style="bold")
        else:
            text.append(f"{fit(self.opened.entry.seats[self.seat], names)}'s view",
                        style="bold")
            text.append(" (what this seat knew)")
        if len(self.views) > 1:
            text.append(" · v: another view")
        return text

    # -- moving ----------------------------------------------------------------------------
    def _go(self, index: int) -> None:
        index = max(0, min(index, self.timeline.last))
        if index != self.index:
            self.index = index
            self.draw()

    def action_step(self, direction: int) -> None:
        self._go(self.index + direction)

    def action_trick(self, direction: int) -> None:
        self._go(self.timeline.next_trick(self.index, direction))

    def action_hand(self, direction: int) -> None:
        self._go(self.timeline.next_hand(self.index, direction))

    def action_to(self, where: int) -> None:
        self._go(self.timeline.last if where < 0 else where)

    def action_view(self) -> None:
        self.seat = self.views[(self.views.index(self.seat) + 1) % len(self.views)]
        self.draw()

    def action_back(self) -> None:
        self.app.pop_screen()
