"""What a table writes down before it tells anyone: its rows in the journal (`journal.py`).

After each pass of its loop the table asks its `TableWriter` for what changed since the
last write and waits until the journal has it; only then do the events of that pass go
out (`Publisher.hold` / `release`). The writer keeps what it last wrote, so a pass that
changed nothing costs a comparison, a move costs one hand row, and the table row (seats,
owner, status...) is rebuilt only when its key changes, not on every move.

A write that fails is logged once (until writes work again) and tells nothing: the table
waits, holding what it would tell, and writes again until the journal takes it
(`table.py`); each write carries everything since the last one that worked, so a change
written late is written once, neither lost nor doubled.

The table row's shape is the core's (`TableState.row`); its version is here, beside the
code that reads it back (`restoring.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from ..rules import GameState
from ..rules.record import record_hand
from .chat import CHAT_KEPT
from .journal import (
    ChatRow,
    HandRow,
    JournalEntry,
    JsonObject,
    NewGame,
    NotOwner,
    TableGone,
    TableJournal,
    TableRow,
)
from .messages import ChatLine

log = logging.getLogger(__name__)

ROW_VERSION = 1
"""The shape of the table row (`TableState.row`); `restoring.py` reads this version."""

class Writable(Protocol):
    """What the writer reads of a table (its core, `core.TableState`)."""

    @property
    def game(self) -> GameState | None: ...

    def row(self) -> dict[str, Any]:
        """The table row, JSON-safe."""
        ...

    def row_key(self) -> tuple[object, ...]:
        """Changes whenever `row` may have changed (not on every move)."""
        ...


HandKey = tuple[int, object, object, int]
"""What identifies how far a hand has gone: bids, discard, trump, plays."""
Written = tuple[JsonObject, "GameState | None", tuple[HandKey, ...], int]
"""What the journal has once a write is done: the table row, the game and how far each
of its hands had gone, and how many of the chat lines waiting were in it."""


def chat_row(line: ChatLine) -> dict[str, Any]:
    return {"sender": line.sender, "text": line.text, "at": line.at}


def hand_key(state: GameState, hand: int) -> HandKey:
    log_ = state.logs[hand]
    return (len(log_.bids), log_.discard, log_.trump, len(log_.plays))


class TableWriter:
    """What one table last wrote to the journal, and the entries that bring it up to date."""

    def __init__(self, table_id: str, journal: TableJournal) -> None:
        self.table_id = table_id
        self.journal = journal
        self._built_key: object = None
        self._built: JsonObject | None = None
        """The table row last built, and the key it was built for."""
        self._row: JsonObject | None = None
        """The table row last written."""
        self._state: GameState | None = None
        """The game whose hands were last written, and how far each had gone."""
        self._hands: tuple[HandKey, ...] = ()
        self._deal: tuple[tuple[int, ...], list[list[str]]] | None = None
        """The last hand's deal (its masks) as the row writes it."""
        self._chat: list[JsonObject] = []
        """Chat lines said and not yet written."""
        self.failing = False
        """The last write failed (it was logged; the next that works says so)."""

    def said(self, line: ChatLine) -> None:
        self._chat.append(chat_row(line))
        del self._chat[:-CHAT_KEPT]  # the journal keeps no more, even after failed writes

    def _changes(self, table: Writable) -> tuple[list[JournalEntry], Written]:
        """The entries that bring the journal up to date, and what is written once they are."""
        table_id = self.table_id
        entries: list[JournalEntry] = []
        key = table.row_key()
        if key != self._built_key:
            self._built_key, self._built = key, table.row()
        row = self._built
        assert row is not None
        if row is not self._row and row != self._row:
            entries.append(TableRow(table_id, row))
        state = table.game
        hands = self._hands
        if state is not self._state:
            entries.append(NewGame(table_id))
            hands = ()
        if state is not None:
            # Only the last hand written can have gone on, and any dealt since.
            kept = list(hands)
            for number in range(max(0, len(kept) - 1), len(state.logs)):
                now = hand_key(state, number)
                if number < len(kept) and kept[number] == now:
                    continue
                entries.append(HandRow(table_id, number, self._hand_row(state, number)))
                kept[number:number + 1] = [now]
            hands = tuple(kept)
        if self._chat:
            entries.extend(ChatRow(table_id, line) for line in self._chat)
        return entries, (row, state, hands, len(self._chat))

    def _hand_row(self, state: GameState, number: int) -> dict[str, Any]:
        """Hand `number` as `moon/1` writes it; its deal written out once per hand (it
        never changes: a move's write went from 17 to 14 us, measured)."""
        log_ = state.logs[number]
        if self._deal is None or self._deal[0] != log_.deal_masks:
            row = record_hand(log_).to_dict()
            self._deal = (log_.deal_masks, row["deal"])
            return row
        row = record_hand(log_, deal=False).to_dict()
        row["deal"] = self._deal[1]
        return row

    def _written(self, done: Written) -> None:
        self._row, self._state, self._hands, chat = done
        del self._chat[:chat]

    def prime(self, table: Writable) -> None:
        """The table's game is as the journal has it (it was just rebuilt from it); its
        row is written again with the first pass, as the rebuilt table has it."""
        self._written(self._changes(table)[1])
        self._row = None

    async def write(self, table: Writable, then: Callable[[], object] | None = None) -> bool:
        """Write what changed since the last write; True once it is durable (or there was
        nothing to write), False if the journal refused it. `then` runs as soon as it is
        durable, when there was anything to write (`TableJournal`)."""
        entries, done = self._changes(table)
        if not entries:
            return True
        if not await self._write(entries, then):
            return False
        self._written(done)
        return True

    async def gone(self) -> bool:
        """The table closed for good: the journal forgets it (False: not yet written)."""
        self._chat.clear()
        return await self._write([TableGone(self.table_id)])

    async def _write(self, entries: list[JournalEntry],
                     then: Callable[[], object] | None = None) -> bool:
        try:
            await self.journal.write(entries, then)
        except NotOwner:
            raise  # the table stops (`Table.run`)
        except Exception:
            if not self.failing:
                log.exception("table %s: the journal failed; the table waits, telling "
                              "nothing, and writes again until it works", self.table_id)
            self.failing = True
            return False
        if self.failing:
            log.warning("table %s: the journal works again", self.table_id)
            self.failing = False
        return True
