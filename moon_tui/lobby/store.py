"""Where finished (and, at shutdown, unfinished) games go: a `moon/1` record per game."""

from __future__ import annotations

from typing import Any, Protocol


class RecordStore(Protocol):
    """Keeps game records. A table calls `save` once per game, once the game's end is in
    the journal; a table restored after a crash in that moment calls it again."""

    async def save(self, record: dict[str, Any], *, finished: bool) -> None:
        """Keep `record` (a `moon/1` document); `finished=False` for a game cut short. The
        same record saved again is kept once."""
        ...


class MemoryRecordStore:
    """The default store: records in a list, each paired with its `finished` flag."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.finished: list[bool] = []

    async def save(self, record: dict[str, Any], *, finished: bool) -> None:
        if any(r == record and f == finished
               for r, f in zip(self.records, self.finished, strict=True)):
            return
        self.records.append(record)
        self.finished.append(finished)
