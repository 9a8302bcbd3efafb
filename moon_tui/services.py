"""What the interface may ask of whoever hosts it (the SSH server, or nothing locally).

The interface layer defines these; the server layer implements them. Keeping the contract
here keeps the layers pointing one way: the interface never imports `server`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

from .rules import Record, Rules


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


# --- the club's saved games -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class GameQuery:
    """Which saved games to list: newest first, `limit` of them, older than `before` (a
    `GameEntry.key` of the page before: pages stay put while new games are saved)."""

    player: str | None = None
    """Only games this name sat in."""
    players: int | None = None
    """Only games of 3 (or 4) players."""
    before: int | None = None
    limit: int = 20


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One saved game as a list shows it (public: no tile of any deal)."""

    key: int
    """Its place in the listing (newer games have larger keys)."""
    code: str
    """Its short code, e.g. `K7Q2MD`: what `record` and `replay` take."""
    saved_at: float
    """Unix time."""
    finished: bool
    seats: tuple[str, ...]
    rules: Rules
    hands: int
    """Hands dealt, the redeals counted."""
    scores: tuple[int, ...]
    """Per side (a seat with 3 players, a team with 4)."""
    winner: int | None
    """The winning side, None for a game not finished."""


@dataclass(frozen=True, slots=True)
class GamePage:
    games: tuple[GameEntry, ...]
    more: bool
    """Older games follow (ask again with `before` = the last game's key)."""


class GameRefusal(enum.StrEnum):
    """Why a saved game cannot be opened (the interface words it)."""

    UNKNOWN = "unknown"
    """No game has this code."""
    NOT_SEATED = "not_seated"
    """An unfinished game opens only for those who sat in it (RULES.md, what each seat may
    know: the deals are shown once a game is over)."""
    GUEST = "guest"
    """A guest's name lasts one visit: an unfinished game's hand is kept from guests."""


class GameRefused(ValueError):
    def __init__(self, why: GameRefusal, code: str) -> None:
        super().__init__(f"{why.value}: {code}")
        self.why = why
        self.code = code


@dataclass(frozen=True, slots=True)
class OpenedGame:
    """A saved game opened for one player, and what of it they may see."""

    entry: GameEntry
    record: Record
    seats: frozenset[int] | None
    """The seats whose view may be shown, each alone; None: every seat, and all hands
    open (a finished game)."""
    seat_changes: tuple[dict[str, Any], ...] = ()
    """Who played a seat when it was not the person named (`seat_changes` of RECORD.md),
    entries of the documented shape only."""


class GameArchive(Protocol):
    """The club's saved games (the server's database)."""

    async def games(self, query: GameQuery) -> GamePage:
        """A page of saved games, newest first."""
        ...

    async def open(self, code: str) -> OpenedGame:
        """The game with this code, as the player may see it; `GameRefused` says why not."""
        ...
