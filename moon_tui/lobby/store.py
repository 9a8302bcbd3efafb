"""Where finished (and, at shutdown, unfinished) games go: a `moon/1` record per game."""

from __future__ import annotations

from typing import Any, Protocol


class RecordStore(Protocol):
    """Keeps game records. The lobby calls `save` once per game, from a table's task."""

    async def save(self, record: dict[str, Any], *, finished: bool) -> None:
        """Keep `record` (a `moon/1` document); `finished=False` for a game cut short."""
        ...


class MemoryRecordStore:
    """The default store: records in a list, each paired with its `finished` flag."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.finished: list[bool] = []

    async def save(self, record: dict[str, Any], *, finished: bool) -> None:
        self.records.append(record)
        self.finished.append(finished)
