"""The operators' dashboard, server side: `moon_tui.services.ServerHealth`.

It gathers what the operator screen shows from the parts that know it: the game sessions
(`registry.py`), the lobby (tables, places), the load watch (`load.py`), the database
(alarms, bans, members). Only operators' apps get it (`MoonServer.make_app`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection

from moon_tui.lobby import Lobby
from moon_tui.services import (
    AccountRefusal,
    AccountRefused,
    BanFacts,
    LoadFacts,
    MemberFacts,
    PersonOn,
    RaisedAlarm,
    TableFacts,
)

from .identity import confusable_with
from .load import LoadWatch
from .members import Members
from .registry import SessionRegistry
from .store import Database


class Dashboard:
    """What the operator screen reads and changes (one for all operators)."""

    def __init__(self, db: Database, sessions: SessionRegistry, lobby: Callable[[], Lobby],
                 load: LoadWatch, operators: Collection[str]) -> None:
        self._db = db
        self._sessions = sessions
        self._lobby = lobby
        self._load = load
        self._operators = frozenset(operators)
        self._members = Members(db)

    def alarms(self) -> tuple[RaisedAlarm, ...]:
        return self._db.alarms()

    def people(self) -> tuple[PersonOn, ...]:
        lobby = self._lobby()
        now = time.monotonic()
        here = [PersonOn(s.player.name, s.player.guest, s.player.operator, s.player.address,
                         lobby.place_of(s.player.name), max(0.0, now - s.terminal.last_active))
                for s in self._sessions]
        elsewhere = [PersonOn(name, False, operator, "", lobby.place_of(name), 0.0, here=False)
                     for name, operator in lobby.elsewhere()]
        return tuple(sorted(here + elsewhere, key=lambda person: person.name))

    def tables(self) -> tuple[TableFacts, ...]:
        lobby = self._lobby()
        facts = []
        for info in lobby.tables():
            opened, started = lobby.table_times(info.table_id)
            facts.append(TableFacts(info.table_id, info.name, info.owner, info.private,
                                    info.status, info.seats, len(info.spectators),
                                    lobby.hand_of(info.table_id), opened, started))
        return tuple(facts)

    def load(self) -> LoadFacts:
        return self._load.figures()

    async def bans(self) -> list[BanFacts]:
        return await self._db.bans()

    async def members(self) -> list[MemberFacts]:
        return await self._members.all()

    async def remove_member_key(self, name: str, fingerprint: str) -> int:
        return await self._members.remove_key(name, fingerprint, keep_one=False)

    async def rename_member(self, old: str, new: str) -> None:
        if old in self._operators or new in self._operators:
            raise AccountRefused(AccountRefusal.OPERATOR)
        if confusable_with(new, self._operators) is not None:
            raise AccountRefused(AccountRefusal.LOOKS_LIKE_OPERATOR, new)
        if old in self._lobby().held_names() or old in self._sessions:
            raise AccountRefused(AccountRefusal.ONLINE, old)
        if new in self._lobby().held_names() or new in self._sessions:
            raise AccountRefused(AccountRefusal.IN_USE, new)
        await self._members.rename(old, new)
