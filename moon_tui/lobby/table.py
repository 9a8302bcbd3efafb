"""One table's shell: the async loop that feeds its core and performs the effects.

A table is a core (`core.TableState`: every decision, no I/O) inside this shell, which
does what the core asks (`effects.py`) and nothing else. Everything that happens to a
table arrives in its inbox through its link (`links.py`): a member's command, a member
attached or detached, close, and its own timers and computers' answers. Messages are
handled one at a time, so the game needs no locks. Everything it says leaves through the
same link: an event for a member, the acknowledgement of a command, its entry, its counts.

The shell owns what touches the world: the timers (`clocks.TableTimers`), the computers
thinking off the event loop (`computers.py`), the record store (`records.py`) and the
journal writer (`writing.py`: the table comes back after a restart or a crash,
`restoring.py`). Durability before telling: what the core sends, a computer it starts and
a record it stores are held until the pass's changes are in the journal.

A move: `FromMember(name, Act)` → `_step` (acknowledged) → `TableState.handle` (the
move, each member's `TableUpdate` as `Send` effects, the next `Wait` or `Think`) →
`_perform` (timers set, the rest held) → at the end of the loop's pass
`TableWriter.write` → `_tell` (what was held goes out through the link).
"""

from __future__ import annotations

import asyncio
import logging

from ..bots.pool import BotPool
from .clock import Clock
from .clocks import TableTimers
from .computers import Computers
from .config import LobbyConfig
from .core import TableState
from .effects import (
    Effect,
    EndGrace,
    Grace,
    Said,
    Send,
    StopWaiting,
    StoreRecord,
    Think,
    Wait,
)
from .internal import Acked, FromMember, TableClosed, TableMessage
from .journal import NotOwner, TableJournal
from .links import TableLink
from .messages import CreateTable, TableInfo
from .records import store_record
from .restoring import Restored
from .store import RecordStore
from .writing import TableWriter

log = logging.getLogger(__name__)

PASS_MESSAGES = 64
"""At most this many messages waiting in the inbox are handled in one pass of the loop,
then written to the journal at once (a busy table writes once per pass, not per move)."""


