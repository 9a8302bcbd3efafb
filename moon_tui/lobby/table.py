"""One table: an actor that owns its seats and its game, reached only through its inbox.

Everything that happens to a table arrives as a message (a player's command, a computer's
move, a timer) and is handled one at a time, so the game needs no locks. After each change
the table sends every member the view *for that member* (`GameState.view(seat)`, or the
spectator's view): nothing hidden ever leaves the table.

At any moment the game waits on one thing, the table's *clock*: a computer thinking, a
player's turn timer, or the pause before the next deal. Each clock carries a generation
number; a message from an outdated clock is ignored.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any

from ..bots import Bot, RandomBot, make_bot
from ..rules import CHANCE, Action, Breach, GameState, IllegalActionError, RuleBroken, SeatView
from ..rules.record import record_of
from .config import LobbyConfig
from .internal import (
    Attach,
    BotMoved,
    CloseNow,
    DealNow,
    Detach,
    FromPlayer,
    GraceOver,
    LobbyMessage,
    TableChanged,
    TableClosed,
    TableMessage,
    TimerRanOut,
)
from .messages import (
    BOT_LEVELS,
    Act,
    AddBot,
    BotLevel,
    ChatLine,
    ChatPosted,
    Command,
    CreateTable,
    Event,
    GameFinished,
    JoinByCode,
    JoinSeat,
    LeaveTable,
    Notice,
    Rejected,
    Rematch,
    RemoveBot,
    SeatInfo,
    SendChat,
    Spectate,
    StartGame,
    TableInfo,
    TableLeft,
    TableStatus,
    TableUpdate,
)
from .refusals import Refusal, Refused
from .session import PlayerHandle
from .stats import LobbyStats
from .store import RecordStore

log = logging.getLogger(__name__)


@dataclass
class Seat:
    """A seat: a player (`name`), a computer (`bot_level` only), or nobody."""

    name: str | None = None
    bot_level: BotLevel | None = None
    away_since: float | None = None
    """Set while the player is disconnected (the stand-in computer plays)."""

    @property
    def free(self) -> bool:
        return self.name is None and self.bot_level is None

    @property
    def computer_plays(self) -> bool:
        return self.name is None or self.away_since is not None


def bot_name(level: str) -> str:
    return f"{level} bot"


class Table:
    """A table actor. Start it with `run()` in a task group; talk to it with `post()`."""

    def __init__(self, table_id: str, owner: PlayerHandle, create: CreateTable, *,
                 invite_code: str, config: LobbyConfig, store: RecordStore, seed: int,
                 lobby_post: Callable[[LobbyMessage], None], stats: LobbyStats) -> None:
        self.table_id = table_id
        self.name = create.name
        self.rules = create.rules
        self.turn_seconds = create.turn_seconds
        self.private = create.private
        self.spectators_allowed = create.spectators_allowed
        self.invite_code = invite_code
        self.owner = owner.name
        self.config = config
        self._store = store
        self._lobby_post = lobby_post
        self._stats = stats
        self._rng = random.Random(seed)
        self._bot_rng = random.Random(seed ^ 0x5EED)
        self.seats = [Seat() for _ in range(self.rules.players)]
        self.seats[0].name = owner.name
        self.spectators: list[str] = []
        self.handles: dict[str, PlayerHandle] = {owner.name: owner}
        """Connected members (seated players and spectators) and their sessions."""
        self.status: TableStatus = "waiting"
        self.state: GameState | None = None
        self.game_names: tuple[str, ...] = ()
        self.rematch_votes: list[str] = []
        self._bots: dict[tuple[int, str], Bot] = {}
        self._inbox: asyncio.Queue[TableMessage] = asyncio.Queue()
        self._tg: asyncio.TaskGroup | None = None
        self._clock: asyncio.Task[None] | None = None
        self._generation = 0
        self._grace: dict[str, asyncio.Task[None]] = {}
        self._reported: TableInfo | None = None
        self._closing: str | None = None
        self._saved = False
        self._info_key: tuple[object, ...] | None = None
        self._infos: tuple[TableInfo, TableInfo] | None = None

    def post(self, message: TableMessage) -> None:
        self._inbox.put_nowait(message)

    # -- the actor's loop ----------------------------------------------------------------
    async def run(self) -> None:
        """Handle messages until the table closes; saves an unfinished game on the way out."""
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                self._publish()
                while self._closing is None:
                    message = await self._inbox.get()
                    try:
                        self._handle(message)
                    except Exception:
                        log.exception("table %s failed on %r", self.table_id, message)
                        self._close("the table ran into an error and had to close")
                self._stop_clocks()
                await self._save_unfinished()
        except Exception:
            log.exception("table %s crashed", self.table_id)
        finally:
            self._tg = None
            self._lobby_post(TableClosed(self.table_id, self.invite_code))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        assert self._tg is not None
        return self._tg.create_task(coro)

    def _stop_clocks(self) -> None:
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        for task in self._grace.values():
            task.cancel()
        self._grace.clear()

    def _handle(self, message: TableMessage) -> None:
        if isinstance(message, FromPlayer):
            try:
                self._command(message.handle, message.command, message.by_code)
            except Refused as exc:
                message.handle.deliver(Rejected.because(message.command, exc))
            except Exception:
                log.exception("table %s could not do %r", self.table_id, message.command)
                message.handle.deliver(Rejected.because(message.command,
                                                        Refused(Refusal.TABLE_FAILED)))
        elif isinstance(message, BotMoved):
            if message.generation == self._generation:
                self._computer_moved(message.seat, message.action, message.stand_in)
        elif isinstance(message, TimerRanOut):
            if message.generation == self._generation:
                self._start_clock(self._think(message.seat, stand_in=True))
        elif isinstance(message, DealNow):
            if message.generation == self._generation:
                self._deal()
        elif isinstance(message, Attach):
            self._attach(message.handle)
        elif isinstance(message, Detach):
            self._detach(message.handle)
        elif isinstance(message, GraceOver):
            self._grace_over(message.name, message.away_since)
        elif isinstance(message, CloseNow):
            self._close(message.reason)

    # -- what members see ----------------------------------------------------------------
    def infos(self) -> tuple[TableInfo, TableInfo]:
        """The table's entry without and with the invite code; rebuilt only when the seats,
        status, spectators, owner or votes changed (not on every move)."""
        key = (self.status, self.owner, tuple(self.spectators), tuple(self.rematch_votes),
               tuple((s.name, s.bot_level, s.away_since is not None) for s in self.seats))
        if key != self._info_key:
            stand_in = self.config.stand_in_level
            seats = tuple(
                SeatInfo(name, level if name is None else (stand_in if away else None), away)
                for name, level, away in key[4])
            public = TableInfo(
                table_id=self.table_id, name=self.name, owner=self.owner, rules=self.rules,
                seats=seats, status=self.status, private=self.private,
                spectators_allowed=self.spectators_allowed, spectators=key[2],
                turn_seconds=self.turn_seconds, invite_code=None, rematch_votes=key[3])
            self._infos = (public, replace(public, invite_code=self.invite_code))
            self._info_key = key
        assert self._infos is not None
        return self._infos

    def seat_of(self, name: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.name == name:
                return i
        return None

    def _publish(self) -> None:
        """Send every connected member its own TableUpdate; tell the lobby if its entry
        changed. Called after every change."""
        started = time.perf_counter()
        public, players = self.infos()
        state = self.state
        views: dict[int | None, SeatView | None] = {}
        for name, handle in list(self.handles.items()):
            seat = self.seat_of(name)
            if seat not in views:
                views[seat] = None if state is None else (
                    state.spectator_view() if seat is None else state.view(seat))
            info = players if seat is not None or name == self.owner else public
            handle.deliver(TableUpdate(info, seat, views[seat]))
        self._stats.fanout_seconds.append(time.perf_counter() - started)
        if public != self._reported:
            self._reported = public
            self._lobby_post(TableChanged(players))

    def _tell(self, name: str, event: Event) -> None:
        handle = self.handles.get(name)
        if handle is not None:
            handle.deliver(event)

    def _tell_all(self, event: Event) -> None:
        for handle in list(self.handles.values()):
            handle.deliver(event)

    # -- commands --------------------------------------------------------------------------
    def _command(self, handle: PlayerHandle, command: Command, by_code: bool) -> None:
        if self._closing is not None:
            raise Refused(Refusal.TABLE_CLOSING, table_id=self.table_id)
        name = handle.name
        if isinstance(command, (JoinSeat, JoinByCode)):
            self._join(handle, command, by_code)
            return
        if isinstance(command, Spectate):
            self._spectate(handle, by_code)
            return
        if self.handles.get(name) is not handle and self.seat_of(name) is None:
            raise Refused(Refusal.NOT_AT_TABLE, table_id=self.table_id)
        if isinstance(command, Act):
            self._act(name, command.action)
        elif isinstance(command, LeaveTable):
            self._leave(name, "you left the table")
        elif isinstance(command, SendChat):
            line = ChatLine(name, command.text, self.table_id, time.time())
            self._tell_all(ChatPosted(line))
        elif isinstance(command, AddBot):
            self._add_bot(name, command.seat, command.level)
        elif isinstance(command, RemoveBot):
            self._remove_bot(name, command.seat)
        elif isinstance(command, StartGame):
            self._owner_only(name, "start the game")
            self._start_game()
        elif isinstance(command, Rematch):
            self._rematch(name, command.agree)
        else:
            raise Refused(Refusal.NOT_A_TABLE_COMMAND, command=type(command).__name__)

    def _owner_only(self, name: str, what: str) -> None:
        if name != self.owner:
            raise Refused(Refusal.OWNER_ONLY, owner=self.owner, what=what)

    def _not_playing(self, what: str) -> None:
        if self.status == "playing":
            raise Refused(Refusal.GAME_STARTED, what=what)

    def _is_member(self, name: str) -> bool:
        return self.seat_of(name) is not None or name in self.spectators or name == self.owner

    def _join(self, handle: PlayerHandle, command: JoinSeat | JoinByCode, by_code: bool) -> None:
        name = handle.name
        if self.private and not by_code and not self._is_member(name):
            raise Refused(Refusal.PRIVATE_TABLE, table_id=self.table_id)
        current = self.seat_of(name)
        wanted = command.seat if isinstance(command, JoinSeat) else None
        if current is not None and (wanted is None or wanted == current):
            if isinstance(command, JoinByCode):
                self.handles[name] = handle
                self._publish()
                return
            raise Refused(Refusal.ALREADY_SEATED, seat=current)
        if self.status == "playing":
            if isinstance(command, JoinByCode) and (self.spectators_allowed
                                                    or name == self.owner):
                self._spectate(handle, by_code)
                return
            if not self.spectators_allowed:
                raise Refused(Refusal.STARTED_NO_SPECTATORS)
            raise Refused(Refusal.STARTED_WATCH_ONLY)
        if wanted is None:
            free = [i for i, s in enumerate(self.seats) if s.free]
            if not free:
                if isinstance(command, JoinByCode) and self.spectators_allowed:
                    self._spectate(handle, by_code)
                    return
                raise Refused(Refusal.NO_FREE_SEAT, table_id=self.table_id)
            wanted = free[0]
        self._check_seat(wanted)
        seat = self.seats[wanted]
        if not seat.free:
            who = seat.name if seat.name is not None else bot_name(str(seat.bot_level))
            raise Refused(Refusal.SEAT_TAKEN, seat=wanted, by=who)
        if current is not None:
            self.seats[current] = Seat()
        if name in self.spectators:
            self.spectators.remove(name)
        seat.name = name
        self.handles[name] = handle
        self.rematch_votes.clear()
        self._publish()

    def _spectate(self, handle: PlayerHandle, by_code: bool) -> None:
        name = handle.name
        if name in self.spectators:
            raise Refused(Refusal.ALREADY_WATCHING, table_id=self.table_id)
        if not self.spectators_allowed and name != self.owner:
            raise Refused(Refusal.NO_SPECTATORS, table_id=self.table_id)
        if self.private and not by_code and not self._is_member(name):
            raise Refused(Refusal.PRIVATE_TABLE, table_id=self.table_id)
        current = self.seat_of(name)
        if current is not None:
            self._not_playing("leave your seat to watch")
            self.seats[current] = Seat()
            self.rematch_votes.clear()
        self.spectators.append(name)
        self.handles[name] = handle
        self._publish()

    def _check_seat(self, seat: object) -> None:
        last = len(self.seats) - 1
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= last:
            raise Refused(Refusal.NO_SUCH_SEAT, seat=seat if type(seat) is int else repr(seat),
                          last=last)

    def _add_bot(self, name: str, seat: int, level: str) -> None:
        self._owner_only(name, "add computer players")
        self._not_playing("change the seats")
        if level not in BOT_LEVELS:
            raise Refused(Refusal.NO_SUCH_LEVEL, level=repr(level), levels=", ".join(BOT_LEVELS))
        self._check_seat(seat)
        if not self.seats[seat].free:
            raise Refused(Refusal.SEAT_NOT_FREE, seat=seat)
        self.seats[seat] = Seat(bot_level=level)
        self.rematch_votes.clear()
        self._publish()

    def _remove_bot(self, name: str, seat: int) -> None:
        self._owner_only(name, "remove computer players")
        self._not_playing("change the seats")
        self._check_seat(seat)
        if self.seats[seat].name is not None or self.seats[seat].bot_level is None:
            raise Refused(Refusal.NO_BOT_AT_SEAT, seat=seat)
        self.seats[seat] = Seat()
        self.rematch_votes.clear()
        self._publish()

    def _leave(self, name: str, reason: str) -> None:
        seat = self.seat_of(name)
        if seat is not None:
            if self.status == "playing":
                self.seats[seat] = Seat(bot_level=self.config.stand_in_level)
                self._tell_all_but(name, Notice(
                    f"{name} left table {self.table_id}: a computer plays seat {seat}"))
            else:
                self.seats[seat] = Seat()
            self._end_grace(name)
        if name in self.spectators:
            self.spectators.remove(name)
        if name in self.rematch_votes:
            self.rematch_votes.remove(name)
        handle = self.handles.pop(name, None)
        if handle is not None:
            handle.deliver(TableLeft(self.table_id, reason))
        self._after_someone_left(name)
        if seat is not None and self._to_move() == seat:
            self._advance()

    def _tell_all_but(self, name: str, event: Event) -> None:
        for other, handle in list(self.handles.items()):
            if other != name:
                handle.deliver(event)

    def _humans(self) -> list[str]:
        """Humans still at the table, seated ones first (in seat order), then spectators."""
        seated = [s.name for s in self.seats if s.name is not None]
        return seated + [n for n in self.spectators if n not in seated]

    def _after_someone_left(self, name: str) -> None:
        humans = self._humans()
        if not humans:
            self._close("nobody is left at the table")
            return
        if name == self.owner and name not in humans:
            self.owner = humans[0]
            self._tell(self.owner, Notice(f"you now own table {self.table_id}"))
        self._publish()

    # -- sessions coming and going -------------------------------------------------------
    def _attach(self, handle: PlayerHandle) -> None:
        name = handle.name
        seat = self.seat_of(name)
        if seat is None and name not in self.spectators:
            return
        self.handles[name] = handle
        was_away = seat is not None and self.seats[seat].away_since is not None
        if seat is not None:
            self.seats[seat].away_since = None
            self._end_grace(name)
        self._publish()
        if was_away and self._to_move() == seat:
            self._advance()

    def _detach(self, handle: PlayerHandle) -> None:
        name = handle.name
        if self.handles.get(name) is not handle:
            return
        del self.handles[name]
        seat = self.seat_of(name)
        if seat is None:
            if name in self.spectators:
                self.spectators.remove(name)
                self._after_someone_left(name)
            return
        since = time.monotonic()
        self.seats[seat].away_since = since
        self._end_grace(name)
        self._grace[name] = self._spawn(self._grace_timer(name, since))
        self._publish()
        if self._to_move() == seat:
            self._advance()

    async def _grace_timer(self, name: str, since: float) -> None:
        await asyncio.sleep(self.config.grace_seconds)
        self.post(GraceOver(name, since))

    def _end_grace(self, name: str) -> None:
        task = self._grace.pop(name, None)
        if task is not None:
            task.cancel()

    def _grace_over(self, name: str, since: float) -> None:
        seat = self.seat_of(name)
        if seat is None or self.seats[seat].away_since != since:
            return
        self._grace.pop(name, None)
        self._leave(name, "you were away too long")

    # -- the game --------------------------------------------------------------------------
    def _start_game(self) -> None:
        self._not_playing("start another game")
        if any(s.free for s in self.seats):
            raise Refused(Refusal.SEATS_EMPTY)
        self.state = GameState.new_game(self.rules, self._rng)
        self.game_names = tuple(s.name if s.name is not None else bot_name(str(s.bot_level))
                                for s in self.seats)
        self.status = "playing"
        self.rematch_votes.clear()
        self._saved = False
        self._publish()
        self._advance()

    def _to_move(self) -> int | None:
        if self.state is None or self.status != "playing":
            return None
        player = self.state.current_player()
        return player if player >= 0 else None

    def _act(self, name: str, action: Action) -> None:
        seat = self.seat_of(name)
        if seat is None:
            raise Refused(Refusal.SPECTATOR_CANNOT_PLAY)
        if self.state is None or self.status != "playing":
            raise Refused(Refusal.GAME_NOT_STARTED)
        if not isinstance(action, Action):
            raise Refused(Refusal.NOT_AN_ACTION, action=repr(action))
        to_move = self.state.current_player()
        if to_move == CHANCE:
            raise Refused.illegal(Breach(RuleBroken.NOT_DEALT), action)
        if to_move != seat:
            raise Refused.illegal(Breach(RuleBroken.NOT_YOUR_TURN, seat=seat, to_move=to_move),
                                  action)
        try:
            self.state.apply_action(action)
        except IllegalActionError as exc:
            raise Refused.illegal(exc.breach, action) from None
        self._changed()

    def _computer_moved(self, seat: int, action: Action, stand_in: bool) -> None:
        assert self.state is not None
        self.state.apply_action(action)
        player = self.seats[seat].name
        if stand_in and player is not None and self.seats[seat].away_since is None:
            self._tell(player, Notice(
                f"your time ran out: the computer chose {action} for you", "warning"))
        self._changed()

    def _deal(self) -> None:
        assert self.state is not None
        self.state.deal(self._rng)
        self._changed()

    def _changed(self) -> None:
        """After a move: count a finished hand, tell everyone, and set the next clock."""
        assert self.state is not None
        if self.state.current_player() < 0:
            self._stats.hands += 1
        self._publish()
        self._advance()

    def _advance(self) -> None:
        """Set the clock for whatever the game waits on now."""
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        self._generation += 1
        state = self.state
        if state is None or self.status != "playing":
            return
        if state.is_terminal():
            self._finish_game()
            return
        player = state.current_player()
        if player == CHANCE:
            self._start_clock(self._deal_later(self._generation))
            return
        seat = self.seats[player]
        if seat.computer_plays:
            self._start_clock(self._think(player, stand_in=seat.name is not None))
        elif self.turn_seconds is not None:
            self._start_clock(self._turn_timer(self._generation, player))

    def _start_clock(self, coro: Coroutine[Any, Any, None]) -> None:
        if self._clock is not None:
            self._clock.cancel()
        self._clock = self._spawn(coro)

    async def _deal_later(self, generation: int) -> None:
        if self.config.hand_pause > 0:
            await asyncio.sleep(self.config.hand_pause)
        self.post(DealNow(generation))

    async def _turn_timer(self, generation: int, seat: int) -> None:
        assert self.turn_seconds is not None
        await asyncio.sleep(self.turn_seconds * self.config.timer_scale)
        self.post(TimerRanOut(generation, seat))

    def _think(self, seat: int, *, stand_in: bool) -> Coroutine[Any, Any, None]:
        """A computer's move for `seat`, chosen off the event loop from the seat's view."""
        assert self.state is not None
        held = self.seats[seat]
        level = self.config.stand_in_level if stand_in or held.bot_level is None \
            else held.bot_level
        view = self.state.view(seat)
        bot = self._bot(seat, level)
        return self._choose(self._generation, seat, bot, view, stand_in)

    def _bot(self, seat: int, level: str) -> Bot:
        key = (seat, level)
        bot = self._bots.get(key)
        if bot is None:
            bot = make_bot(level, time_budget=self.config.bot_time_budget)
            self._bots[key] = bot
        return bot

    async def _choose(self, generation: int, seat: int, bot: Bot, view: SeatView,
                      stand_in: bool) -> None:
        if self.config.bot_delay > 0:
            await asyncio.sleep(self.config.bot_delay)
        rng = self._bot_rng
        try:
            action = await asyncio.to_thread(bot.choose, view, rng)
            if action not in view.legal:
                raise ValueError(f"{bot.name} chose {action}, not a legal action")
        except Exception:
            log.exception("table %s: the %s bot failed at seat %d; playing at random",
                          self.table_id, bot.name, seat)
            action = RandomBot().choose(view, rng)
        self.post(BotMoved(generation, seat, action, stand_in))

    def _finish_game(self) -> None:
        state = self.state
        assert state is not None
        outcome = state.outcome()
        assert outcome is not None
        self.status = "finished"
        self._stats.games += 1
        winners = tuple(self.game_names[i] for i in range(self.rules.players)
                        if self.rules.side_of(i) == outcome.winner)
        self._tell_all(GameFinished(self.table_id, outcome, winners, state.scores))
        self._save(state, finished=True)
        self._publish()

    def _rematch(self, name: str, agree: bool) -> None:
        if self.status != "finished":
            raise Refused(Refusal.REMATCH_NOT_OVER)
        if self.seat_of(name) is None:
            raise Refused(Refusal.REMATCH_SEATED_ONLY)
        if agree and name not in self.rematch_votes:
            self.rematch_votes.append(name)
        elif not agree and name in self.rematch_votes:
            self.rematch_votes.remove(name)
        humans = [s.name for s in self.seats if s.name is not None]
        if agree and all(h in self.rematch_votes for h in humans):
            if any(s.free for s in self.seats):
                self._publish()
                raise Refused(Refusal.REMATCH_SEATS_EMPTY)
            self._start_game()
        else:
            self._publish()

    # -- records and closing ---------------------------------------------------------------
    def _save(self, state: GameState, *, finished: bool) -> None:
        if self._saved:
            return
        self._saved = True
        record = self._record(state)
        if record is not None:
            self._spawn(self._store_record(record, finished))

    def _record(self, state: GameState) -> dict[str, Any] | None:
        """The game as a `moon/1` record; None (and a logged traceback) if that fails."""
        try:
            return record_of(state, self.game_names)
        except Exception:
            log.exception("table %s: could not write the game record", self.table_id)
            return None

    async def _store_record(self, record: dict[str, Any], finished: bool) -> None:
        try:
            await self._store.save(record, finished=finished)
        except Exception:
            log.exception("table %s: the record store failed", self.table_id)

    async def _save_unfinished(self) -> None:
        state = self.state
        if state is None or self.status != "playing" or self._saved:
            return
        self._saved = True
        record = self._record(state)
        if record is not None:
            await self._store_record(record, False)

    def _close(self, reason: str) -> None:
        if self._closing is not None:
            return
        self._closing = reason
        self._stop_clocks()
        for handle in list(self.handles.values()):
            handle.deliver(TableLeft(self.table_id, reason))
        self.handles.clear()
