"""`h` at a practice table: the expert's ranking of the player's choices for the decision
in front of them, weighed in a bot worker (`Analyst.hint`) while the dialog says so.

Only a practice table offers it (one person with computer players, never rated: the
lobby refuses a second person there), and only for the player's own turn, from their own
seat's view: the hint knows no more than the player does.
"""

from __future__ import annotations

import math

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from ..bots.expert import Choice
from ..bots.pool import WorkerLost
from ..rules import Phase, SeatView
from .analysis_text import choice_words
from .base import heading, set_text
from .dialogs import TableDialog

SHOWN = 8
"""Choices listed at most (the best ones)."""


def hint_lines(view: SeatView, ranked: list[Choice]) -> Text:
    """The choices best first: for a bid the expected points, else the expected points
    and the tricks the declarer's side is expected to end the hand with."""
    text = heading("Best first, by the expert's sampled deals:\n")
    bid = view.phase is Phase.BID
    text.append("choice     points" + ("" if bid else "  declarer's tricks") + "\n",
                style="dim")
    for rank, choice in enumerate(ranked[:SHOWN]):
        words = f"{choice_words(choice.action):<9}"
        if math.isnan(choice.value):
            text.append(f"{words}  (not weighed)\n")
            continue
        line = f"{words}{choice.value:+7.1f}"
        if not bid and not math.isnan(choice.tricks):
            line += f"  {choice.tricks:6.1f}"
        text.append(line, style="bold" if rank == 0 else "")
        text.append("  ◀ the expert's choice\n" if rank == 0 else "\n",
                    style="bold" if rank == 0 else "")
    if len(ranked) > SHOWN:
        text.append(f"…and {len(ranked) - SHOWN} more\n", style="dim")
    return text


class HintScreen(TableDialog):
    """The expert's ranking of this turn's choices (the view when `h` was pressed)."""

    BINDINGS = [Binding("h", "close", "close")]

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("Hint", classes="title")
            yield Static(id="hint")
            yield Static("h or Esc closes", classes="hint")

    def on_mount(self) -> None:
        super().on_mount()
        view = self.view()
        if view is None or not view.my_turn or not view.legal:
            set_text(self.query_one("#hint", Static), "Nothing to choose just now.")
            return
        set_text(self.query_one("#hint", Static),
                 Text("The expert is weighing your choices…", style="italic"))
        self.weigh(view)

    @work(exclusive=True, group="hint")
    async def weigh(self, view: SeatView) -> None:
        analyst = self.moon.analyst
        words: Text | str
        if analyst is None:
            words = "No hints here."
        else:
            try:
                words = hint_lines(view, await analyst.hint(view))
            except (WorkerLost, RuntimeError, ValueError):
                words = "The expert could not weigh this one."
        if self.is_attached:
            set_text(self.query_one("#hint", Static), words, layout=True)
