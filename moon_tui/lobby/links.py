"""How a table and the rest of the lobby reach each other: one link per table, two streams.

Into a table go `TableMessage`s (a member's command with its id, a member attached or
detached, close; the table's own clocks and computers post there too); out of it come
`TableOutput`s (an event for a member, the acknowledgement of a command id, its entry
changed, closed, hands and games counted). Nothing else crosses: no handle, no shared
object, no callback into the other side.

Two links keep that promise:
- `InProcessLink` hands each message over as it is (the server's: no cost);
- `LoopbackLink` sends each one through the wire format (`codec.py`) and reads it back,
  as a link between processes would: the whole lobby test suite runs over it too
  (`tests/conftest.py`), which proves that every message round-trips and that the table
  needs nothing else.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from ..shown import shown
from . import codec
from .internal import Acked, FromMember, TableMessage, TableOutput, ToMember
from .messages import Rejected
from .refusals import Refusal, Refused

log = logging.getLogger(__name__)


class TableLink(Protocol):
    """Both streams of one table."""

    table_id: str

    def to_table(self, message: TableMessage) -> None:
        """Into the table's inbox (never blocks)."""
        ...

    def to_lobby(self, message: TableOutput) -> None:
        """Out of the table, to the lobby's side (never blocks)."""
        ...

    def open(self, inbox: Callable[[TableMessage], None]) -> None:
        """The table runs: what comes in goes to its `inbox`."""
        ...

    def shut(self) -> None:
        """The table has closed: a command still coming is refused (and acknowledged),
        anything else is dropped, and the link no longer holds the table."""
        ...

    def told(self) -> None:
        """The end of one of the table's passes: what it told may go out together."""
        ...


LinkFactory = Callable[[str, Callable[[TableOutput], None]], TableLink]
"""Makes the link of table `table_id` whose output goes to the given receiver."""


class InProcessLink:
    """Table and lobby in one process: each message is handed over as it is."""

    def __init__(self, table_id: str, receiver: Callable[[TableOutput], None]) -> None:
        self.table_id = table_id
        self._receiver = receiver
        self._inbox: Callable[[TableMessage], None] = self._closed

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.table_id}>"

    def open(self, inbox: Callable[[TableMessage], None]) -> None:
        self._inbox = inbox

    def shut(self) -> None:
        self._inbox = self._closed

    def to_table(self, message: TableMessage) -> None:
        self._inbox(message)

    def to_lobby(self, message: TableOutput) -> None:
        self._receiver(message)

    def told(self) -> None:
        """Each message went out as it came."""

    def _closed(self, message: TableMessage) -> None:
        """What a closed (or not yet running) table answers: a command is refused."""
        if isinstance(message, FromMember):
            self._refuse(message, Refused(Refusal.TABLE_CLOSED, table_id=self.table_id))

    def _refuse(self, message: FromMember, refused: Refused) -> None:
        """The link's own answer, on the lobby's side: it crosses nothing."""
        self._receiver(ToMember(message.name, Rejected.because(message.command, refused)))
        if message.command_id:
            self._receiver(Acked(message.command_id))


class LoopbackLink(InProcessLink):
    """Every message, both ways, goes through the wire format and back. A command with
    a value that does not fit its type (a seat that is not a number) cannot be written:
    it is refused on this side, as a link between processes would."""

    def to_table(self, message: TableMessage) -> None:
        try:
            data = codec.encode(message)
        except codec.CodecError as exc:
            if not isinstance(message, FromMember):
                raise
            log.info("a command that cannot be written refused: %s", shown(str(exc)))
            self._refuse(message, Refused(Refusal.NOT_A_COMMAND))
            return
        super().to_table(codec.decode(data))

    def to_lobby(self, message: TableOutput) -> None:
        super().to_lobby(codec.decode(codec.encode(message)))


LINKS: dict[str, LinkFactory] = {"in-process": InProcessLink, "loopback": LoopbackLink}
default_link: LinkFactory = InProcessLink
"""The link a lobby makes when it is not told (the tests run the lobby over each)."""
