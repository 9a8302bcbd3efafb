"""The lobby's `ClubKeeper` over the database: what operators and players decide lasts.

Kicks and unbans go to `bans.py`; the notice board and the operators' message of the day
are settings rows; who turned invitations off is a column of their account (a guest's
choice lasts only their visit: the lobby holds it). `load()` reads it all back at start.
"""

from __future__ import annotations

import json
import logging

from moon_tui.lobby.club import ClubState
from moon_tui.lobby.messages import BoardNote

from .bans import Bans
from .identity import GUEST_PREFIX
from .members import Members
from .store import Database

log = logging.getLogger(__name__)

BOARD = "board"
MOTD = "motd"


class ServerClub:
    """`moon_tui.lobby.club.ClubKeeper` for the server."""

    def __init__(self, db: Database, bans: Bans) -> None:
        self._db = db
        self._bans = bans
        self._members = Members(db)
        self.motd: str | None = None
        """The operators' message of the day (None: the configured one), as last kept."""

    async def load(self) -> ClubState:
        """What was kept before this start. A row that cannot be read is logged and left
        out (the club starts without it)."""
        self.motd = await self._db.setting(MOTD)
        board: BoardNote | None = None
        text = await self._db.setting(BOARD)
        if text is not None:
            try:
                kept = json.loads(text)
                board = BoardNote(str(kept["text"]), str(kept["by"]), float(kept["at"]),
                                  None if kept["until"] is None else float(kept["until"]))
            except (ValueError, KeyError, TypeError):
                log.error("the notice board kept in the database cannot be read: dropped")

        def names_off() -> frozenset[str]:
            rows = self._db.connection().execute(
                "SELECT name FROM accounts WHERE invitations = 0").fetchall()
            return frozenset(str(row[0]) for row in rows)

        off = await self._db.run(names_off)
        return ClubState(board=board, motd=self.motd, invitations_off=off)

    async def kick(self, name: str, reason: str, minutes: float, by: str) -> None:
        await self._bans.kick(name, reason, minutes, by)

    async def unban(self, name: str) -> bool:
        return await self._bans.unban(name)

    async def keep_notices(self, board: BoardNote | None, motd: str | None) -> None:
        self.motd = motd
        await self._db.set_setting(MOTD, motd)
        await self._db.set_setting(BOARD, None if board is None else json.dumps(
            {"text": board.text, "by": board.by, "at": board.at, "until": board.until}))

    async def keep_invitations(self, name: str, on: bool) -> None:
        if not name.startswith(GUEST_PREFIX):
            await self._members.set_invitations(name, on)
