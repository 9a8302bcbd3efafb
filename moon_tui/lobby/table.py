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
a record it stores are held until the pass's changes are in the journal. A journal that
refuses the pass (a full disk) pauses the table: its members are told it waits, it tells
nothing more and takes up no message (but a close) until a write works again, trying
every `RETRY_FIRST_SECONDS`, twice as long each time up to `RETRY_MAX_SECONDS`; then what
it held goes out and the turn to play starts afresh (`TableState.resume`).

A move: `FromMember(name, Act)` → `_step` (acknowledged) → `TableState.handle` (the
move, each member's `TableUpdate` as `Send` effects, the next `Wait` or `Think`) →
`_perform` (timers set, the rest held) → at the end of the loop's pass
`TableWriter.write` → `_tell` (what was held goes out through the link).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

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
    Prove,
    Said,
    Send,
    StopWaiting,
    StoreRecord,
    Think,
    Wait,
)
from .internal import (
    Acked,
    Attach,
    CloseNow,
    FromMember,
    TableClosed,
    TableMessage,
    ToMember,
)
from .journal import NotOwner, TableJournal
from .links import TableLink
from .messages import CreateTable, Notice, NoticeLevel, TableInfo, TableLeft
from .notices import Tell
from .records import store_record
from .restoring import Restored
from .store import RecordStore
from .writing import TableWriter

log = logging.getLogger(__name__)

PASS_MESSAGES = 64
"""At most this many messages waiting in the inbox are handled in one pass of the loop,
then written to the journal at once (a busy table writes once per pass, not per move)."""
RETRY_FIRST_SECONDS = 0.1
RETRY_MAX_SECONDS = 2.0
"""A table whose journal refuses its writes tries again after `RETRY_FIRST_SECONDS`, then
twice as long each time, up to this: it goes on at most this long after the disk frees
(one write a table every 2 s costs nothing while it waits)."""


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
        self._deferred: deque[TableMessage] = deque()
        """Messages that came while the table waited for its journal, taken up first."""
        self._held: list[Effect] = []
        """What waits for the pass's journal write: `Send`, `Think`, `Prove`,
        `StoreRecord`."""
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
                    self._step(await self._next())
                    for _ in range(PASS_MESSAGES - 1):
                        if core.closing is not None or not self._waiting():
                            break
                        self._step(self._next_now())
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
            while self._waiting():
                self._link.to_table(self._next_now())
            self._link.to_lobby(TableClosed(self.table_id, self.invite_code))

    def _waiting(self) -> bool:
        return bool(self._deferred) or not self._inbox.empty()

    async def _next(self) -> TableMessage:
        """The next message: those deferred while the table waited for its journal first."""
        if self._deferred:
            return self._deferred.popleft()
        return await self._inbox.get()

    def _next_now(self) -> TableMessage:
        """The next message, when one is waiting (`_waiting`)."""
        if self._deferred:
            return self._deferred.popleft()
        return self._inbox.get_nowait()

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
        """The pass's changes are durable: tell. While the journal refuses them the table
        waits (`_wait_for_journal`), and a table closing meanwhile tells only that."""
        core = self.core
        delay = RETRY_FIRST_SECONDS
        paused = False
        while not await self._write():
            if core.closing is not None:
                self._untold_unwritten()
                break
            if not paused:
                paused = True
                self._tell_members(core.publisher.members(), Tell.CANNOT_SAVE, "error")
            await self._wait_for_journal(delay)
            delay = min(delay * 2, RETRY_MAX_SECONDS)
        else:
            if paused:
                self._perform(core.resume(self._timers.now()))
                self._tell_members(core.publisher.members(), Tell.SAVING_AGAIN, "info")
        self._tell()

    async def _write(self) -> bool:
        """Write the pass; True once the journal has it. Told from the journal's answer
        (a pass before this task wakes), or by `_tell` when there was nothing to write."""
        core = self.core
        if core.closing is not None and core.for_good:
            return await self._writer.gone()
        return await self._writer.write(core, then=self._tell)

    async def _wait_for_journal(self, seconds: float) -> None:
        """Wait `seconds` before writing again, taking up no decision: messages are kept
        for later, in order, but a close, which ends the wait. Whoever comes back is
        told why the table waits."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while (left := deadline - loop.time()) > 0:
            try:
                async with asyncio.timeout(left):
                    message = await self._inbox.get()
            except TimeoutError:
                return
            if isinstance(message, CloseNow):
                self._step(message)
                return
            if isinstance(message, Attach):
                self._tell_members([message.name], Tell.CANNOT_SAVE, "error")
            self._deferred.append(message)

    def _tell_members(self, names: list[str], code: Tell, level: NoticeLevel) -> None:
        """A notice about the journal, sent at once: it tells of no decision."""
        for name in names:
            self._link.to_lobby(ToMember(name, Notice(code, {"table_id": self.table_id},
                                                      level)))

    def _untold_unwritten(self) -> None:
        """The table closes before its journal took what it held: only the news that it
        closed goes out (and a finished game's record, if it closes for good); what was
        not written is never told, so a restart finds the table as its players saw it."""
        for_good = self.core.for_good
        self._held = [effect for effect in self._held
                      if (isinstance(effect, Send) and isinstance(effect.output, ToMember)
                          and isinstance(effect.output.event, TableLeft))
                      or (for_good and isinstance(effect, StoreRecord))]

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
            elif isinstance(effect, Prove):
                if self._tg is not None:
                    self._tg.create_task(self._computers.prove(effect.generation, effect.proof))
        if think is not None and self.core.is_current(think.generation) \
                and self._tg is not None:
            self._timers.work(self._tg.create_task(self._computers.choose(
                think.generation, think.seat, think.level, think.view, think.stand_in)))
        self._link.told()


def _moved(error: BaseException) -> bool:
    """The table stopped because another worker owns it now (`NotOwner`, raised in the
    table's task group: alone, or in a group)."""
    if isinstance(error, BaseExceptionGroup):
        return error.subgroup(NotOwner) is not None
    return isinstance(error, NotOwner)
