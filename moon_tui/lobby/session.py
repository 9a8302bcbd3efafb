"""A player session's end of the lobby: send commands, read events.

`send` never blocks and never raises: a refused command comes back as a `Rejected` event.
The lobby writes events with `deliver`, which never blocks either; a session whose queue is
still full after coalescing is dropped, so one stuck reader costs nobody else anything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from .internal import FromSession, LobbyMessage, SessionClosed
from .messages import Command, Event, Rejected, SessionEnded
from .queue import EventQueue
from .refusals import Refusal, Refused

TOO_SLOW = "your connection could not keep up"


class LobbyClosed(Exception):
    """The session has ended (or the lobby is not running): no more events will come."""


class PlayerHandle:
    """One connected session of a player, as the interface and the server hold it."""

    def __init__(self, name: str, *, operator: bool, queue_size: int,
                 post: Callable[[LobbyMessage], None], max_pending: int = 64) -> None:
        self.name = name
        self.operator = operator
        self._queue = EventQueue(queue_size)
        self._post = post
        self._max_pending = max_pending
        self.pending = 0
        """Commands sent and not yet taken up by the lobby (the lobby decrements it)."""
        self._closed = False
        self._ended = False
        self._ended_read = False

    def __repr__(self) -> str:
        return f"<PlayerHandle {self.name!r}{' closed' if self.closed else ''}>"

    # -- the session's side --------------------------------------------------------------
    def send(self, command: Command) -> None:
        """Hand a command to the lobby; the answer, if any, comes back as events."""
        if self.closed:
            return
        if self.pending >= self._max_pending:
            self.deliver(Rejected.because(command, Refused(Refusal.TOO_MANY_PENDING)))
            return
        self.pending += 1
        self._post(FromSession(self, command))

    async def next_event(self) -> Event:
        """The next event; raises `LobbyClosed` after `SessionEnded` or `close()`."""
        queue = self._queue
        while True:
            if self._closed or self._ended_read:
                raise LobbyClosed(f"the session of {self.name} has ended")
            event = queue.get_nowait()
            if event is not None:
                if isinstance(event, SessionEnded):
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
            if isinstance(event, SessionEnded):
                return

    async def close(self) -> None:
        """The player disconnected: the lobby keeps their seat for the grace period."""
        if self._closed:
            return
        self._closed = True
        self._queue.clear()
        if not self._ended:
            self._ended = True
            self._post(SessionClosed(self))

    @property
    def closed(self) -> bool:
        return self._closed or self._ended

    def pending_events(self) -> int:
        """Events waiting to be read (for tests and the benchmark)."""
        return len(self._queue)

    # -- the lobby's side ----------------------------------------------------------------
    def deliver(self, event: Event) -> bool:
        """Queue an event for this session; False when the session is gone (or just dropped)."""
        if self._ended:
            return False
        if self._queue.put(event):
            return True
        self.end(TOO_SLOW)
        self._post(SessionClosed(self))
        return False

    def end(self, reason: str) -> None:
        """Close the session from the lobby's side: `SessionEnded(reason)` is its last event."""
        if self._ended:
            return
        self._ended = True
        self._queue.put_last(SessionEnded(reason))
