"""Tables that outlive the server: what a table writes down so it can be rebuilt.

Before a table tells anyone about a change, it hands the change to a `TableJournal` and
waits until the journal says it is durable. A crash then loses at most what nobody was
told. What is written is plain JSON-safe data, and each kind of entry replaces or adds
one row, so a journal can keep them anywhere (the server keeps them in SQLite):

- `TableRow`: everything about a table but its game and its chat (options, seats, owner,
  bot levels, invite code, status, who plays the game), replaced whole when it changes;
- `HandRow`: one hand of the current game as the `moon/1` record writes it, replaced
  whole as the hand goes on; the hands of a table are its game's record;
- `NewGame`: the table's game starts over (the old one went to the records): its hands
  are forgotten;
- `ChatRow`: a line of the table chat (the journal keeps the last `CHAT_KEPT`); the
  lobby's own chat is written the same way, under `LOBBY_ROOM`;
- `TableGone`: the table closed; everything of it is forgotten.

On start, `load()` gives back each table that was not gone, as the last write left it,
and `lobby_chat()` the lobby chat's last lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .chat import CHAT_KEPT

JsonObject = Mapping[str, Any]

LOBBY_ROOM = ""
"""The `ChatRow.table_id` of the lobby chat's lines (no table has an empty id)."""


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table's own facts (JSON-safe), replacing what was written for it before."""

    table_id: str
    data: JsonObject


@dataclass(frozen=True, slots=True)
class HandRow:
    """Hand number `hand` (0-based) of the table's current game, as `moon/1` writes it."""

    table_id: str
    hand: int
    data: JsonObject


@dataclass(frozen=True, slots=True)
class NewGame:
    """The table's current game is over or replaced: forget its hands."""

    table_id: str


@dataclass(frozen=True, slots=True)
class ChatRow:
    """A line of the table's chat (JSON-safe)."""

    table_id: str
    data: JsonObject


@dataclass(frozen=True, slots=True)
class TableGone:
    """The table closed: forget its row, hands and chat."""

    table_id: str


JournalEntry = TableRow | HandRow | NewGame | ChatRow | TableGone


@dataclass(frozen=True, slots=True)
class SavedTable:
    """A table as the journal last wrote it: its row, its game's hands in order, and its
    chat's last lines, oldest first."""

    table_id: str
    data: JsonObject
    hands: tuple[JsonObject, ...] = ()
    chat: tuple[JsonObject, ...] = ()


class NotOwner(Exception):
    """A table's entries were refused because another process owns the table now (a
    worker of a club that lost the table's lease: `server/ownership.py`). The table
    stops here at once, telling nothing more and saving nothing: its new owner runs it
    on from the journal."""


class TableJournal(Protocol):
    """Where tables write themselves down. One journal is shared by every table."""

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        """Make `entries` durable, in order, and return once they are. Raises if they
        cannot be written: nothing of them is kept, the table holds what it would tell
        and writes them again (`table.py`: it waits for its journal); `NotOwner` when
        another worker owns the table now (the table stops).

        `then` runs once they are durable (never when they failed), before this returns,
        in the same pass of the event loop as the journal learns it: a table tells its
        players from there, a pass sooner than its task would wake to do it (a pass is
        20-40 ms on a busy server)."""
        ...

    def writable(self) -> bool:
        """False while the journal's last write failed (a full disk): the lobby opens no
        new table until a write works again."""
        ...

    async def load(self) -> list[SavedTable]:
        """Every table written and not gone, in the order the tables were first written."""
        ...

    async def lobby_chat(self) -> list[JsonObject]:
        """The lobby chat's last `CHAT_KEPT` lines (`LOBBY_ROOM`), oldest first."""
        ...


@dataclass
class MemoryJournal:
    """A journal in memory: for tests, and for a lobby that need not outlive its process.

    `writes` counts the calls to `write`, so a test can see a change was written before
    it was told."""

    tables: dict[str, JsonObject] = field(default_factory=dict)
    hands: dict[str, dict[int, JsonObject]] = field(default_factory=dict)
    chat: dict[str, list[JsonObject]] = field(default_factory=dict)
    writes: int = 0

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        self.writes += 1
        for entry in entries:
            apply_entry(self, entry)
        if then is not None:
            then()

    def writable(self) -> bool:
        return True

    async def load(self) -> list[SavedTable]:
        return [SavedTable(table_id, data,
                           tuple(hand for _, hand in sorted(self.hands.get(table_id, {}).items())),
                           tuple(self.chat.get(table_id, ())))
                for table_id, data in self.tables.items()]

    async def lobby_chat(self) -> list[JsonObject]:
        return list(self.chat.get(LOBBY_ROOM, ()))


def apply_entry(journal: MemoryJournal, entry: JournalEntry) -> None:
    """What one entry does to a journal's rows (the meaning every journal keeps)."""
    table_id = entry.table_id
    if isinstance(entry, TableRow):
        journal.tables[table_id] = entry.data
    elif isinstance(entry, HandRow):
        journal.hands.setdefault(table_id, {})[entry.hand] = entry.data
    elif isinstance(entry, NewGame):
        journal.hands.pop(table_id, None)
    elif isinstance(entry, ChatRow):
        lines = journal.chat.setdefault(table_id, [])
        lines.append(entry.data)
        del lines[:-CHAT_KEPT]
    else:
        journal.tables.pop(table_id, None)
        journal.hands.pop(table_id, None)
        journal.chat.pop(table_id, None)