class Table:
    """A table actor. Start it with `run()` in a task group; reach it through its link."""

    def __init__(self, table_id: str, owner: str, create: CreateTable, *,
                 invite_code: str, config: LobbyConfig, store: RecordStore, seed: int,
                 link: TableLink, clock: Clock, journal: TableJournal,
                 bots: BotPool) -> None:
        self.table_id = table_id
        self.invite_code = invite_code
        self.core = TableState(table_id, owner, create, invite_code=invite_code,
                               config=config, seed=seed)
        self._link = link
        self._store = store
        # Its own timers and computers post through the link too: nothing reaches the
        # table any other way.
        self._timers = TableTimers(clock, link.to_table)
        self._computers = Computers(table_id, config.bot_time_budget, seed ^ 0x5EED,
                                    link.to_table, bots)
        self._writer = TableWriter(table_id, journal)
        self._inbox: asyncio.Queue[TableMessage] = asyncio.Queue()
        self._held: list[Effect] = []
        """What waits for the pass's journal write: `Send`, `Think`, `StoreRecord`."""
        self._tg: asyncio.TaskGroup | None = None

    def infos(self) -> tuple[TableInfo, TableInfo]:
        """The table's lobby entry without and with its invite code."""
        return self.core.infos()

    def restore(self, saved: Restored) -> None:
        """Take up the table as the journal kept it (before `run`)."""
        self._perform(self.core.restore(saved, self._timers.now()))
        self._writer.prime(self.core)

    def post(self, message: TableMessage) -> None:
        """Into the inbox (what the link hands over while the table runs)."""
        self._inbox.put_nowait(message)

    # -- the actor's loop ----------------------------------------------------------------
    async def run(self) -> None:
        """Handle messages until the table closes; closed for good, it saves an unfinished
        game on the way out. Each pass handles what waits in the inbox, writes the change
        to the journal, and only then lets out what it tells (`_write_and_tell`)."""
        core = self.core
        self._link.open(self.post)
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                self._perform(core.begin(self._timers.now()))
                await self._write_and_tell()
                while core.closing is None:
                    self._step(await self._inbox.get())
                    for _ in range(PASS_MESSAGES - 1):
                        if core.closing is not None or self._inbox.empty():
                            break
                        self._step(self._inbox.get_nowait())
                    await self._write_and_tell()
                self._timers.stop()
                record = core.unfinished_record() if core.for_good else None
                if record is not None:
                    await store_record(self._store, self.table_id, record, finished=False)
        except Exception as error:
            if not _moved(error):
                log.exception("table %s crashed", self.table_id)
            else:  # what this pass holds was not written: nobody may be told it
                self._held.clear()
                log.warning("table %s is run by another worker now: it stops here, "
                            "saving nothing", self.table_id)
        finally:
            self._tg = None
            self._tell()
            # The link holds `self.post`: a cycle that only the garbage collector would
            # free, and the server keeps it from looking (server/memory.py). Shut, the
            # link refuses what still comes, and the table and its game go as soon as
            # the lobby forgets it.
            self._link.shut()
            self._timers.close()
            self._computers.close()
            while not self._inbox.empty():
                self._link.to_table(self._inbox.get_nowait())
            self._link.to_lobby(TableClosed(self.table_id, self.invite_code))

    def _step(self, message: TableMessage) -> None:
        """One message: taken up (its sender's session is told at once), then decided."""
        if isinstance(message, FromMember) and message.command_id:
            self._link.to_lobby(Acked(message.command_id))
        _, effects = self.core.handle(message, self._timers.now())
        self._perform(effects)

    def _perform(self, effects: list[Effect]) -> None:
        """Set the timers now; hold what leaves the table until the journal has the pass."""
        timers = self._timers
        for effect in effects:
            if isinstance(effect, Wait):
                timers.wait(effect.seconds, effect.message)
            elif isinstance(effect, StopWaiting):
                timers.stop_waiting()
            elif isinstance(effect, Grace):
                timers.grace(effect.name, effect.seconds, effect.message)
            elif isinstance(effect, EndGrace):
                timers.end_grace(effect.name)
            elif isinstance(effect, Said):
                self._writer.said(effect.line)
            else:
                self._held.append(effect)

    async def _write_and_tell(self) -> None:
        """The pass's changes are durable (or the journal failed and said so): tell."""
        core = self.core
        if core.closing is not None and core.for_good:
            await self._writer.gone()
        else:
            # Told from the journal's answer (a pass before this task wakes), or here
            # when there was nothing to write.
            await self._writer.write(core, then=self._tell)
        self._tell()

    def _tell(self) -> None:
        """What was held goes out, in order; then the computer asked for, if its wait is
        still current, so the readers of what the pass told go first (measured with bots
        that do not pause, when they thought in a thread: a player's round trip, p99
        2 ms -> 0.1 ms)."""
        held, self._held = self._held, []
        think: Think | None = None
        for effect in held:
            if isinstance(effect, Send):
                self._link.to_lobby(effect.output)
            elif isinstance(effect, StoreRecord):
                if self._tg is not None:
                    self._tg.create_task(store_record(self._store, self.table_id,
                                                      effect.record, finished=effect.finished))
            elif isinstance(effect, Think):
                think = effect
        if think is not None and self.core.is_current(think.generation) \
                and self._tg is not None:
            self._timers.work(self._tg.create_task(self._computers.choose(
                think.generation, think.seat, think.level, think.view, think.stand_in)))


def _moved(error: BaseException) -> bool:
    """The table stopped because another worker owns it now (`NotOwner`, raised in the
    table's task group: alone, or in a group)."""
    if isinstance(error, BaseExceptionGroup):
        return error.subgroup(NotOwner) is not None
    return isinstance(error, NotOwner)
