"""What a table sends out: each member's own view of it, numbered, and its lobby entry.

Members are the seated players and spectators whose handle is connected. After every
change the table publishes: its state number `seq` goes up by one and each member gets a
`TableUpdate` with the view *for them* (`GameState.view(seat)`, or the spectator's), so
nothing hidden ever leaves the table. Events go out as `ToMember(name, event)` on the
table's output stream (`links.py`): a name is all a table knows of where its players are.

The publisher only decides what to send: it appends each output as a `Send` effect to the
core's list of effects (a list, not a callback: no reference cycle through the core); the
shell lets those out once the journal has the change, so nobody is told of a decision a
crash could still lose.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ..rules import GameState, SeatView
from .chat import CHAT_KEPT
from .effects import Effect, Send
from .internal import EntryChanged, TableOutput, ToMember
from .messages import ChatPosted, Event, SeatInfo, TableInfo, TableUpdate

Waits = tuple[float | None, float | None]
"""What the seat to move waits on, in seconds left: its turn timer, the reconnect wait."""
HandSeats = tuple[tuple[SeatInfo, ...], ...]


class Publisher:
    """The connected members of one table and what they were last told."""

    def __init__(self, effects: list[Effect]) -> None:
        self._effects = effects
        self.connected: dict[str, None] = {}
        """Members whose handle is connected, in the order they came (an ordered set)."""
        self.seq = 0
        self._reported: TableInfo | None = None
        self.chat: deque[ChatPosted] = deque(maxlen=CHAT_KEPT)
        """The table chat's recent lines."""

    def _out(self, message: TableOutput) -> None:
        self._effects.append(Send(message))

    def _send(self, name: str, event: Event) -> None:
        self._out(ToMember(name, event))

    def is_connected(self, name: str) -> bool:
        return name in self.connected

    def members(self) -> list[str]:
        """The connected members, in the order they came."""
        return list(self.connected)

    def restored(self, chat: tuple[ChatPosted, ...] | list[ChatPosted]) -> None:
        """Taken up after a restart: nobody is connected yet; the chat is as it was."""
        self.connected.clear()
        self.chat.extend(chat)

    def connect(self, name: str) -> None:
        """`name`'s handle is connected (a member arrives, or comes back on a new
        session): it is first told the table chat's recent lines."""
        for line in self.chat:
            self._send(name, line)
        self.connected[name] = None

    def say(self, line: ChatPosted) -> None:
        """A chat line for every member, kept for who comes later."""
        self.chat.append(line)
        self.tell_all(line)

    def disconnect(self, name: str) -> bool:
        """Forget `name`'s handle; False if they were not connected."""
        if name not in self.connected:
            return False
        del self.connected[name]
        return True

    def publish(self, public: TableInfo, players: TableInfo, state: GameState | None,
                seat_of: Callable[[str], int | None], waits: Waits = (None, None),
                hand_seats: HandSeats = ()) -> None:
        """A new state: every member gets it; the lobby gets the entry if it changed.

        `players` is the entry with the invite code (for the seated and the owner)."""
        self.seq += 1
        views: dict[int | None, SeatView | None] = {}
        for name in list(self.connected):
            self._send(name, self._update(name, public, players, state, seat_of, views,
                                          waits, hand_seats))
        if public != self._reported:
            self._reported = public
            self._out(EntryChanged(players))

    def resend(self, name: str, public: TableInfo, players: TableInfo,
               state: GameState | None, seat_of: Callable[[str], int | None],
               waits: Waits = (None, None), hand_seats: HandSeats = ()) -> None:
        """The current state again, to `name` only (a member catching up)."""
        if name in self.connected:
            self._send(name, self._update(name, public, players, state, seat_of, {},
                                          waits, hand_seats))

    def _update(self, name: str, public: TableInfo, players: TableInfo,
                state: GameState | None, seat_of: Callable[[str], int | None],
                views: dict[int | None, SeatView | None], waits: Waits,
                hand_seats: HandSeats) -> TableUpdate:
        seat = seat_of(name)
        if seat not in views:
            views[seat] = None if state is None else (
                state.spectator_view() if seat is None else state.view(seat))
        info = players if seat is not None or name == players.owner else public
        return TableUpdate(info, seat, views[seat], self.seq, *waits, hand_seats=hand_seats)

    def answer(self, name: str, event: Event) -> None:
        """An event for `name`, member or not (a refusal, being told they left)."""
        self._send(name, event)

    def tell(self, name: str, event: Event) -> None:
        """An event for `name` if they are a connected member."""
        if name in self.connected:
            self._send(name, event)

    def tell_all(self, event: Event, *, but: str | None = None) -> None:
        for name in list(self.connected):
            if name != but:
                self._send(name, event)
