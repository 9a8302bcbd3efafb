"""What the interface may ask of whoever hosts it (the SSH server, or nothing locally).

The interface layer defines these; the server layer implements them. Keeping the contract
here keeps the layers pointing one way: the interface never imports `server`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .ratings.board import LeaderboardPage, PlayerCard


@dataclass(frozen=True, slots=True)
class LinkCode:
    """A one-time code that adds the key of the next login that types it."""

    code: str
    """As shown to the player (e.g. ABCD-EFGH)."""
    minutes: float
    """How long it can be used."""
    command: str
    """What to run on the other computer, e.g. `ssh -p 2222 ann@this-server`."""


class KeyManager(Protocol):
    """The player's SSH keys: which may log in, and a way to add one from another computer.

    A key is only ever added by logging in with it (proof that the player holds it), never
    from a pasted public key: anyone can copy someone else's public key.
    """

    async def list_keys(self) -> list[str]:
        """Fingerprints of the keys that may log in as this player."""
        ...

    async def new_link_code(self) -> LinkCode:
        """A code for the first login with a new key to type.

        Raises `ValueError` with a plain-words message when the player cannot add keys.
        """
        ...


class ServerHealth(Protocol):
    """What is wrong with the server now, for its operators (e.g. game records that the
    disk refused). The operator screen shows it."""

    def alarms(self) -> tuple[str, ...]:
        """One line of plain words per problem; empty when all is well."""
        ...


class RatingBook(Protocol):
    """The club's ratings, read from the game records (the leaderboard, player cards)."""

    async def leaderboard(self, players: int, offset: int, limit: int,
                          me: str | None) -> LeaderboardPage:
        """Rows `offset` to `offset + limit` of the `players` pool's board, best first,
        and `me`'s own row."""
        ...

    async def card(self, name: str) -> PlayerCard | None:
        """`name`'s record, or None when they have played no rated game."""
        ...
