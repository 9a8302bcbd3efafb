"""Messages between the lobby actor, its tables and the sessions' handles.

These never leave the process's actors; the public language is `messages.py`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..rules import Action
from .messages import Command, TableInfo

if TYPE_CHECKING:
    from .session import PlayerHandle


# --- to the lobby -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FromSession:
    handle: PlayerHandle
    command: Command


@dataclass(frozen=True, slots=True)
class SessionClosed:
    """The session ended (the player left, or it was dropped for being too slow)."""

    handle: PlayerHandle


@dataclass(frozen=True, slots=True)
class Connect:
    name: str
    operator: bool
    reply: asyncio.Future[PlayerHandle]


@dataclass(frozen=True, slots=True)
class ServerBroadcast:
    text: str
    reply: asyncio.Future[None]


@dataclass(frozen=True, slots=True)
class ServerKick:
    name: str
    reason: str
    reply: asyncio.Future[None]


@dataclass(frozen=True, slots=True)
class Shutdown:
    pass


@dataclass(frozen=True, slots=True)
class TableChanged:
    """A table's lobby entry changed (seats, status, spectators...)."""

    info: TableInfo


@dataclass(frozen=True, slots=True)
class TableClosed:
    table_id: str
    invite_code: str


LobbyMessage = (FromSession | SessionClosed | Connect | ServerBroadcast | ServerKick | Shutdown
                | TableChanged | TableClosed)


# --- to a table ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FromPlayer:
    """A player's command, routed by the lobby; `by_code`: they gave the invite code."""

    handle: PlayerHandle
    command: Command
    by_code: bool = False


@dataclass(frozen=True, slots=True)
class Attach:
    """A new session of `handle.name` (a reconnection, or a takeover)."""

    handle: PlayerHandle


@dataclass(frozen=True, slots=True)
class Detach:
    """The session of a player ended: keep the seat for the grace period."""

    handle: PlayerHandle


@dataclass(frozen=True, slots=True)
class CloseNow:
    reason: str


@dataclass(frozen=True, slots=True)
class BotMoved:
    """A computer chose `action` for `seat`; ignored unless `generation` is still current."""

    generation: int
    seat: int
    action: Action
    stand_in: bool


@dataclass(frozen=True, slots=True)
class TimerRanOut:
    generation: int
    seat: int


@dataclass(frozen=True, slots=True)
class DealNow:
    generation: int


@dataclass(frozen=True, slots=True)
class GraceOver:
    name: str
    away_since: float


TableMessage = (FromPlayer | Attach | Detach | CloseNow | BotMoved | TimerRanOut | DealNow
                | GraceOver)
