"""A table's game records: each game saved once, as a `moon/1` record.

A practice table's games are not saved (a play-on's earlier hands were played by
others). Only a game in which a person decided at least once is saved: one where computers
made every decision (its player left before their first) is nobody's game to look back on,
and a guest opening and leaving tables saved 1,403 of them in ten minutes (issue 36).

A finished game is saved when its end is in the table's journal: saved earlier, a crash
in between would bring the game back unfinished and save it twice; a table restored
finished saves it again, and the store keeps a record once. A game cut short (the table
closing, the server stopping) is saved unfinished on the way out. A record that cannot be
written or stored is logged and the table carries on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ..rules import GameState
from ..rules.record import record_of
from ..rules.seat_changes import SeatChange
from .store import RecordStore

log = logging.getLogger(__name__)


class Recorder:
    """Whether the current game is saved and whether a person decided in it: what the
    table's core needs to hand each game's record out once (`StoreRecord`)."""

    def __init__(self, table_id: str, *, rated: bool = False, kept: bool = True) -> None:
        self._table_id = table_id
        self.kept = kept
        """The table's games are saved (not a practice table's)."""
        self.rated = rated
        """The table's games count for the ratings: their records say `"rated": true`."""
        self.saved = True
        """The current game is saved (or there is none)."""
        self.person_decided = False
        """A person made a decision of the current game themselves (the table sets it on
        a move of theirs; a stand-in's or a timer's is not theirs). Kept in the journal."""

    def decided(self) -> None:
        """A person made a decision of the current game themselves."""
        self.person_decided = True

    def new_game(self) -> None:
        self.saved = False
        self.person_decided = False

    def take(self, state: GameState, names: tuple[str, ...],
             changes: Sequence[SeatChange] = ()) -> dict[str, Any] | None:
        """The current game's record, once (None if already taken, if no person decided
        anything in it, or if it fails); `changes`: who played a seat when it was not the
        person dealt in (RECORD.md `seat_changes`)."""
        if self.saved:
            return None
        self.saved = True
        if not self.person_decided or not self.kept:
            return None
        try:
            record = record_of(state, names, changes)
        except Exception:
            log.exception("table %s: could not write the game record", self._table_id)
            return None
        if self.rated:
            record["rated"] = True
        return record

    def restored(self, state: GameState | None, names: tuple[str, ...], status: str,
                 person_decided: bool, changes: Sequence[SeatChange] = ()
                 ) -> dict[str, Any] | None:
        """The table was rebuilt from its journal: a game on is saved when it ends; a
        finished one is due again (the crash may have come before its record was stored,
        and the store keeps a record once): its record."""
        self.saved = status != "playing"
        self.person_decided = person_decided
        if status == "finished" and state is not None:
            self.saved = False
            return self.take(state, names, changes)
        return None


async def store_record(store: RecordStore, table_id: str, record: dict[str, Any], *,
                       finished: bool) -> None:
    """Store a record; a store that fails is logged and the table carries on."""
    try:
        await store.save(record, finished=finished)
    except Exception:
        log.exception("table %s: the record store failed", table_id)
