"""The other workers of a club, as the lobby sees them (`moon-server --workers N`).

A lobby alone (the default) has no peers. A worker's lobby is given one `Peers`, made by
the server over its bus (`server/bus_club.py`: the lobby layer knows no bus): the lobby
tells it who arrives and leaves here (their tables' events must reach this worker), the
lobby chat's lines posted here, the news the other workers must act on (an operator's
broadcast, kick or ban, an invitation to someone served there), and asks it for the link
of a table run elsewhere. What the other workers share and tell comes back into the
lobby's inbox (`Lobby.from_peers`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .internal import PeerNews, TableOutput
from .links import TableLink
from .messages import ChatPosted


class Peers(Protocol):
    """This worker's side of the club's other workers."""

    def arrived(self, name: str) -> None:
        """`name` is connected here now: their tables' events come to this worker. Told
        before anything is sent to their tables for them."""
        ...

    def left(self, name: str) -> None:
        """`name`'s session here ended."""
        ...

    def chat(self, posted: ChatPosted) -> None:
        """A lobby chat line posted here, for everyone on the other workers."""
        ...

    def news(self, news: PeerNews) -> None:
        """News for the other workers' lobbies: each acts on it for the people it serves."""
        ...

    def remote_link(self, table_id: str, receiver: Callable[[TableOutput], None]
                    ) -> TableLink:
        """The link of a table another worker runs: commands go to it, what it sends this
        worker's members comes to `receiver`."""
        ...

    async def caught_up(self) -> None:
        """Return once what every other worker shared after this call was read here: a
        table (an invite code) opened elsewhere just before is then known."""
        ...


class SharedRates(Protocol):
    """The lobby's own rate limits counted over the whole club (`tables_per_hour`): a
    person on two workers has one budget, not two."""

    async def spend(self, kind: str, who: str, count: int, window: float) -> float:
        """Count one `kind` event of `who` if fewer than `count` fell in the last `window`
        seconds, and return 0; else return the seconds until one fits (nothing counted)."""
        ...
