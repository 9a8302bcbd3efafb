"""The lobby actor: who is online, which tables exist, lobby chat, operators.

It is the directory of people and tables (`internal.Directory`) and is reached only
through its inbox. It does not relay moves: a handle sends a table command straight to
the table's inbox, and the table answers its members directly. The lobby handles what is
not one table's business: connecting, creating tables, invite codes, chat limits, the
list of tables everyone sees, operators. Every task (the lobby's loop, each table, each
table's thinking computers) lives in a task group, so leaving `async with Lobby()` ends
them all after each table has stopped.

The tables write themselves to a `TableJournal` (`journal.py`) as they go; entering
`async with Lobby()` takes up every table the journal kept (`restoring.py`), so a table
survives a restart, and a crash too, as it was at its last decision anyone was told of.
Leaving it stops the tables without forgetting them, to come back with the next lobby.

A lobby may be one worker's of a club spread over several processes (`peers.py`): it
runs the tables opened here and lists, besides, the tables the other workers run, who is
connected to them, and the lobby chat posted there, as they share it (`from_peers`); an
operator's broadcast, kick or ban and an invitation reach the people of every worker.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from collections.abc import Set as AbstractSet
from types import TracebackType
from typing import Any

from ..bots.pool import BotPool
from ..shown import shown
from . import links
from .chat import CHAT_KEPT, ChatLimiter, RateLimit, clean_text
from .clock import Clock, LoopClock
from .club import ClubKeeper, ClubState
from .config import LobbyConfig
from .handle import LobbyClosed, PlayerHandle
from .host import TableHost
from .internal import (
    BusBack,
    CloseNow,
    ClubShare,
    Connect,
    FromHandle,
    FromPeers,
    HandDealt,
    HandleClosed,
    LobbyMessage,
    PeerBroadcast,
    PeerChat,
    PeerInvitations,
    PeerInvite,
    PeerKick,
    PeerNews,
    PeerNotices,
    ServerKick,
    ServerRestartNews,
    ServerStopping,
    Shutdown,
    Spent,
    TableChanged,
    TableClosed,
    TakenElsewhere,
)
from .journal import LOBBY_ROOM, ChatRow, MemoryJournal, SavedTable, TableJournal
from .links import TableLink
from .listing import Listing
from .messages import (
    CODE_ALPHABET,
    CODE_LENGTH,
    OPERATOR_COMMANDS,
    Ban,
    BoardNote,
    Broadcast,
    CancelRestart,
    ChatLine,
    ChatPosted,
    ClearBoard,
    Command,
    CreateTable,
    Invitations,
    Invite,
    JoinByCode,
    Kick,
    LobbyUpdate,
    Notice,
    OperatorCommand,
    Place,
    Rejected,
    Restart,
    RestartNotice,
    SendChat,
    SetMotd,
    TableInfo,
    Unban,
)
from .new_tables import checked_table
from .notices import Ending, Leave, Tell
from .operators import checked
from .peers import Peers, SharedRates
from .refusals import ECHO_MAX, Refusal, Refused, echoed
from .restoring import SavedTableError, new_table_id, saved_chat
from .router import Router
from .shares import read_shares
from .stats import LobbyStats
from .store import MemoryRecordStore, RecordStore
from .writing import chat_row

log = logging.getLogger(__name__)

TABLE_IDS = random.SystemRandom()
"""Where table ids come from: never a seeded generator (two lobbies started with the same
seed, in tests, must not give the same ids), nor the invite codes' (their sequence stays
as it was for a given seed)."""

CODE_GUESSES = 10
"""Wrong invite codes a player may try per minute (32**6 codes: guessing stays hopeless)."""
CODES_WINDOW = 60.0
"""`CODE_GUESSES` counts the codes a person typed in this many seconds."""
UPDATE_SLICE = 0.025
"""About this many seconds between two slices of lobby updates (see `Lobby._to_tell`)."""
DEFAULT_CONFIG = LobbyConfig()
INVITES_PER_MINUTE = 10
"""Invitations one player may send a minute (each is a notice on someone's screen)."""


class Lobby:
    """The lobby. Use as `async with Lobby(config, store) as lobby:`."""

    def __init__(self, config: LobbyConfig = DEFAULT_CONFIG, store: RecordStore | None = None,
                 *, seed: int | None = None,
                 on_ban: Callable[[str, str], Awaitable[None]] | None = None,
                 on_restart: Callable[[Restart | CancelRestart, str], Refused | None]
                 | None = None,
                 restart_news: Callable[[], RestartNotice | None] | None = None,
                 clock: Clock | None = None, journal: TableJournal | None = None,
                 keeper: ClubKeeper | None = None, kept: ClubState | None = None,
                 link: links.LinkFactory | None = None, peers: Peers | None = None,
                 rates: SharedRates | None = None) -> None:
        """`on_ban(name, reason)` makes an operator's ban last; `on_restart(command,
        operator)` hands an operator's restart (or its cancelling) to whoever owns the
        countdown (the server), and returns why not, if it will not; `restart_news()` is
        the countdown as it stands now, told to whoever connects while it runs.
        `journal` is where the tables write themselves down. Without one they write to a
        `MemoryJournal` and last as long as the process: stopping the lobby then closes
        them for good, each saving its unfinished game as a record, as nothing would
        bring them back. `keeper` makes kicks, unbans, the notice board and players'
        settings last (`club.py`); `kept` is what it kept from before. `link` makes each
        table's link (`links.py`): in process unless told (`links.default_link`).
        `peers` are the club's other workers (`peers.py`); None: the lobby is the club.
        `rates` count the lobby's rate limits over the club (None: here)."""
        self.config = config
        self.journal: TableJournal = journal if journal is not None else MemoryJournal()
        self._tables_outlive_it = journal is not None
        """Stopping the lobby only stops its tables (they come back on the journal)."""
        self.clock: Clock = clock if clock is not None else LoopClock()
        """The tables' time (their turn timers, grace periods, pauses)."""
        self.store: RecordStore = store if store is not None else MemoryRecordStore()
        self.stats = LobbyStats()
        self.bots = BotPool(config.bot_workers)
        """Where every table's computers think: worker processes, started at the first
        decision that needs one (an expert's), stopped after the last table."""
        self.host = TableHost(config, store=self.store, journal=self.journal,
                              clock=self.clock, bots=self.bots, seed=seed)
        """Where the tables run: the lobby holds none of them, only their links."""
        self._codes_rng: random.Random = random.Random(seed) if seed is not None \
            else random.SystemRandom()
        self._on_ban = on_ban
        self._keeper = keeper
        kept = kept if kept is not None else ClubState()
        self._board: BoardNote | None = kept.board
        """The operators' note on the lobby's notice board."""
        self._motd: str | None = kept.motd
        """The operators' message of the day (None: the configured one)."""
        self._invitations_off: set[str] = set(kept.invitations_off)
        self._invites = RateLimit(INVITES_PER_MINUTE, 60.0)
        self._opened_at: dict[str, float] = {}
        """Unix time each table was opened (or taken up after a restart)."""
        self._started_at: dict[str, float] = {}
        self._hands: dict[str, int] = {}
        """The hand each table plays (0-based), as it says (`HandDealt`)."""
        """Unix time each table's game started, as the lobby saw it."""
        self._on_restart = on_restart
        self._restart_news = restart_news
        self._inbox: asyncio.Queue[LobbyMessage] = asyncio.Queue()
        self._router = Router(link if link is not None else links.default_link, self._post,
                              self.stats)
        self._players = self._router.players
        """Who is connected: each name's current handle."""
        self._codes: dict[str, str] = {}
        """Invite codes: the id of each code's table."""
        self._chat = ChatLimiter(config.chat_max_chars, config.chat_lines_per_10s)
        self._chat_kept: deque[ChatPosted] = deque(maxlen=CHAT_KEPT)
        self._wrong_codes = RateLimit(CODE_GUESSES, CODES_WINDOW)
        self._tables_opened = RateLimit(config.tables_per_hour, 3600.0)
        """Tables each person opened within the hour (`PlayerHandle.person`), unless the
        club counts them (`rates`)."""
        self._tables_lately = RateLimit(config.tables_per_10_minutes, 600.0)
        """The same within 10 minutes."""
        self._rates = rates
        self._tg: asyncio.TaskGroup | None = None
        self._main: asyncio.Task[None] | None = None
        self._running = False
        self._closing = False
        self._dirty = False
        """A table changed: publish after `lobby_update_interval`."""
        self._presence_dirty = False
        """Only who is online changed: a presence round is due `_presence_gap()` after the
        last round began."""
        self._published_at = 0.0
        """When everyone was last owed an update."""
        self._to_tell: dict[str, None] = {}
        """Players owed the latest LobbyUpdate, oldest debt first (an ordered set). A few
        are told every `UPDATE_SLICE` seconds, so a hundred lobbies do not all redraw
        at one moment (that stalled the server ~0.3 s, measured); each gets the state as
        it is when its turn comes."""
        self._urgent = False
        """A table change is owed: told at `lobby_redraws_per_second`, else at the
        slower `presence_redraws_per_second`."""
        self._next_slice_at = 0.0
        self._listing = Listing()
        self._places: tuple[Place, ...] = ()
        self._operators: tuple[str, ...] = ()
        """The operators, online or not: sent with `_places` (same key)."""
        self._places_key: tuple[object, ...] = ()
        self._peers = peers
        self._taken_up: set[str] = set()
        """Tables taken over since the lobby started, whose people here are not attached
        yet (at their first entry: the table runs by then)."""
        self._elsewhere: tuple[str, ...] = ()
        """Who is connected to the club's other workers (and not here)."""
        self._operators_elsewhere: frozenset[str] = frozenset()
        self._codes_elsewhere: dict[str, str] = {}
        """The invite codes of the tables other workers run: each code's table id."""
        self._runners: dict[str, str] = {}
        """The process that runs each table of another worker ("": none, for the moment:
        `ClubShare.runner`)."""

    # -- the lifetime ----------------------------------------------------------------------
    async def __aenter__(self) -> Lobby:
        """Start the lobby: one supervising task whose task group holds every other task.

        The supervisor does not depend on the caller's task, so `__aenter__` and
        `__aexit__` may be awaited from different tasks (a server's start and stop).

        Every table the journal kept is taken up first, listed before anyone can connect.
        A journal that cannot be read at all raises: better no lobby than one writing new
        tables over those it could not read."""
        if self._main is not None:
            raise RuntimeError("a lobby runs once")
        saved = await self.host.saved()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._main = asyncio.create_task(self._supervise(ready), name="lobby")
        await ready
        self.host.start(self._spawn)
        for table in saved:
            await self._restore(table)
        self._chat_kept.extend(saved_chat(await self.journal.lobby_chat(), None))
        self._running = True
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        """Stop every table (each keeps its game in the journal, to go on when a lobby
        next starts on it; without a journal, each saves its unfinished game), end every
        handle, and wait for every task. Cancelling this wait cancels the lobby outright."""
        main = self._main
        assert main is not None, "the lobby was never started"
        if not main.done():
            self._inbox.put_nowait(Shutdown())
        try:
            await main
        finally:
            self._running = False

    async def _supervise(self, ready: asyncio.Future[None]) -> None:
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                ready.set_result(None)
                await self._run()
        finally:
            self._tg = None
            await self.host.close()  # after the tables: none thinks any more

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str | None = None) -> None:
        assert self._tg is not None
        self._tg.create_task(coro, name=name)

    def _post(self, message: LobbyMessage) -> None:
        self._inbox.put_nowait(message)

    # -- the public API ------------------------------------------------------------------
    async def connect(self, name: str, *, operator: bool = False,
                      person: str | None = None) -> PlayerHandle:
        """A handle for `name`; a second connect with the same name takes over. `person`
        is whom the per-person limits (`tables_per_hour`) count it against: the name
        unless told (a guest's name is new at each visit: the server gives its address)."""
        if not self._running or self._closing:
            raise LobbyClosed("the lobby is not running")
        reply: asyncio.Future[PlayerHandle] = asyncio.get_running_loop().create_future()
        self._post(Connect(name, operator, reply, name if person is None else person))
        return await reply

    def online(self) -> tuple[str, ...]:
        """Who is connected, here or to the club's other workers."""
        if not self._elsewhere:
            return tuple(sorted(self._players))
        return tuple(sorted(self._players.keys() | set(self._elsewhere)))

    def elsewhere(self) -> tuple[tuple[str, bool], ...]:
        """Who is connected to the club's other workers (not here), each with whether
        they are an operator."""
        return tuple((name, name in self._operators_elsewhere) for name in self._elsewhere
                     if name not in self._players)

    def serves(self, name: str) -> bool:
        """`name` is connected to this lobby (not to another worker of the club)."""
        return name in self._players

    def shared(self) -> ClubShare:
        """What this worker shows the club's other workers: the tables run here (their
        full entries), who is connected here, and which of them are operators."""
        runs = self._router.links
        return ClubShare(tuple(t for t in self._listing.tables() if t.table_id in runs),
                         tuple(sorted(self._players)),
                         tuple(sorted(n for n, h in self._players.items() if h.operator)))

    def from_peers(self, message: FromPeers | PeerChat | TakenElsewhere | BusBack
                   | PeerNews) -> None:
        """What the club's other workers share now, a chat line posted on one, a person
        here who connected to one, or news from one (the server's side reads them off
        its bus, decoded and checked)."""
        if self._running and not self._closing:
            self._post(message)

    @property
    def motd(self) -> str:
        """The message of the day as it is now: the operators' or the configured one."""
        return self.config.motd if self._motd is None else self._motd

    def place_of(self, name: str) -> Place:
        """Where `name` is, a private table's id included (for the operators)."""
        return self._listing.place_of(name, reveal=True)

    def table_times(self, table_id: str) -> tuple[float, float | None]:
        """When the table was opened and when its game started (Unix time; None: not
        started, or started before the server's last restart)."""
        return self._opened_at.get(table_id, 0.0), self._started_at.get(table_id)

    def hand_of(self, table_id: str) -> int | None:
        """The hand a table plays, from 1 (None: no game). Read from the table's game
        (an operator's dashboard: the lobby entry does not carry it)."""
        hand = self._hands.get(table_id)
        return None if hand is None else hand + 1

    async def announce_stop(self, *, restart: bool) -> None:
        """Tell everyone online that the server stops now (and starts again, if `restart`):
        their tables wait for them."""
        if not self._running:
            return
        reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._post(ServerStopping(restart, reply))
        await reply

    async def kick(self, name: str, reason: str) -> None:
        """End `name`'s handle (their seats are kept for the grace period)."""
        if not self._running:
            return
        reply: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._post(ServerKick(name, reason, reply))
        await reply

    def announce_restart(self, seconds: int | None, message: str = "", by: str = "") -> None:
        """Tell everyone online the server restarts in `seconds` (None: called off). The
        caller counts down; this only carries the news (a `RestartNotice`)."""
        if self._running and not self._closing:
            self._post(ServerRestartNews(RestartNotice(seconds, clean_text(message), by)))

    def tables(self) -> tuple[TableInfo, ...]:
        """Every table's latest lobby entry (for the server's status and for tests)."""
        return self._listing.tables()

    def has_place(self, name: str) -> bool:
        """A table holds a place for `name`: seated (away or not), owning or watching one
        (a table that came back after a restart included)."""
        return self._listing.holds(name)

    def held_names(self) -> frozenset[str]:
        """Names the lobby holds: a session, or a place at a table (a seat kept during the
        reconnect grace included). Whoever logs in under one of them lands in it."""
        return self._listing.names().union(self._players)

    # -- the actor's loop ----------------------------------------------------------------
    def _publish_due(self) -> float | None:
        """When the lobby next has updates to send (monotonic time), None if it has none."""
        due: list[float] = []
        board = self._board
        if board is not None and board.until is not None:
            due.append(time.monotonic() + board.until - time.time())
        if self._dirty:
            due.append(self._published_at + self.config.lobby_update_interval)
        if self._to_tell:
            due.append(self._next_slice_at)
        elif self._presence_dirty:
            due.append(self._published_at + self._presence_gap())
        return min(due, default=None)

    def _publish_what_is_due(self) -> None:
        board = self._board
        if board is not None and board.until is not None and board.until <= time.time():
            self._board = None  # its time is up: everyone's board is cleared
            self._dirty = True
        now = time.monotonic()
        due = self._publish_due()
        if due is None or now < due:
            return
        if self._dirty and now >= self._published_at + self.config.lobby_update_interval:
            self._dirty = self._presence_dirty = False
            self._owe_everyone(urgent=True)
        elif self._presence_dirty and not self._to_tell:
            self._presence_dirty = False
            self._owe_everyone(urgent=False)
        if now >= self._next_slice_at:
            self._tell_some()

    def _presence_gap(self) -> float:
        config = self.config
        return max(config.presence_update_interval,
                   len(self._players) / max(1, config.presence_redraws_per_second))

    async def _run(self) -> None:
        inbox = self._inbox
        while True:
            due = self._publish_due()
            wait = None if due is None else max(0.0, due - time.monotonic())
            try:
                async with asyncio.timeout(wait):
                    message = await inbox.get()
            except TimeoutError:
                pass
            else:
                self._handle_safely(message)
                while not inbox.empty():
                    self._handle_safely(inbox.get_nowait())
            if self._closing and not self._router.links:
                break
            self._publish_what_is_due()
        for handle in self._players.values():
            handle.end(Ending.SHUTDOWN)
        self._players.clear()
        while not inbox.empty():
            message = inbox.get_nowait()
            if isinstance(message, Connect | ServerStopping | ServerKick) \
                    and not message.reply.done():
                message.reply.set_exception(LobbyClosed("the lobby has shut down"))

    def _handle_safely(self, message: LobbyMessage) -> None:
        try:
            self._handle(message)
        except Exception as exc:
            log.exception("the lobby failed on %r", message)
            if isinstance(message, FromHandle):
                message.handle.deliver(Rejected.because(message.command,
                                                        Refused(Refusal.LOBBY_FAILED)))
            elif isinstance(message, Connect | ServerStopping | ServerKick) \
                    and not message.reply.done():
                message.reply.set_exception(exc)

    def _handle(self, message: LobbyMessage) -> None:
        if isinstance(message, FromHandle):
            handle = message.handle
            handle.taken_up()
            if self._players.get(handle.name) is handle:
                self._command(handle, message.command)
        elif isinstance(message, TableChanged):
            table_id = message.info.table_id
            if table_id in self._router.links:
                self._listing.update(message.info)
                self._dirty = True
                if table_id in self._taken_up:  # it runs now: its people here rejoin it
                    self._taken_up.discard(table_id)
                    self._attach_here({table_id})
                if message.info.status == "playing":
                    self._started_at.setdefault(table_id, time.time())
                else:
                    self._started_at.pop(table_id, None)
        elif isinstance(message, TableClosed):
            self._router.forget(message.table_id)
            self._listing.remove(message.table_id)
            self._opened_at.pop(message.table_id, None)
            self._started_at.pop(message.table_id, None)
            self._hands.pop(message.table_id, None)
            self._codes.pop(message.invite_code, None)
            self._dirty = True
        elif isinstance(message, HandDealt):
            if message.table_id in self._router.links:
                self._hands[message.table_id] = message.hand
        elif isinstance(message, HandleClosed):
            self._handle_gone(message.handle)
        elif isinstance(message, Spent):
            handle, command = message.handle, message.command
            if self._players.get(handle.name) is handle:
                def reject(refused: Refused) -> None:
                    handle.deliver(Rejected.because(command, refused))

                if isinstance(command, CreateTable):
                    self._create_table(handle, command, reject, message)
                elif isinstance(command, JoinByCode):
                    self._join_by_code(handle, command, reject, message)
        elif isinstance(message, FromPeers):
            self._take_shares(message.shares)
        elif isinstance(message, BusBack):
            for name in message.names:
                if name in self._players:
                    self._router.attach_again(name, self._listing.tables_of(name))
        elif isinstance(message, TakenElsewhere):
            old = self._players.pop(message.name, None)
            if old is not None:
                old.end(Ending.TAKEN_OVER)
                self._presence_dirty = True
        elif isinstance(message, PeerChat):
            self._chat_kept.append(message.posted)
            for handle in list(self._players.values()):
                handle.deliver(message.posted)
        elif isinstance(message, PeerNews):
            self._peer_news(message)
        elif isinstance(message, Connect):
            self._connect(message)
        elif isinstance(message, ServerStopping):
            told = Notice(Tell.SERVER_STOPPING, {"restart": int(message.restart)}, "warning")
            for handle in list(self._players.values()):
                handle.deliver(told)
            message.reply.set_result(None)
        elif isinstance(message, ServerKick):
            self._kick(message.name, Ending.KICKED, "", message.reason)
            message.reply.set_result(None)
        elif isinstance(message, ServerRestartNews):
            for handle in list(self._players.values()):
                handle.deliver(message.notice)
        elif isinstance(message, Shutdown):
            self._closing = True
            stopping = Leave.SERVER_STOPPING if self._tables_outlive_it \
                else Leave.SERVER_STOPPED
            self._router.tell(list(self._router.links),
                              CloseNow(stopping, for_good=not self._tables_outlive_it))

    def _take_shares(self, shares: tuple[ClubShare, ...]) -> None:
        """The other workers' tables listed, those gone unlisted; who is connected there."""
        assert self._peers is not None, "a lobby alone has no peers"
        read = read_shares(shares, self._router.links, self._runners)
        self._runners = read.runners
        listed = {t.table_id: t for t in self._listing.tables()}
        version = self._listing.version
        for table_id in listed.keys() - self._router.links.keys() - read.theirs.keys():
            self._listing.remove(table_id)
        newcomers: dict[str, set[str]] = {}
        for table_id, info in read.theirs.items():
            if listed.get(table_id) != info:
                for name in self._listing.update(info):
                    newcomers.setdefault(name, set()).add(table_id)
        self._dirty = self._dirty or self._listing.version != version
        attached = self._router.sync_remote(read.theirs, self._peers.remote_link) | read.moved
        self._attach_here(attached)
        self._attach_newcomers(newcomers, attached)
        for name in list(self._players):
            self._tell_coming_back(name, read.coming_back)
        self._codes_elsewhere = read.codes
        if (read.online, read.operators) != (self._elsewhere, self._operators_elsewhere):
            self._elsewhere, self._operators_elsewhere = read.online, read.operators
            self._presence_dirty = True

    def _attach_newcomers(self, newcomers: dict[str, set[str]], attached: set[str]) -> None:
        """People here that another worker's table now lists, who never sent it a
        command from this connection: they sat down there a moment before their
        connection dropped, and came back here before that worker's share said so (it
        comes every half second). Their table is told they are back, as it would have
        been had the listing known (they went to the lobby and a computer played on)."""
        for name, table_ids in newcomers.items():
            if name in self._players:
                self._router.attach(name, table_ids - attached
                                    - self._router.commanded(name))

    def _tell_coming_back(self, name: str, table_ids: AbstractSet[str]) -> None:
        """`name`, here, has a place at a table of `table_ids` that nobody runs for the
        moment (its worker stopped): they are told it is coming back."""
        for table_id in self._listing.tables_of(name) & table_ids:
            info = self._listing.get(table_id)
            if info is not None:
                self._players[name].deliver(Notice(Tell.TABLE_COMING_BACK,
                                                   {"table": info.name}, "warning"))

    # -- players connecting and leaving ----------------------------------------------------
    def _connect(self, message: Connect) -> None:
        if self._closing:
            message.reply.set_exception(LobbyClosed("the lobby is shutting down"))
            return
        name = message.name
        handle = PlayerHandle(name, operator=message.operator or name in self.config.operators,
                              queue_size=self.config.queue_size, post=self._post,
                              router=self._router,
                              max_pending=self.config.max_commands_pending,
                              person=message.person)
        old = self._players.get(name)
        if old is not None:
            old.end(Ending.TAKEN_OVER)
        self._players[name] = handle
        handle.deliver(self._lobby_update(name))
        for line in self._chat_kept:  # the lobby chat's recent lines, for who arrives
            handle.deliver(line)
        if self.motd and not self.has_place(name):
            # One who comes back to a table goes straight to it, where the toast would
            # cover their hand; they were told when they first came.
            handle.deliver(Notice(Tell.MESSAGE_OF_THE_DAY, {"text": self.motd}))
        if name in self._invitations_off:
            handle.deliver(Notice(Tell.INVITATIONS, {"on": False}))
        restart = self._restart_news() if self._restart_news is not None else None

        if restart is not None:
            handle.deliver(restart)
        if self._peers is not None:  # before their tables hear of them
            self._peers.arrived(name)
        self._router.attach(name, self._listing.tables_of(name))
        self._tell_coming_back(name, {t for t, runner in self._runners.items() if not runner})
        self._presence_dirty = True
        message.reply.set_result(handle)

    def _handle_gone(self, handle: PlayerHandle, *, kicked: bool = False) -> None:
        if self._players.get(handle.name) is not handle:
            return
        del self._players[handle.name]
        self._chat.forget_idle()
        self._wrong_codes.forget_idle()
        self._tables_opened.forget_idle(self.clock.now())
        self._router.detach(handle.name, self._listing.tables_of(handle.name), kicked=kicked)
        if self._peers is not None:
            self._peers.left(handle.name)
        self._presence_dirty = True

    def _kick(self, name: str, ending: Ending, by: str, reason: str,
              minutes: float = 0.0) -> bool:
        """End `name`'s handle; `minutes`: how long they are kept out (told to them)."""
        handle = self._players.get(name)
        if handle is None:
            return False
        if minutes:
            handle.end(ending, by=by, reason=reason, minutes=math.ceil(minutes))
        else:
            handle.end(ending, by=by, reason=reason)
        self._handle_gone(handle, kicked=ending is Ending.KICKED)
        return True

    def _kicked(self, kick: PeerKick) -> bool:
        """An operator's kick or ban of `kick.name`, if served here: their session ends
        and the keeper keeps a kick (a ban is kept by `on_ban`). False: not here."""
        if kick.banned:
            return self._kick(kick.name, Ending.BANNED, kick.by, kick.reason)
        # Without a keeper nothing keeps them out: they are not told they are.
        minutes = kick.minutes if self._keeper is not None else 0.0
        if not self._kick(kick.name, Ending.KICKED, kick.by, kick.reason, minutes):
            return False
        if minutes and self._keeper is not None:
            self._spawn(self._keep(self._keeper.kick(kick.name, kick.reason, minutes,
                                                     kick.by), f"the kick of {kick.name}"))
        return True

    def _peer_news(self, news: PeerNews) -> None:
        """News from another worker, for the people served here."""
        if isinstance(news, PeerBroadcast):
            self._broadcast(news.text, news.by)
        elif isinstance(news, PeerNotices):  # kept by the worker they were set on
            self._set_notices(news.board, news.motd, theirs=True)
        elif isinstance(news, PeerKick):
            if news.banned and news.name in self._players and self._on_ban is not None:
                self._spawn(self._ban(news.name, news.reason))  # their key and address
            self._kicked(news)
        elif isinstance(news, PeerInvite):
            self._invited(news)
        elif news.on:  # kept by the worker serving them
            self._invitations_off.discard(news.name)
        else:
            self._invitations_off.add(news.name)

    def _broadcast(self, text: str, by: str, minutes: float = 0.0) -> None:
        """A notice to everyone now; with `minutes`, the words stay on the lobby's notice
        board that long (or until another replaces them)."""
        text = clean_text(text)
        notice = Notice(Tell.BROADCAST, {"text": text, "by": by}, "warning")
        for handle in list(self._players.values()):
            handle.deliver(notice)
        if minutes > 0:
            now = time.time()
            self._set_notices(BoardNote(text, by, now, now + minutes * 60), self._motd)

    def _set_notices(self, board: BoardNote | None, motd: str | None, *,
                     theirs: bool = False) -> None:
        """A new notice board or message of the day: everyone's lobby shows it, the
        keeper keeps it and the other workers are told (unless it is `theirs`, set on
        another worker: kept and told there)."""
        self._board, self._motd = board, motd
        self._dirty = True
        if theirs:
            return
        if self._peers is not None:
            self._peers.news(PeerNotices(board, motd))
        if self._keeper is not None:
            self._spawn(self._keep(self._keeper.keep_notices(board, motd), "the notices"))

    def _post_chat(self, line: ChatPosted) -> None:
        """A lobby chat line, once written (kept over a restart, as a table's lines are),
        or once the journal failed (then it goes on in memory), goes to everyone."""
        for other in list(self._players.values()):
            other.deliver(line)
        if self._peers is not None:
            self._peers.chat(line)

    async def _keep(self, done: Awaitable[object], what: str) -> None:
        """Wait for the keeper; a failure is logged, the lobby goes on in memory."""
        try:
            await done
        except Exception:
            log.exception("could not keep %s", what)

    # -- what everyone sees --------------------------------------------------------------
    def _lobby_update(self, name: str) -> LobbyUpdate:
        online = self.online()
        key = (self._listing.version, online, self._operators_elsewhere)
        if key != self._places_key:
            self._places = tuple(self._listing.place_of(n) for n in online)
            self._operators = tuple(sorted(self.config.operators.union(
                self._operators_elsewhere,
                (n for n, handle in self._players.items() if handle.operator))))
            self._places_key = key
        return LobbyUpdate(self._listing.for_player(name), online, self._places,
                           self._operators, self._board, self.motd)

    def _owe_everyone(self, *, urgent: bool) -> None:
        """Everyone is owed the table list and who is online; who already was keeps
        their place in the queue."""
        self._published_at = time.monotonic()
        self._urgent = self._urgent or urgent
        for name in self._players:
            self._to_tell.setdefault(name)

    def _tell_some(self) -> None:
        """The next slice of what is owed."""
        config = self.config
        rate = config.lobby_redraws_per_second if self._urgent \
            else config.presence_redraws_per_second
        count = max(1, round(rate * UPDATE_SLICE))
        self._next_slice_at = time.monotonic() + count / max(1, rate)
        while count and self._to_tell:
            name = next(iter(self._to_tell))
            del self._to_tell[name]
            handle = self._players.get(name)
            if handle is not None:
                handle.deliver(self._lobby_update(name))
                count -= 1
        if not self._to_tell:
            self._urgent = False

    # -- commands ----------------------------------------------------------------------------
    def _command(self, handle: PlayerHandle, command: Command) -> None:
        def reject(refused: Refused) -> None:
            handle.deliver(Rejected.because(command, refused))

        if isinstance(command, CreateTable):
            self._create_table(handle, command, reject)
        elif isinstance(command, JoinByCode):
            self._join_by_code(handle, command, reject)
        elif isinstance(command, SendChat):
            text, refused = self._chat.check(handle.name, command.text)
            if refused is not None:
                reject(refused)
            elif command.table_id is None:
                line = ChatPosted(ChatLine(handle.name, text, None, time.time()))
                self._chat_kept.append(line)
                self._spawn(self._keep(self.journal.write(
                    [ChatRow(LOBBY_ROOM, chat_row(line.line))],
                    then=lambda: self._post_chat(line)), "a lobby chat line"))
            else:
                self._to_table(handle, command.table_id, SendChat(text, command.table_id),
                               reject)
        elif isinstance(command, Invite):
            self._invite(handle, command, reject)
        elif isinstance(command, Invitations):
            self._set_invitations(handle, bool(command.on))
        elif isinstance(command, OPERATOR_COMMANDS):
            if not handle.operator:
                reject(Refused(Refusal.OPERATOR_ONLY))
            else:
                self._operator(handle, command, reject)
        else:  # a table's commands go straight to it (`PlayerHandle.send`)
            log.info("not a command from %s: %s", handle.name, shown(repr(command)))
            reject(Refused(Refusal.NOT_A_COMMAND))

    def _invite(self, handle: PlayerHandle, command: Invite,
                reject: Callable[[Refused], None]) -> None:
        """Tell `command.name` that the sender would like them at their table, with the
        table's invite code (the sender plays there: they hold it already)."""
        name, table_id = str(command.name), str(command.table_id)
        info = next((t for t in self._listing.tables() if t.table_id == table_id), None)
        if self._router.find(table_id) is None or info is None:
            reject(Refused(Refusal.NO_SUCH_TABLE, table_id=clean_text(table_id)))
            return
        if handle.name != info.owner and all(s.name != handle.name for s in info.seats):
            reject(Refused(Refusal.NOT_AT_TABLE, table_id=table_id))
            return
        target = self._players.get(name)
        peers = self._peers if target is None and name in self._elsewhere else None
        if (target is None and peers is None) or name == handle.name:
            reject(Refused(Refusal.NOT_ONLINE, name=clean_text(name)))
            return
        if name in self._invitations_off:
            reject(Refused(Refusal.NO_INVITATIONS, name=name))
            return
        if not self._invites.allow(handle.name):
            reject(Refused(Refusal.TOO_MANY_INVITES, invites=INVITES_PER_MINUTE))
            return
        invite = PeerInvite(name, handle.name, info.name, table_id, info.invite_code or "")
        if peers is not None:  # served by another worker
            peers.news(invite)
        else:
            self._invited(invite)
        handle.deliver(Notice(Tell.INVITE_SENT, {"name": name, "table": info.name}))

    def _invited(self, invite: PeerInvite) -> None:
        """`invite.name`, if here and taking invitations, is told of it."""
        target = self._players.get(invite.name)
        if target is not None and invite.name not in self._invitations_off:
            target.deliver(Notice(Tell.INVITED, {"by": invite.by, "table": invite.table,
                                                 "table_id": invite.table_id,
                                                 "code": invite.code}))

    def _set_invitations(self, handle: PlayerHandle, on: bool) -> None:
        if on:
            self._invitations_off.discard(handle.name)
        else:
            self._invitations_off.add(handle.name)
        handle.deliver(Notice(Tell.INVITATIONS, {"on": on}))
        if self._peers is not None:
            self._peers.news(PeerInvitations(handle.name, on))
        if self._keeper is not None:
            self._spawn(self._keep(self._keeper.keep_invitations(handle.name, on),
                                   f"{handle.name}'s invitations"))

    def _to_table(self, handle: PlayerHandle, table_id: str, command: Command,
                  reject: Callable[[Refused], None]) -> None:
        """A command the lobby checked goes on to the table: pending until it is taken up."""
        if not self._router.command(handle, table_id, command):
            reject(Refused(Refusal.NO_SUCH_TABLE, table_id=table_id))

    def _create_table(self, handle: PlayerHandle, command: CreateTable,
                      reject: Callable[[Refused], None], spent: Spent | None = None) -> None:
        """Check it, count it against its person's tables of the hour and of 10 minutes
        (`spent`: the club counted them, `_spend_tables`), then open it."""
        if self._closing:
            reject(Refused(Refusal.SHUTTING_DOWN))
            return
        if not self.journal.writable():  # a new table would only wait at its first write
            reject(Refused(Refusal.CANNOT_SAVE))
            return
        try:
            table = checked_table(command, handle.name)
        except Refused as refused:
            reject(refused)
            return
        if not handle.operator:
            if spent is None and self._rates is not None:
                self._spend_tables(handle, command)
                return
            full = self._count_table_here(handle.person) if spent is None \
                else (spent.wait, spent.window_minutes) if spent.wait else None
            if full is not None:
                wait, minutes = full
                tables = self.config.tables_per_hour if minutes == 60 \
                    else self.config.tables_per_10_minutes
                reject(Refused(Refusal.TOO_MANY_TABLES, tables=tables, window=minutes,
                               minutes=max(1, math.ceil(wait / 60))))
                return
        table_id = self._new_table_id()
        code = self._new_code()
        self._codes[code] = table_id
        self._opened_at[table_id] = time.time()
        self.host.open(table_id, handle.name, table, code, self._router.link(table_id))
        log.info("table %s created by %s: %r, %s%s%s", table_id, handle.name, table.name,
                 table.rules.summary(), ", private" if table.private else "",
                 ", practice" if table.practice else "")

    def _join_by_code(self, handle: PlayerHandle, command: JoinByCode,
                      reject: Callable[[Refused], None], spent: Spent | None = None) -> None:
        """Wrong codes cost their guesser: `CODE_GUESSES` a minute. Counted here, only
        the wrong ones; counted by the club (`rates`: a guesser landing on another
        worker has no fresh minute there), every code typed, before it is looked up.
        A code not known here may be a table's opened on another worker a moment ago:
        with peers, it is looked up again once their shares have caught up."""
        if spent is None and self._rates is not None:
            self._spend(handle, command, "codes", CODE_GUESSES, CODES_WINDOW)
            return
        code = str(command.code).strip().upper()
        table_id = self._codes.get(code) or self._codes_elsewhere.get(code)
        counted_here = spent is None or spent.wait is None
        if spent is not None and spent.wait or \
                counted_here and self._wrong_codes.full(handle.name):
            reject(Refused(Refusal.TOO_MANY_CODES))
        elif table_id is None and self._peers is not None and \
                (spent is None or not spent.looked_again):
            self._look_again(handle, command, None if spent is None else spent.wait)
        elif table_id is None:
            if counted_here:
                self._wrong_codes.allow(handle.name)
            code = command.code
            reject(Refused(Refusal.NO_SUCH_CODE, code=clean_text(code)[:ECHO_MAX]
                           if isinstance(code, str) else echoed(code)))
        else:
            self._router.command(handle, table_id, command, by_code=True)

    def _look_again(self, handle: PlayerHandle, command: JoinByCode,
                    wait: float | None) -> None:
        peers = self._peers
        assert peers is not None

        async def look_again() -> None:
            await peers.caught_up()
            self._post(Spent(handle, command, wait, looked_again=True))

        self._spawn(look_again(), name=f"code of {handle.name}")

    def _count_table_here(self, person: str) -> tuple[float, int] | None:
        """Count a new table of `person` on this worker's clocks: None if it fits, else
        the seconds to wait and the window (in minutes) that is full."""
        now = self.clock.now()
        limits = ((self._tables_opened, 60), (self._tables_lately, 10))
        for limit, minutes in limits:
            if limit.full(person, now):
                return limit.wait(person, now), minutes
        for limit, _ in limits:
            limit.allow(person, now)
        return None

    def _spend_tables(self, handle: PlayerHandle, command: CreateTable) -> None:
        """The club counts a new table of `handle.person`: within 10 minutes, then
        within the hour (a table refused by the hour's count still counts in the 10
        minutes': the stricter way to be wrong)."""
        rates = self._rates
        assert rates is not None
        who, config = handle.person, self.config

        async def spend() -> None:
            for kind, count, minutes in (("tables10", config.tables_per_10_minutes, 10),
                                         ("tables", config.tables_per_hour, 60)):
                wait = await rates.spend(kind, who, count, minutes * 60.0)
                if wait:
                    self._post(Spent(handle, command, wait, window_minutes=minutes))
                    return
            self._post(Spent(handle, command, 0.0))

        self._spawn(spend(), name=f"tables of {who}")

    def _spend(self, handle: PlayerHandle, command: JoinByCode, kind: str, count: int,
               window: float) -> None:
        """Ask the club's count of `handle.name`'s `kind` of events, as this worker would
        count them (by name: the guests of one address, a club house's, each type their
        own codes); the command goes on (`Spent`) once it answers."""
        rates = self._rates
        assert rates is not None

        async def spend() -> None:
            wait = await rates.spend(kind, handle.name, count, window)
            self._post(Spent(handle, command, wait))

        self._spawn(spend(), name=f"{kind} of {handle.name}")

    def _new_table_id(self) -> str:
        """A table id that is not a count (tables may run on several hosts: no host
        counts for the others), and not one of a table the lobby routes to (every host's
        tables, those taken up after a restart included)."""
        while True:
            table_id = new_table_id(TABLE_IDS)
            if self._router.find(table_id) is None:
                return table_id

    async def _restore(self, saved: SavedTable) -> None:
        """Take up a table the host's journal kept: listed at once, its places held for
        their people (`TableHost.restore`); one that cannot be rebuilt is dropped there,
        and the lobby starts anyway."""
        linked: list[str] = []

        def link(table_id: str) -> TableLink:
            if table_id in self._router.links:
                raise SavedTableError(table_id, "a table of that id was already taken up")
            linked.append(table_id)
            return self._router.link(table_id)

        def code(wanted: str) -> str:
            return wanted if wanted not in self._codes else self._new_code()

        info = await self.host.restore(saved, link, code)
        if info is None:
            for table_id in linked:
                self._router.forget(table_id)
            return
        self._codes[info.invite_code or ""] = info.table_id
        self._opened_at[info.table_id] = time.time()
        self._listing.update(info)
        if self._running:  # taken over from a worker that died: who is here is back
            self._dirty = True
            self._taken_up.add(info.table_id)
            self._post(TableChanged(info))  # wakes the actor to tell everyone

    async def take_up(self, saved: SavedTable) -> None:
        """Run here from now on a table the journal kept that nobody runs any more (the
        worker that ran it died, and this one won its lease: `server/ownership.py`)."""
        if self._running and not self._closing and saved.table_id not in self._router.links:
            await self._restore(saved)

    def _attach_here(self, table_ids: set[str]) -> None:
        """The tables `table_ids` are run from somewhere new: each person connected here
        whom they hold a place for is attached (the table sends them the table afresh)."""
        for name in list(self._players):
            self._router.attach(name, self._listing.tables_of(name) & table_ids)

    def _new_code(self) -> str:
        while True:
            code = "".join(self._codes_rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self._codes:
                return code

    def _operator(self, handle: PlayerHandle, command: OperatorCommand,
                  reject: Callable[[Refused], None]) -> None:
        try:
            command = checked(command, handle.name, self.config)
        except Refused as refused:
            reject(refused)
            return
        if isinstance(command, Restart | CancelRestart):
            self._restart(handle, command, reject)
        elif isinstance(command, Broadcast):
            if self._peers is not None:
                self._peers.news(PeerBroadcast(clean_text(command.text), handle.name))
            self._broadcast(command.text, handle.name, command.minutes or 0.0)
        elif isinstance(command, ClearBoard):
            self._set_notices(None, self._motd)
            handle.deliver(Notice(Tell.BOARD_CLEARED))
        elif isinstance(command, SetMotd):
            self._set_notices(self._board, command.text or None)
            handle.deliver(Notice(Tell.MOTD_SET, {"text": command.text}))
        elif isinstance(command, Kick):
            kick = PeerKick(command.name, False, handle.name, command.reason,
                            command.minutes or 0.0)
            if self._peers is not None and command.name not in self._players \
                    and command.name in self._elsewhere:
                self._peers.news(kick)  # their worker ends their session and keeps it
            elif not self._kicked(kick):
                reject(Refused(Refusal.NOT_ONLINE, name=command.name))
                return
            # Without a keeper nothing keeps them out: they are not told they are.
            minutes = kick.minutes if self._keeper is not None else 0.0
            handle.deliver(Notice(Tell.KICKED, {"name": command.name,
                                                "minutes": math.ceil(minutes)}))
        elif isinstance(command, Unban):
            self._spawn(self._unban(handle, str(command.name)))
        elif isinstance(command, Ban):
            ban = PeerKick(command.name, True, handle.name, command.reason, 0.0)
            if self._on_ban is not None:
                self._spawn(self._ban(command.name, command.reason))
            if not self._kicked(ban) and self._peers is not None:
                self._peers.news(ban)  # whichever worker serves them bans what it knows
            handle.deliver(Notice(Tell.BANNED, {"name": command.name}))
        else:
            if self._router.find(command.table_id) is None:
                reject(Refused(Refusal.NO_SUCH_TABLE, table_id=command.table_id))
            else:
                self._router.tell([command.table_id], CloseNow(
                    Leave.CLOSED_BY_OPERATOR, {"by": handle.name, "reason": command.reason}))

    def _restart(self, handle: PlayerHandle, command: Restart | CancelRestart,
                 reject: Callable[[Refused], None]) -> None:
        if self._on_restart is None:
            reject(Refused(Refusal.RESTART_UNAVAILABLE))
            return
        refused = self._on_restart(command, handle.name)
        if refused is not None:
            reject(refused)

    async def _unban(self, handle: PlayerHandle, name: str) -> None:
        lifted = False
        if self._keeper is not None:
            try:
                lifted = await self._keeper.unban(name)
            except Exception:
                log.exception("could not lift the ban of %s", name)
                handle.deliver(Rejected.because(Unban(name), Refused(Refusal.LOBBY_FAILED)))
                return
        handle.deliver(Notice(Tell.UNBANNED if lifted else Tell.NOT_BANNED, {"name": name}))

    async def _ban(self, name: str, reason: str) -> None:

        assert self._on_ban is not None
        try:
            await self._on_ban(name, reason)
        except Exception:
            log.exception("the ban hook failed for %s", name)
