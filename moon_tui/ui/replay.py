"""The replay viewer: a saved game stepped through decision by decision.

It draws what the table screen draws (the same text functions of `table_text.py`) from
views rebuilt by replaying the record (`rules/timeline.py`): one seat's view, what that
seat knew, or, for a finished game, all hands open. An unfinished game shows only its
viewer's own seat: the timeline refuses the others.

`p` plays on from the position shown: a practice table (`lobby/practice.py`) whose game is
the record's decisions up to here, the player in the seat viewed (the seat to decide
next when all hands are open), computer players in the others.
"""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from ..bots.analysis import HandAnalysis
from ..bots.pool import WorkerLost
from ..lobby.messages import BotLevel, CreateTable, PlayOn
from ..rules import Phase, SeatView
from ..rules.record import dumps_record, record_of
from ..rules.timeline import Timeline
from ..services import OpenedGame
from .analysis_text import decision_lines, progress_line, swing_line
from .bars import KeyBar
from .base import MoonScreen, set_text
from .dominoes import HandTile, Mark
from .games_text import told_apart
from .hand import HandView
from .panel import Line, LinePanel
from .replay_text import hand_result, open_hands, replay_table, step_lines
from .table_text import centre_panel, header, seats_panel
from .words import fit, name_width

ALL = -1
"""The view with every hand open."""
PLAY_ON_LEVEL: BotLevel = "expert"
"""The computer players of a play-on: the club's best, as the analysis weighs."""


