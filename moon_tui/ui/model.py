"""What one player was told, built only from the events their `PlayerHandle` delivered.

The interface keeps no game state of its own: the latest `LobbyUpdate`, the latest
`TableUpdate` of each table the player sits at or watches, and the chat lines.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ..lobby.messages import (
    ChatLine,
    ChatPosted,
    Event,
    GameFinished,
    LobbyUpdate,
    Notice,
    Rejected,
    TableInfo,
    TableLeft,
    TableUpdate,
)
from ..lobby.notices import Tell
from ..lobby.refusals import Refusal
from ..rules.illegal import Param

CHAT_KEPT = 200
"""Lines of each chat (the lobby's, each table's) the model keeps while the session lasts,
and the chat panes show: the lobby sends the last `lobby.chat.CHAT_KEPT` of a room to
who arrives, and the session adds each new line to them."""


@dataclass
class Model:
    """The player's picture of the lobby and its tables; updated by `apply`."""

    name: str
    lobby: LobbyUpdate | None = None
    tables: dict[str, TableUpdate] = field(default_factory=dict)
    finished: dict[str, GameFinished] = field(default_factory=dict)
    lobby_chat: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=CHAT_KEPT))
    table_chat: dict[str, deque[ChatLine]] = field(default_factory=dict)
    invitation: Mapping[str, Param] | None = None
    """The latest invitation to a table (by, table, table_id, code), until used."""
    invitations_on: bool = True
    """Whether others may invite this player (the lobby says so when it changes)."""
    tables_refused: tuple[Rejected, float] | None = None
    """The lobby's last refusal of a new table for the hourly limit, and when it came
    (`time.monotonic()`): see `table_refusal`."""

    def apply(self, event: Event) -> bool:
        """Take `event` in; False for a chat line already kept (a table tells its recent
        lines again to a member who comes back)."""
        if isinstance(event, LobbyUpdate):
            self.lobby = event
        elif isinstance(event, TableUpdate):
            self.tables[event.table.table_id] = event
            if event.view is not None and event.view.outcome is None:
                self.finished.pop(event.table.table_id, None)
        elif isinstance(event, TableLeft):
            self.tables.pop(event.table_id, None)
            self.table_chat.pop(event.table_id, None)
            self.finished.pop(event.table_id, None)
        elif isinstance(event, ChatPosted):
            line = event.line
            kept = self.lobby_chat if line.table_id is None else \
                self.table_chat.setdefault(line.table_id, deque(maxlen=CHAT_KEPT))
            if line in kept:
                return False
            kept.append(line)
        elif isinstance(event, GameFinished):
            self.finished[event.table_id] = event
        elif isinstance(event, Notice) and event.code is Tell.INVITED:
            self.invitation = event.params
        elif isinstance(event, Notice) and event.code is Tell.INVITATIONS:
            self.invitations_on = bool(event.params.get("on"))
        return True

    def take_invitation(self) -> Mapping[str, Param] | None:
        """The latest invitation, once: accepting it uses it up."""
        invitation, self.invitation = self.invitation, None
        return invitation

    def note_refusal(self, event: Rejected, now: float) -> None:
        """Keep a refusal of the hourly table limit (`now`: `time.monotonic()`)."""
        if event.code is Refusal.TOO_MANY_TABLES:
            self.tables_refused = (event, now)

    def table_refusal(self, now: float) -> Rejected | None:
        """The hourly limit's refusal of a new table, its minutes counted from `now`, for
        as long as the lobby is sure to refuse again: the form is then not built for
        nothing (a guest cycling tables had the server build ~100 ms of form at every
        refused try). The lobby rounds its wait up to whole minutes, so that is until one
        minute before the end of the minutes it said: never longer than the lobby's own."""
        if self.tables_refused is None:
            return None
        event, at = self.tables_refused
        minutes = event.params.get("minutes")
        if not isinstance(minutes, int) or isinstance(minutes, bool):
            return None
        left = at + minutes * 60 - now
        if left <= 60:
            return None
        return replace(event, params={**event.params, "minutes": math.ceil(left / 60)})


    @property
    def operators(self) -> tuple[str, ...]:
        """The server's operators (marked wherever a name shows)."""
        return () if self.lobby is None else self.lobby.operators

    def chat_of(self, table_id: str | None) -> tuple[ChatLine, ...]:
        if table_id is None:
            return tuple(self.lobby_chat)
        return tuple(self.table_chat.get(table_id, ()))

    def table(self, table_id: str) -> TableInfo | None:
        """A table as last seen, from the table's own update or else the lobby list."""
        update = self.tables.get(table_id)
        if update is not None:
            return update.table
        if self.lobby is not None:
            for info in self.lobby.tables:
                if info.table_id == table_id:
                    return info
        return None
