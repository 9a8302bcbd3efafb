"""A player handle's bounded event queue, where a newer view replaces an undelivered older one.

This is what keeps a slow reader from slowing anyone: a table only ever appends here
(never waits), a newer `TableUpdate` of a table replaces the older one still waiting, and
a newer `LobbyUpdate` replaces the older `LobbyUpdate`. The replaced event is removed and
the new one goes to the end, so the order of events stays causal.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Hashable

from .messages import Event, LobbyUpdate, TableUpdate


def coalesce_key(event: Event) -> Hashable | None:
    """Events with the same key replace each other while undelivered; None: never."""
    if isinstance(event, TableUpdate):
        return ("table", event.table.table_id)
    if isinstance(event, LobbyUpdate):
        return ("lobby",)
    return None


class _Box:
    """One queue slot; emptied (event None) when a newer event replaced it."""

    __slots__ = ("event", "key")

    def __init__(self, event: Event, key: Hashable | None) -> None:
        self.event: Event | None = event
        self.key = key


class EventQueue:
    """Bounded, coalescing, never blocking the writer. One reader."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"an event queue holds at least 1 event, not {maxsize}")
        self.maxsize = maxsize
        self._boxes: deque[_Box] = deque()
        self._live = 0
        self._latest: dict[Hashable, _Box] = {}
        self.ready = asyncio.Event()

    def __len__(self) -> int:
        return self._live

    def put(self, event: Event) -> bool:
        """Queue `event`, replacing an older one of the same kind; False when full."""
        key = coalesce_key(event)
        if key is not None:
            old = self._latest.pop(key, None)
            if old is not None:
                old.event = None
                self._live -= 1
        if self._live >= self.maxsize:
            return False
        self._append(event, key)
        return True

    def put_last(self, event: Event) -> None:
        """Queue the final event even when the queue is full (Disconnected)."""
        self._append(event, None)

    def _append(self, event: Event, key: Hashable | None) -> None:
        box = _Box(event, key)
        self._boxes.append(box)
        self._live += 1
        if key is not None:
            self._latest[key] = box
        if len(self._boxes) > 2 * self._live + 32:
            self._boxes = deque(b for b in self._boxes if b.event is not None)
        self.ready.set()

    def get_nowait(self) -> Event | None:
        """The oldest waiting event, or None when there is none."""
        boxes = self._boxes
        while boxes:
            box = boxes.popleft()
            event = box.event
            if event is None:
                continue
            self._live -= 1
            if box.key is not None and self._latest.get(box.key) is box:
                del self._latest[box.key]
            return event
        self.ready.clear()
        return None

    def clear(self) -> None:
        self._boxes.clear()
        self._latest.clear()
        self._live = 0
        self.ready.set()
