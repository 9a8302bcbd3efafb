"""A player's handle on the lobby: send commands, read events.

`send` never blocks and never raises: a refused command comes back as a `Rejected` event.
A command for a table (`TABLE_COMMANDS`) goes straight to that table's link, numbered by
the lobby's `Router`; the rest go to the lobby. Tables and the lobby write events with
`deliver`, which never blocks either; a handle whose queue is still full after coalescing
is dropped, so one stuck reader costs nobody else anything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from ..rules.illegal import Param
from .internal import FromHandle, HandleClosed, LobbyMessage
from .messages import TABLE_COMMANDS, Command, Disconnected, Event, Rejected
from .notices import Ending
from .queue import EventQueue
from .refusals import Refusal, Refused

if TYPE_CHECKING:
    from .router import Router


class LobbyClosed(Exception):
    """The handle has ended (or the lobby is not running): no more events will come."""


class PlayerHandle:
    """One connection of a player to the lobby, as the interface and the server hold it."""

    def __init__(self, name: str, *, operator: bool, queue_size: int,
                 post: Callable[[LobbyMessage], None], router: Router,
                 max_pending: int = 64, person: str | None = None) -> None:
        self.name = name
        self.operator = operator
        self.person = name if person is None else person
        """Whom the lobby's per-person limits count this session against (`Lobby.connect`)."""
        self._queue = EventQueue(queue_size)
        self._post = post
        self._router = router
        self._max_pending = max_pending
        self._pending = 0
        self._closed = False
        self._ended = False
        self._ended_read = False

    def __repr__(self) -> str:
        return f"<PlayerHandle {self.name!r}{' closed' if self.closed else ''}>"

    # -- the player's side ---------------------------------------------------------------
    def send(self, command: Command) -> None:
        """Hand a command to its table, or to the lobby; answers come back as events."""
        if self.closed:
            return
        if self._pending >= self._max_pending:
            self.deliver(Rejected.because(command, Refused(Refusal.TOO_MANY_PENDING)))
            return
        if isinstance(command, TABLE_COMMANDS) and isinstance(command.table_id, str):
            if not self._router.command(self, command.table_id, command):
                self.deliver(Rejected.because(
                    command, Refused(Refusal.NO_SUCH_TABLE, table_id=command.table_id)))
            return
        self._pending += 1
        self._post(FromHandle(self, command))

    @property
    def pending(self) -> int:
        """Commands sent and not yet taken up: by the lobby, or by a table (acknowledged to
        the `Router`, which tells the session that sent each: `taken_up`)."""
        return self._pending

    def waits(self) -> None:
        """One more command of this session went on to a table (`Router.command`)."""
        self._pending += 1

    def taken_up(self) -> None:
        """A command this session sent was taken up, or never will be."""
        self._pending -= 1

    async def next_event(self) -> Event:
        """The next event; raises `LobbyClosed` after `Disconnected` or `close()`."""
        queue = self._queue
        while True:
            if self._closed or self._ended_read:
                raise LobbyClosed(f"the handle of {self.name} has ended")
            event = queue.get_nowait()
            if event is not None:
                if isinstance(event, Disconnected):
                    self._ended_read = True
                return event
            await queue.ready.wait()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events()

    async def _events(self) -> AsyncIterator[Event]:
        while True:
            try:
                event = await self.next_event()
            except LobbyClosed:
                return
            yield event
            if isinstance(event, Disconnected):
                return

    async def close(self) -> None:
        """The player disconnected: the lobby keeps their seat for the grace period."""
        if self._closed:
            return
        self._closed = True
        self._queue.clear()
        if not self._ended:
            self._ended = True
            self._post(HandleClosed(self))

    @property
    def has_events(self) -> bool:
        """Whether an event waits to be read (the next read does not wait)."""
        return len(self._queue) > 0

    @property
    def closed(self) -> bool:
        return self._closed or self._ended

    # -- the lobby's and the tables' side -------------------------------------------------
    def deliver(self, event: Event) -> bool:
        """Queue an event for this handle; False when it is gone (or just dropped)."""
        if self._ended:
            return False
        if self._queue.put(event):
            return True
        self.end(Ending.TOO_SLOW)
        self._post(HandleClosed(self))
        return False

    def end(self, ending: Ending, **params: Param) -> None:
        """Close the handle from the lobby's side: `Disconnected(reason)` is its last event."""
        if self._ended:
            return
        self._ended = True
        self._queue.put_last(Disconnected(ending, params))
