"""Where tables run: a table host owns their journal, their record store, their computer
players' pool and their clock, and starts each table, new or taken up from its journal.

The lobby never holds a table: it asks its host to open one and keeps only the table's
link (`router.py`). A host restores only the tables its own journal kept, so a server
with several hosts (one per worker process, later) would share nothing but the links.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Coroutine
from typing import Any

from ..bots.pool import BotPool
from .clock import Clock
from .config import LobbyConfig
from .journal import SavedTable, TableGone, TableJournal
from .links import TableLink
from .messages import CreateTable, TableInfo
from .restoring import SavedTableError, read_saved, shown, unfinished_record
from .store import RecordStore
from .table import Table

log = logging.getLogger(__name__)

Spawn = Callable[[Coroutine[Any, Any, None], str], None]
"""Runs a coroutine as a task of the lobby's task group, under a name."""


class TableHost:
    """Makes and runs tables over their links."""

    def __init__(self, config: LobbyConfig, *, store: RecordStore, journal: TableJournal,
                 clock: Clock, bots: BotPool, seed: int | None) -> None:
        self.config = config
        self.store = store
        self.journal = journal
        self.clock = clock
        self.bots = bots
        self._seeds = random.Random(seed)
        self._spawn: Spawn | None = None

    def start(self, spawn: Spawn) -> None:
        self._spawn = spawn

    def _table(self, table_id: str, owner: str, create: CreateTable, code: str,
               link: TableLink) -> Table:
        return Table(table_id, owner, create, invite_code=code, config=self.config,
                     store=self.store, seed=self._seeds.getrandbits(64), link=link,
                     clock=self.clock, journal=self.journal, bots=self.bots)

    def _run(self, table: Table) -> None:
        assert self._spawn is not None, "the host has not started"
        self._spawn(table.run(), f"table {table.table_id}")

    def open(self, table_id: str, owner: str, create: CreateTable, code: str,
             link: TableLink) -> None:
        """A new table, run at once; it tells its entry through its link."""
        self._run(self._table(table_id, owner, create, code, link))

    async def saved(self) -> list[SavedTable]:
        """The tables this host's journal kept (raises if it cannot be read at all)."""
        return await self.journal.load()

    async def restore(self, saved: SavedTable, link: Callable[[str], TableLink],
                      code: Callable[[str], str]) -> TableInfo | None:
        """Take up a table its journal kept, listed at once, its places held for their
        people: its entry. `link(table_id)` makes its link; `code(wanted)` is the invite
        code it gets (its own unless taken). One that cannot be rebuilt is logged, its
        game saved as an unfinished record if it can be, and forgotten (None)."""
        table_id = saved.table_id
        try:
            restored = read_saved(saved)
            table = self._table(table_id, restored.owner, restored.create,
                                code(restored.invite_code), link(table_id))
            table.restore(restored)
        except Exception as exc:
            # The reason quotes at most a little of the row (`shown`): a row may hold
            # megabytes, or line breaks to forge log lines.
            reason = exc.reason if isinstance(exc, SavedTableError) else shown(exc)
            log.error("table %s could not be taken up after the restart and is dropped: %s",
                      shown(table_id), reason)
            await self._drop(saved)
            return None
        info = table.infos()[1]
        log.info("table %s taken up after the restart: %r, %s, %s", table_id, info.name,
                 info.rules.summary(), info.status)
        self._run(table)
        return info

    async def _drop(self, saved: SavedTable) -> None:
        """A saved table that cannot be rebuilt: its game as a record, then forgotten."""
        try:
            record = unfinished_record(saved)
            if record is not None:
                await self.store.save(record, finished=False)
            await self.journal.write([TableGone(saved.table_id)])
        except Exception:
            log.exception("table %s: could not save or forget it", shown(saved.table_id))

    async def close(self) -> None:
        """After the last table: the computers' worker processes stop."""
        await self.bots.close()
