"""A move of the player's own that the table has not yet taken, and what the table screen
draws meanwhile.

The screen answers a move at once: with the view the move leads to where the seat's own
view foresees it (`rules/foresight.py`), else with words saying it is sent (the bid that
takes the widow, a claim: only the table can show what follows). The table's answer
replaces either; a refusal, or no answer in `UNANSWERED_SECONDS`, takes it back.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..lobby.messages import TableUpdate
from ..rules import SeatView

UNANSWERED_SECONDS = 5.0
"""How long a move of the player's own shows (foreseen, or said to be sent) before the
table takes it: past this the screen shows the table as it last was, and says so."""


@dataclass(frozen=True, slots=True)
class AwaitedMove:
    """A move sent from the view `sent_from`, drawn as `foreseen` until the table takes
    it (None: it could not be foreseen, and the screen says it is sent)."""

    sent_from: SeatView
    foreseen: SeatView | None

    def drawn_over(self, update: TableUpdate) -> TableUpdate | None:
        """`update` as drawn while the move waits: the table's view is still the one the
        move was sent from (news of another kind, a seat or a name), so with the move
        foreseen in it (the countdowns waiting for the table's own word), or as it is
        when nothing was foreseen. None once the table has taken the move."""
        if update.view != self.sent_from:
            return None
        if self.foreseen is None:
            return update
        return replace(update, view=self.foreseen, turn_left=None, reconnect_left=None)
