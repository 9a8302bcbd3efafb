"""What the lobby asks its host to make last, and what the host kept from before.

The lobby lives in memory; a club's server keeps some of what its operators and players
decide across restarts: a kick's time out, an unban, the notice board and the message of
the day, who turned invitations off. The lobby hands these to a `ClubKeeper` (the
server's database) and starts from the `ClubState` it kept. Without one (tests, `moon`
alone) they last as long as the lobby.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .messages import BoardNote


class ClubKeeper(Protocol):
    async def kick(self, name: str, reason: str, minutes: float, by: str) -> None:
        """Keep `name` out for `minutes` (their session was ended already)."""
        ...

    async def unban(self, name: str) -> bool:
        """Lift every ban or kick made for `name`; False when there was none."""
        ...

    async def keep_notices(self, board: BoardNote | None, motd: str | None) -> None:
        """The notice board and the message of the day (None: the configured one)."""
        ...

    async def keep_invitations(self, name: str, on: bool) -> None:
        """`name` turned invitations on or off (kept only for a name with a key)."""
        ...


@dataclass(frozen=True, slots=True)
class ClubState:
    """What the keeper kept from before the lobby started."""

    board: BoardNote | None = None
    motd: str | None = None
    """The operators' message of the day (None: the configured one)."""
    invitations_off: frozenset[str] = frozenset()
