"""The lobby's side of the tables' links: who is connected, and where each table is.

A session's command for a table is numbered here and counted pending on that session
until the table acknowledges the number (`Acked`): the count follows the session that
sent it, not whoever holds the name when the table gets to it (it was taken off the
name's *current* session, so a reconnection could send past the bound). What comes out
of a table is routed from here: an event to the member's current session, its entry and
its closing to the lobby's inbox, its counts to the lobby's statistics.

A worker of a club (`peers.py`) also routes to tables other workers run: `links` are the
tables run here (the lobby waits for them to close when it stops), `remote` those run
elsewhere that the club lists (never closed from here).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .internal import (
    Acked,
    Attach,
    Counted,
    Detach,
    EntryChanged,
    FromMember,
    HandDealt,
    LobbyMessage,
    TableChanged,
    TableClosed,
    TableMessage,
    TableOutput,
    ToMember,
)
from .links import LinkFactory, TableLink
from .messages import Command
from .stats import LobbyStats

if TYPE_CHECKING:
    from .handle import PlayerHandle


class Router:
    """Sessions by name, table links by id, commands waiting for their acknowledgement."""

    def __init__(self, make_link: LinkFactory, lobby_post: Callable[[LobbyMessage], None],
                 stats: LobbyStats) -> None:
        self.players: dict[str, PlayerHandle] = {}
        self.links: dict[str, TableLink] = {}
        self.remote: dict[str, TableLink] = {}
        """Links to the tables other workers run (`sync_remote`)."""
        self._make_link = make_link
        self._lobby_post = lobby_post
        self._stats = stats
        self._ids = itertools.count(1)
        self._waiting: dict[int, tuple[PlayerHandle, str]] = {}
        """Commands sent and not yet acknowledged, by id: the session that sent each, and
        the table it went to."""
        self._commanded: dict[str, set[str]] = {}
        """The tables each name sent a command to since it last dropped: a seat taken a
        moment before dropping is not in the lobby's listing yet, and must hear of it."""

    def link(self, table_id: str) -> TableLink:
        """A new link for table `table_id`, its output routed from here."""
        link = self._make_link(table_id, self.received)
        self.links[table_id] = link
        return link

    def forget(self, table_id: str) -> None:
        self.links.pop(table_id, None)

    def find(self, table_id: str) -> TableLink | None:
        """The link to table `table_id`, run here or elsewhere."""
        link = self.links.get(table_id)
        return link if link is not None else self.remote.get(table_id)

    def sync_remote(self, table_ids: Iterable[str], make: LinkFactory) -> set[str]:
        """Links to exactly the tables `table_ids` run elsewhere: new ones made by `make`,
        those no longer listed shut (a command on its way is refused). The new ones."""
        wanted = set(table_ids) - self.links.keys()
        gone = self.remote.keys() - wanted
        for table_id in gone:
            self.remote.pop(table_id).shut()
        if gone:  # their acknowledgements will not come: the commands count no more
            for command_id, (handle, table_id) in list(self._waiting.items()):
                if table_id in gone:
                    del self._waiting[command_id]
                    handle.taken_up()
        new = wanted - self.remote.keys()
        for table_id in new:
            self.remote[table_id] = make(table_id, self.received)
        return new

    def command(self, handle: PlayerHandle, table_id: str, command: Command, *,
                by_code: bool = False) -> bool:
        """Send `handle`'s command to the table, pending until acknowledged; False when
        there is no such table."""
        link = self.find(table_id)
        if link is None:
            return False
        self._commanded.setdefault(handle.name, set()).add(table_id)
        command_id = next(self._ids)
        self._waiting[command_id] = (handle, table_id)
        handle.waits()
        link.to_table(FromMember(handle.name, command, by_code, command_id))
        return True

    def commanded(self, name: str) -> frozenset[str]:
        """The tables `name` sent a command to since they last dropped."""
        return frozenset(self._commanded.get(name, ()))

    def tell(self, table_ids: Iterable[str], message: TableMessage) -> None:
        """`message` (an `Attach`, `Detach` or `CloseNow`) to each table of `table_ids`."""
        for table_id in table_ids:
            link = self.find(table_id)
            if link is not None:
                link.to_table(message)

    def attach(self, name: str, table_ids: Iterable[str]) -> None:
        self.tell(table_ids, Attach(name))

    def attach_again(self, name: str, table_ids: Iterable[str]) -> None:
        """`name`, still connected, gets their tables afresh (the bus lost what was on its
        way): `table_ids` and every table they sent a command to since they connected. A
        seat taken a moment before is not in the listing yet where the table runs on
        another worker (its share comes every half second); that player's game then
        waited for good for a view the bus had lost."""
        self.tell(set(table_ids).union(self._commanded.get(name, ())), Attach(name))

    def detach(self, name: str, table_ids: Iterable[str], *, kicked: bool = False) -> None:
        """`name` dropped (or was kicked): told to `table_ids` and to every table they sent
        a command to."""
        self.tell(set(table_ids).union(self._commanded.pop(name, ())), Detach(name, kicked))

    def received(self, message: TableOutput) -> None:
        """What a table sent out, routed."""
        if isinstance(message, ToMember):
            handle = self.players.get(message.name)
            if handle is not None:
                handle.deliver(message.event)
        elif isinstance(message, Acked):
            waiting = self._waiting.pop(message.command_id, None)
            if waiting is not None:
                waiting[0].taken_up()
        elif isinstance(message, EntryChanged):
            self._lobby_post(TableChanged(message.info))
        elif isinstance(message, TableClosed | HandDealt):
            self._lobby_post(message)
        elif isinstance(message, Counted):
            self._stats.played(message.hands, message.games)