class ReplayScreen(MoonScreen):
    AUTO_FOCUS = "HandView"
    BINDINGS = [
        Binding("right", "step(1)", "move", key_display="←→"),
        Binding("left", "step(-1)", "back", show=False),
        Binding("down", "trick(1)", "trick", key_display="↑↓"),
        Binding("up", "trick(-1)", "trick back", show=False),
        Binding("pagedown", "hand(1)", "hand", key_display="PgUp/Dn"),
        Binding("pageup", "hand(-1)", "hand back", show=False),
        # What the viewer alone does before Home and End: an 80-column footer keeps them.
        Binding("v", "view", "view"),
        Binding("a", "analysis", "analysis"),
        Binding("p", "play_on", "play on"),
        Binding("n", "swing", "next swing"),
        Binding("home", "to(0)", "start", key_display="Home"),
        Binding("end", "to(-1)", "end", key_display="End"),
        Binding("question_mark", "help", "help"),
        Binding("escape,q", "back", "back"),
    ]

    def __init__(self, opened: OpenedGame) -> None:
        super().__init__(classes="replay")
        self.opened = opened
        self.shown = replace(opened.entry, seats=told_apart(opened.entry.seats))
        """The game's entry with its names as shown (the record keeps its own)."""
        self.timeline = Timeline(opened.record, opened.seats)
        self.table = replay_table(opened.entry)
        self.index = 0
        seats = sorted(opened.seats) if opened.seats is not None else None
        self.views: list[int] = [ALL, *range(opened.record.rules.players)] \
            if seats is None else seats
        self.seat = self.views[0]
        self.analysing = False
        """The side panel weighs the decision at this position (`a`)."""
        self.analysed: dict[int, HandAnalysis] = {}
        self.progress: dict[int, tuple[int, int]] = {}
        """Hands being weighed: (decisions done, decisions in all)."""
        self.failed: set[int] = set()

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
        side = step_lines(timeline, index, self.shown, self.opened.seat_changes, names)
        if self.analysing:
            side = self._with_analysis(side, names)
        set_text(self.query_one("#side", Static), side)
        set_text(self.query_one("#prompt", Static), self._prompt(names))
        shown = self.query_one(HandView)
        if self.seat == ALL:
            shown.show_text(open_hands(timeline, index, self.shown, names))
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

    def _with_analysis(self, side: Text, names: int) -> Text:
        """The step's words and, below, the decision made from here weighed."""
        hand, k = self.timeline.at(self.index)
        size = self.query_one("#side", Static).content_size
        width = size.width or 24
        step = self.timeline.next_step(self.index)
        done = self.analysed.get(hand)
        text = side.copy()
        text.append("\n\n")
        if done is None:
            if hand in self.failed:
                text.append("This hand could not be weighed.", style="italic")
            else:
                text.append_text(progress_line(hand, *self.progress.get(hand, (0, 0))))
            return text
        decision = None if step is None else done.at(step.index)
        if decision is None:
            text.append("Only your own decisions are weighed in an unfinished game."
                        if step is not None else "The hand is over.", style="dim")
        else:
            rows = (size.height or 99) - len(text.plain.splitlines()) - 2
            text.append_text(decision_lines(decision, self.shown.seats, names, width,
                                            rows))
        text.append("\n")
        text.append_text(swing_line(done, self.timeline))
        return text

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "view":
            return len(self.views) > 1
        if action == "analysis":
            return self.moon.analyst is not None
        if action == "swing":
            return self.analysing
        if action == "play_on":
            return self.play_on_seat() is not None
        return True

    # -- playing on ------------------------------------------------------------------------
    def play_on_seat(self) -> int | None:
        """The seat `p` plays on in: the one viewed, with all hands open the one to
        decide next (or the player's own). None at a finished game's end."""
        if self.index == self.timeline.last and self.opened.entry.finished:
            return None
        if self.seat != ALL:
            return self.seat
        step = self.timeline.next_step(self.index)
        seats = self.opened.entry.seats
        mine = seats.index(self.moon.player_name) if self.moon.player_name in seats else None
        return step.seat if step is not None else (mine or 0)

    def action_play_on(self) -> None:
        """A practice table from this position: the record's decisions up to here."""
        seat = self.play_on_seat()
        if seat is None:
            return
        state = self.timeline.state(self.index)
        record = dumps_record(record_of(state, self.opened.entry.seats))
        self.moon.send(CreateTable(f"practice from {self.opened.entry.code}",
                                   play_on=PlayOn(record, seat, PLAY_ON_LEVEL)))

    # -- analysis --------------------------------------------------------------------------
    def action_analysis(self) -> None:
        self.analysing = not self.analysing
        self.refresh_bindings()
        self._analyse_here()
        self.draw()

    def _analyse_here(self) -> None:
        hand, _ = self.timeline.at(self.index)
        if self.analysing and hand not in self.analysed and hand not in self.progress \
                and hand not in self.failed:
            self.progress[hand] = (0, 0)
            self._analyse(hand)

    @work(group="analysis")
    async def _analyse(self, hand: int) -> None:
        analyst = self.moon.analyst
        assert analyst is not None

        def told(done: int, total: int) -> None:
            self.progress[hand] = (done, total)
            if self.analysing and self.timeline.at(self.index)[0] == hand:
                self.draw()

        try:
            self.analysed[hand] = await analyst.hand(self.opened.entry.code, self.timeline,
                                                     hand, told)
        except (WorkerLost, RuntimeError):
            self.failed.add(hand)
        finally:
            self.progress.pop(hand, None)
        if self.is_attached:
            self.draw()

    def action_swing(self) -> None:
        """To the hand's next costliest decision after this one (round to the first)."""
        hand, _ = self.timeline.at(self.index)
        done = self.analysed.get(hand)
        if done is None:
            return
        start = self.timeline.index_of((hand, 0))
        places = sorted(start + d.index for d in done.swings())
        if places:
            self._go(next((p for p in places if p > self.index), places[0]))

    def _prompt(self, names: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.seat == ALL:
            text.append("All hands open", style="bold")
        else:
            text.append(f"{fit(self.shown.seats[self.seat], names)}'s view",
                        style="bold")
            text.append(" (what this seat knew)")
        if len(self.views) > 1:
            text.append(" · v: another view")
        seat = self.play_on_seat()
        if seat is not None:
            text.append(f" · p: play on as {fit(self.shown.seats[seat], names)}")
        return text

    # -- moving ----------------------------------------------------------------------------
    def _go(self, index: int) -> None:
        index = max(0, min(index, self.timeline.last))
        if index != self.index:
            self.index = index
            self._analyse_here()
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
