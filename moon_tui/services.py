"""What the interface may ask of whoever hosts it (the SSH server, or nothing locally).

The interface layer defines these; the server layer implements them. Keeping the contract
here keeps the layers pointing one way: the interface never imports `server`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .lobby.messages import Place, SeatInfo, TableStatus


@dataclass(frozen=True, slots=True)
class LinkCode:
    """A one-time code that adds the key of the next login that types it."""

    code: str
    """As shown to the player (e.g. ABCD-EFGH)."""
    minutes: float
    """How long it can be used."""
    command: str
    """What to run on the other computer, e.g. `ssh -p 2222 ann@this-server`."""


@dataclass(frozen=True, slots=True)
class KeyFacts:
    """One SSH key that may log in under a name."""

    fingerprint: str
    kind: str
    """The key's type, e.g. `ssh-ed25519`."""
    comment: str
    """A note kept with the key (SSH does not send a key's own comment: empty unless
    written in the database)."""
    added: float
    """Unix time."""
    last_used: float | None
    """Unix time of its last login (None: not since it was added)."""
    current: bool = False
    """The key this session logged in with."""


class KeyManager(Protocol):
    """The player's SSH keys: which may log in, and a way to add one from another computer.

    A key is only ever added by logging in with it (proof that the player holds it), never
    from a pasted public key: anyone can copy someone else's public key.
    """

    async def list_keys(self) -> list[KeyFacts]:
        """The keys that may log in as this player, oldest first."""
        ...

    async def new_link_code(self) -> LinkCode:
        """A code for the first login with a new key to type.

        Raises `ValueError` with a plain-words message when the player cannot add keys.
        """
        ...

    async def remove_key(self, fingerprint: str) -> None:
        """Stop `fingerprint` from logging in as this player. Raises `ValueError` with a
        plain-words message when it may not (it is not theirs, or it is the key they are
        logged in with and no other remains)."""
        ...


# --- the operators' dashboard -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PersonOn:
    """A game session running now."""

    name: str
    guest: bool
    operator: bool
    address: str
    place: Place
    """Where they are in the lobby (a private table's id included)."""
    idle_seconds: float
    """Since their last key the game acted on."""


@dataclass(frozen=True, slots=True)
class TableFacts:
    """A table as the operators see it: private ones too."""

    table_id: str
    name: str
    owner: str
    private: bool
    status: TableStatus
    seats: tuple[SeatInfo, ...]
    spectators: int
    hand: int | None
    """The hand in play, from 1 (None: no game yet)."""
    opened: float
    """Unix time the table was opened (or came back after a restart)."""
    started: float | None
    """Unix time its game started (None: not started, or before a restart)."""


@dataclass(frozen=True, slots=True)
class LoadFacts:
    """The figures of the busy alarm (`server/load.py`), over its window."""

    players: int
    cpu_share: float
    """Share of one core the server used."""
    stalls: int
    """Times the event loop fell behind by over `stall_ms`."""
    longest_ms: float
    stall_ms: float
    window_seconds: float
    busy: bool


@dataclass(frozen=True, slots=True)
class BanFacts:
    """A ban in force, with all it holds (the name, its keys, its addresses)."""

    name: str
    reason: str
    since: float
    until: float | None
    """Unix time it ends (None: for good)."""
    kick: bool
    """A kick's short ban."""
    by: str
    keys: int
    addresses: int


@dataclass(frozen=True, slots=True)
class MemberFacts:
    """A name kept with its keys."""

    name: str
    created: float
    last_seen: float
    keys: tuple[KeyFacts, ...]


class ServerHealth(Protocol):
    """What the operators' dashboard shows of the server: its problems (e.g. game records
    that the disk refused), who is on, the tables, the load, the bans and the members,
    and what it changes there directly (members' keys and names)."""

    def alarms(self) -> tuple[str, ...]:
        """One line of plain words per problem; empty when all is well."""
        ...

    def people(self) -> tuple[PersonOn, ...]:
        ...

    def tables(self) -> tuple[TableFacts, ...]:
        ...

    def load(self) -> LoadFacts:
        ...

    async def bans(self) -> list[BanFacts]:
        ...

    async def members(self) -> list[MemberFacts]:
        ...

    async def remove_member_key(self, name: str, fingerprint: str) -> str:
        """Take a key from a member; what was done, in words. Raises `ValueError` with
        plain words when it cannot."""
        ...

    async def rename_member(self, old: str, new: str) -> str:
        """Give a member a new name (their keys, bans and addresses follow); what was
        done, in words. Raises `ValueError` with plain words when it cannot."""
        ...
