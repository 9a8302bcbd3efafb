"""A player driven by code: keeps every event, waits for the ones asked for, and can play.

Tests, the benchmark and load scripts use it to act as a player through the lobby's
messages only, exactly as an interface would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from moon_tui.lobby.handle import PlayerHandle
from moon_tui.lobby.messages import Act, Event, TableUpdate
from moon_tui.rules import Action, SeatView

T = TypeVar("T")

Policy = Callable[[SeatView], Action | None]
"""Chooses a move from the seat's view; None leaves the turn alone (to let a timer run out)."""


def first_legal(view: SeatView) -> Action | None:
    return view.legal[0] if view.legal else None


def _decision_point(view: SeatView) -> tuple[object, ...]:
    """What identifies one decision of a seat: the same view sent twice is one turn."""
    return (view.hand_number, view.phase, len(view.bids), view.trump, view.discard,
            len(view.played_tiles()))


class Client:
    """Reads a handle's events in `run()` (start it in a task group); `policy` plays turns."""

    def __init__(self, handle: PlayerHandle, policy: Policy | None = None) -> None:
        self.handle = handle
        self.policy = policy
        self.events: list[Event] = []
        self._arrived = asyncio.Event()
        self._acted: dict[str, tuple[object, ...]] = {}

    @property
    def name(self) -> str:
        return self.handle.name

    async def run(self) -> None:
        """Until the handle ends: keep each event, and play when it is this seat's turn."""
        async for event in self.handle:
            self.events.append(event)
            self._arrived.set()
            if self.policy is not None and isinstance(event, TableUpdate):
                self._maybe_play(event)

    def _maybe_play(self, event: TableUpdate) -> None:
        view = event.view
        if view is None or not view.my_turn or view.outcome is not None:
            return
        assert self.policy is not None
        table_id = event.table.table_id
        point = _decision_point(view)
        if self._acted.get(table_id) == point:
            return
        action = self.policy(view)
        if action is not None:
            self._acted[table_id] = point
            self.handle.send(Act(table_id, action))

    async def wait_for(self, match: Callable[[Event], bool], *, start: int = 0,
                       timeout: float = 10.0) -> Event:
        """The first event from index `start` on that `match`es, waiting for it if needed."""
        async with asyncio.timeout(timeout):
            seen = start
            while True:
                for event in self.events[seen:]:
                    if match(event):
                        return event
                seen = max(seen, len(self.events))
                self._arrived.clear()
                await self._arrived.wait()

    async def wait_type(self, kind: type[T], match: Callable[[T], bool] | None = None, *,
                           start: int = 0, timeout: float = 10.0) -> T:
        """The first event of type `kind` (from index `start`) that `match`es."""
        event = await self.wait_for(
            lambda e: isinstance(e, kind) and (match is None or match(e)),
            start=start, timeout=timeout)
        assert isinstance(event, kind)
        return event

    def mark(self) -> int:
        """The index the next event will have: pass it as `start` to wait for later ones."""
        return len(self.events)

    def of_type(self, kind: type[T]) -> list[T]:
        return [e for e in self.events if isinstance(e, kind)]
