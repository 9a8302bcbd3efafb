"""One table: an actor that owns its game, reached only through its inbox.

Everything that happens to a table arrives as a message in its inbox (`internal.py`): a
member's command, straight from their handle; a computer's move; a clock running out;
a player connecting or dropping. Messages are handled one at a time, so the game needs
no locks. Everything it says leaves as a message too, through the same link (`links.py`):
an event for a member, the acknowledgement of a command, its lobby entry, its counts.
Both streams are plain values in the wire format (`codec.py`), so the table could live in
another process than its players. The table composes three parts, each with one job:

- `Seating` (`seating.py`): who sits where, bots and stand-ins, ownership, rematch votes;
- `TableClocks` (`clocks.py`): what the game waits on, and the grace period of away
  players, on an injectable clock;
- `Publisher` (`publishing.py`): each member's own view after every change, numbered;

and three helpers: `Computers` (`computers.py`, the bots thinking off the event loop),
`Recorder` (`records.py`, each game saved once as a record) and `TableWriter`
(`writing.py`, the table written to the journal before anyone is told of a change, so it
comes back after a restart or a crash: `restore`, `restoring.py`).

A move: `FromMember(name, Act)` → `_act` → `GameState.apply_action` → `_changed` →
`Publisher.publish` (a `TableUpdate` per member, held) → `_advance` sets the next clock;
at the end of the loop's pass, `TableWriter.write` → `Publisher.release`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Mapping
from dataclasses import replace

from ..bots.pool import BotPool
from ..rules import (
    CHANCE,
    Action,
    Breach,
    GameState,
    IllegalActionError,
    Phase,
    RuleBroken,
    SeatView,
)
from ..rules.illegal import Param
from .clock import Clock
from .clocks import TableClocks
from .computers import Computers
from .config import LobbyConfig
from .internal import (
    Acked,
    Attach,
    BotMoved,
    CloseNow,
    Counted,
    DealNow,
    Detach,
    FromMember,
    GraceOver,
    TableClosed,
    TableMessage,
    ThinkNow,
    TimerRanOut,
)
from .journal import TableJournal
from .links import TableLink
from .messages import (
    Act,
    AddBot,
    BotLevel,
    ChatLine,
    ChatPosted,
    Command,
    CreateTable,
    GameFinished,
    HandSeen,
    JoinByCode,
    JoinSeat,
    LeaveTable,
    Notice,
    Rejected,
    Rematch,
    RemoveBot,
    Resync,
    SeatInfo,
    SendChat,
    Spectate,
    StartGame,
    TableInfo,
    TableLeft,
    TableStatus,
)
from .notices import Leave, Tell
from .publishing import Publisher, Waits
from .records import Recorder
from .refusals import Refusal, Refused
from .restoring import Restored
from .seating import Seat, Seating
from .store import RecordStore
from .writing import TableWriter

log = logging.getLogger(__name__)

PASS_MESSAGES = 64
"""At most this many messages waiting in the inbox are handled in one pass of the loop,
then written to the journal at once (a busy table writes once per pass, not per move)."""


class Table:
    """A table actor. Start it with `run()` in a task group; talk to it with `post()`."""

    def __init__(self, table_id: str, owner: str, create: CreateTable, *,
                 invite_code: str, config: LobbyConfig, store: RecordStore, seed: int,
                 link: TableLink, clock: Clock, journal: TableJournal,
                 bots: BotPool) -> None:
        self.table_id = table_id
        self.name = create.name
        self.rules = create.rules
        self.turn_seconds = create.turn_seconds
        self.private = create.private
        self.spectators_allowed = create.spectators_allowed
        self.invite_code = invite_code
        self.config = config
        self._link = link
        self._rng = random.Random(seed)
        self.seating = Seating(self.rules.players, owner)
        self.publisher = Publisher(link.to_lobby)
        self.publisher.connect(owner)
        # Its own clocks and computers post through the link too: nothing reaches the
        # table any other way.
        self.clocks = TableClocks(clock, link.to_table)
        self.computers = Computers(table_id, config.bot_time_budget, seed ^ 0x5EED,
                                   link.to_table, bots)
        self.recorder = Recorder(table_id, store)
        self.writer = TableWriter(table_id, journal)
        self.status: TableStatus = "waiting"
        self.state: GameState | None = None
        self.game_names: tuple[str, ...] = ()
        self._turn_started: float | None = 0.0
        """When the seat to move was given its turn (on the table's clock); None after a
        restart until its player is back (the turn timer starts then)."""
        self.stand_in_level: BotLevel = config.stand_in_level
        """The computer that plays for a player who is away or gone: the level of the
        table's own computer players, if it has any (the first one's)."""
        self.hand_seats: tuple[tuple[SeatInfo, ...], ...] = ()
        """Who held each seat when each hand of the game was dealt, by hand number."""
        self._seen: set[str] = set()
        """Players who have read the result of the hand just over."""
        self._inbox: asyncio.Queue[TableMessage] = asyncio.Queue()
        self._tg: asyncio.TaskGroup | None = None
        self._closing: Leave | None = None
        self._for_good = True
        """The table closes for good (not just stopping with the server)."""
        self._restored = False
        self._to_think: tuple[int, int, BotLevel, SeatView, bool] | None = None
        """A computer's move asked for during the pass: started after it (`_think`)."""
        self._info_key: tuple[object, ...] | None = None
        self._infos: tuple[TableInfo, TableInfo] | None = None

    def post(self, message: TableMessage) -> None:
        """Into the inbox (what the link hands over while the table runs)."""
        self._inbox.put_nowait(message)

    # -- the actor's loop ----------------------------------------------------------------
    async def run(self) -> None:
        """Handle messages until the table closes; closed for good, it saves an unfinished
        game on the way out. Each pass handles what waits in the inbox, writes the change
        to the journal, and only then lets out what it tells (`_write_and_tell`)."""
        self._link.open(self.post)
        try:
            async with asyncio.TaskGroup() as tg:
                self._tg = tg
                self.publisher.hold()
                self._publish()
                if self._restored:
                    self._advance()  # computers play on at once; players' turns wait
                await self._write_and_tell()
                while self._closing is None:
                    message = await self._inbox.get()
                    self.publisher.hold()
                    self._handle_safely(message)
                    for _ in range(PASS_MESSAGES - 1):
                        if self._closing is not None or self._inbox.empty():
                            break
                        self._handle_safely(self._inbox.get_nowait())
                    await self._write_and_tell()
                self.clocks.stop()
                if self._for_good:
                    await self._save_unfinished()
        except Exception:
            log.exception("table %s crashed", self.table_id)
        finally:
            self.publisher.release()
            self._tg = None
            # The link holds `self.post`: a cycle that only the garbage collector would
            # free, and the server keeps it from looking (server/memory.py). Shut, the
            # link refuses what still comes, and the table and its game go as soon as
            # the lobby forgets it.
            self._link.shut()
            self.clocks.close()
            self.computers.close()
            while not self._inbox.empty():
                self._link.to_table(self._inbox.get_nowait())
            self._link.to_lobby(TableClosed(self.table_id, self.invite_code))

    async def _write_and_tell(self) -> None:
        """The pass's changes are durable (or the journal failed and said so): tell."""
        if self._closing is not None and self._for_good:
            await self.writer.gone()
        else:
            # Told from the journal's answer (a pass before this task wakes), or here
            # when there was nothing to write.
            await self.writer.write(self, then=self.publisher.release)
        self.publisher.release()
        record = self.recorder.due()
        if record is not None and self._tg is not None:
            self._tg.create_task(self.recorder.store(record, finished=True))
        self._start_thinking()

    def _handle_safely(self, message: TableMessage) -> None:
        try:
            self._handle(message)
        except Exception:
            log.exception("table %s failed on %r", self.table_id, message)
            self._close(Leave.TABLE_FAILED)

    def _handle(self, message: TableMessage) -> None:
        if isinstance(message, FromMember):
            if message.command_id:
                self._link.to_lobby(Acked(message.command_id))
            try:
                self._command(message.name, message.command, message.by_code)
            except Refused as exc:
                self._refuse(message, exc)
            except Exception:
                log.exception("table %s could not do %r", self.table_id, message.command)
                self._refuse(message, Refused(Refusal.TABLE_FAILED))
        elif isinstance(message, Attach):
            self._attach(message.name)
        elif isinstance(message, Detach):
            self._detach(message.name)
        elif isinstance(message, GraceOver):
            self._grace_over(message.name, message.away_since)
        elif isinstance(message, CloseNow):
            self._close(message.reason, message.params, for_good=message.for_good)
        elif not self.clocks.is_current(message.generation):
            return  # a clock that was stopped or replaced after it went off
        elif isinstance(message, BotMoved):
            self._computer_moved(message.seat, message.action, message.stand_in)
        elif isinstance(message, ThinkNow):
            self._think(message.seat, stand_in=message.stand_in)
        elif isinstance(message, TimerRanOut):
            self._time_ran_out(message.seat)
        else:
            self._deal()

    def _refuse(self, message: FromMember, refused: Refused) -> None:
        self.publisher.answer(message.name, Rejected.because(message.command, refused))

    # -- what members see ----------------------------------------------------------------
    def infos(self) -> tuple[TableInfo, TableInfo]:
        """The table's entry without and with the invite code; rebuilt only when the seats,
        status, spectators, owner or votes changed (not on every move)."""
        seating = self.seating
        key = (self.status, seating.key())
        if key != self._info_key:
            public = TableInfo(
                table_id=self.table_id, name=self.name, owner=seating.owner, rules=self.rules,
                seats=seating.infos(self.stand_in_level), status=self.status,
                private=self.private, spectators_allowed=self.spectators_allowed,
                spectators=tuple(seating.spectators), turn_seconds=self.turn_seconds,
                invite_code=None, rematch_votes=tuple(seating.rematch_votes))
            self._infos = (public, replace(public, invite_code=self.invite_code))
            self._info_key = key
        assert self._infos is not None
        return self._infos

    def _publish(self) -> None:
        """Every connected member gets their own TableUpdate. Called after every change."""
        public, players = self.infos()
        self.publisher.publish(public, players, self.state, self.seating.seat_of, self._waits(),
                               self.hand_seats)

    def _turn_end(self) -> float | None:
        """When the turn timer of the seat to move runs out (None: the table has none, or
        it has not started)."""
        if self.turn_seconds is None or self._turn_started is None:
            return None
        return self._turn_started + self.turn_seconds * self.config.timer_scale

    def _reconnect_end(self, seat: int) -> float | None:
        """Until when a turn of `seat` waits for its dropped player (None: not away)."""
        held = self.seating.seats[seat]
        return None if held.away_since is None else held.back_by

    def _waits(self) -> Waits:
        """Seconds left on the turn timer and the reconnect wait of the seat to move."""
        player = self._to_move()
        if player is None or self.seating.seats[player].name is None:
            return (None, None)
        now = self.clocks.now()
        turn_end, back = self._turn_end(), self._reconnect_end(player)
        turn_left = None if turn_end is None else max(0.0, turn_end - now)
        back_left = None if back is None or back <= now else back - now
        if back_left is not None and turn_left is not None:
            back_left = min(back_left, turn_left)
        return (turn_left, back_left)

    # -- commands --------------------------------------------------------------------------
    def _command(self, name: str, command: Command, by_code: bool) -> None:
        if self._closing is not None:
            raise Refused(Refusal.TABLE_CLOSING, table_id=self.table_id)
        if isinstance(command, JoinSeat | JoinByCode):
            self._join(name, command, by_code)
            return
        if isinstance(command, Spectate):
            self._spectate(name, by_code)
            return
        if name not in self.publisher.connected and self.seating.seat_of(name) is None:
            raise Refused(Refusal.NOT_AT_TABLE, table_id=self.table_id)
        if isinstance(command, Act):
            self._act(name, command.action)
        elif isinstance(command, Resync):
            if command.seen < self.publisher.seq:
                public, players = self.infos()
                self.publisher.resend(name, public, players, self.state, self.seating.seat_of,
                                      self._waits(), self.hand_seats)
        elif isinstance(command, LeaveTable):
            self._leave(name, Leave.YOU_LEFT)
        elif isinstance(command, SendChat):
            line = ChatLine(name, command.text, self.table_id, time.time())
            self.publisher.say(ChatPosted(line))
            self.writer.said(line)
        elif isinstance(command, AddBot):
            self._owner_only(name, "add computer players")
            self._not_playing("change the seats")
            self.seating.add_bot(command.seat, command.level)
            self._publish()
        elif isinstance(command, RemoveBot):
            self._owner_only(name, "remove computer players")
            self._not_playing("change the seats")
            self.seating.remove_bot(command.seat)
            self._publish()
        elif isinstance(command, StartGame):
            self._owner_only(name, "start the game")
            self._start_game()
        elif isinstance(command, Rematch):
            self._rematch(name, command.agree)
        elif isinstance(command, HandSeen):
            self._hand_seen(name, command.hand)
        else:
            raise Refused(Refusal.NOT_A_TABLE_COMMAND, command=type(command).__name__)

    def _owner_only(self, name: str, what: str) -> None:
        if name != self.seating.owner:
            raise Refused(Refusal.OWNER_ONLY, owner=self.seating.owner, what=what)

    def _not_playing(self, what: str) -> None:
        if self.status == "playing":
            raise Refused(Refusal.GAME_STARTED, what=what)

    def _check_private(self, name: str, by_code: bool) -> None:
        if self.private and not by_code and not self.seating.is_member(name):
            raise Refused(Refusal.PRIVATE_TABLE, table_id=self.table_id)

    def _join(self, name: str, command: JoinSeat | JoinByCode, by_code: bool) -> None:
        self._check_private(name, by_code)
        seating = self.seating
        current = seating.seat_of(name)
        wanted = command.seat if isinstance(command, JoinSeat) else None
        if current is not None and (wanted is None or wanted == current):
            if isinstance(command, JoinByCode):
                self.publisher.connect(name)
                self._publish()
                return
            raise Refused(Refusal.ALREADY_SEATED, seat=current)
        if self.status == "playing":
            if isinstance(command, JoinByCode) and (self.spectators_allowed
                                                    or name == seating.owner):
                self._spectate(name, by_code)
                return
            if not self.spectators_allowed:
                raise Refused(Refusal.STARTED_NO_SPECTATORS)
            raise Refused(Refusal.STARTED_WATCH_ONLY)
        if wanted is None:
            wanted = seating.first_free()
            if wanted is None:
                if isinstance(command, JoinByCode) and self.spectators_allowed:
                    self._spectate(name, by_code)
                    return
                raise Refused(Refusal.NO_FREE_SEAT, table_id=self.table_id)
        seating.sit(name, wanted)
        self.publisher.connect(name)
        self._publish()

    def _spectate(self, name: str, by_code: bool) -> None:
        if name in self.seating.spectators:
            raise Refused(Refusal.ALREADY_WATCHING, table_id=self.table_id)
        if not self.spectators_allowed and name != self.seating.owner:
            raise Refused(Refusal.NO_SPECTATORS, table_id=self.table_id)
        self._check_private(name, by_code)
        self.seating.watch(name, playing=self.status == "playing")
        self.publisher.connect(name)
        self._publish()

    def _leave(self, name: str, reason: Leave) -> None:
        playing = self.status == "playing"
        seat = self.seating.leave(name, self.stand_in_level if playing else None)
        if seat is not None:
            if playing:
                self.publisher.tell_all(
                    Notice(Tell.LEFT_FOR_COMPUTER, {"name": name, "seat": seat}), but=name)
            self.clocks.end_grace(name)
        if self.publisher.disconnect(name):
            self.publisher.answer(name, TableLeft(self.table_id, reason))
        self._after_someone_left(name)
        if seat is not None and self._to_move() == seat:
            self._advance()

    def _after_someone_left(self, name: str) -> None:
        if not self.seating.humans():
            self._close(Leave.NOBODY_LEFT)
            return
        owner = self.seating.pass_ownership(name)
        if owner is not None:
            self.publisher.tell(owner, Notice(Tell.NOW_OWNER, {"table": self.name}))
        self._publish()

    # -- players connecting and dropping ---------------------------------------------------
    def _attach(self, name: str) -> None:
        seating = self.seating
        seat = seating.seat_of(name)
        if seat is None and name not in seating.spectators:
            return
        self.publisher.connect(name)
        was_away = seat is not None and seating.seats[seat].away_since is not None
        if seat is not None:
            seating.seats[seat].away_since = seating.seats[seat].back_by = None
            self.clocks.end_grace(name)
        elif seating.away_watchers.pop(name, None) is not None:
            self.clocks.end_grace(name)
        to_move = was_away and self._to_move() == seat
        if to_move and self._turn_started is None:
            self._turn_started = self.clocks.now()  # back after a restart: the timer starts
        self._publish()
        if to_move:
            self._advance()

    def _detach(self, name: str) -> None:
        if not self.publisher.disconnect(name):
            return
        seating = self.seating
        seat = seating.seat_of(name)
        if seat is None:
            if name in seating.spectators:
                seating.spectators.remove(name)
                self._after_someone_left(name)
            return
        held = seating.seats[seat]
        held.away_since = self.clocks.start_grace(name, self.config.grace_seconds)
        held.back_by = held.away_since + self.config.reconnect_wait_seconds
        self._publish()
        if self._to_move() == seat:
            self._advance()

    def _grace_over(self, name: str, since: float) -> None:
        seat = self.seating.seat_of(name)
        if seat is None and self.seating.away_watchers.get(name) == since:
            self._leave(name, Leave.AWAY_TOO_LONG)  # a restored table's spectator
            return
        if seat is None or self.seating.seats[seat].away_since != since:
            return
        self.clocks.end_grace(name)
        self._leave(name, Leave.AWAY_TOO_LONG)

    # -- the game --------------------------------------------------------------------------
    def _start_game(self) -> None:
        self._not_playing("start another game")
        if not self.seating.full:
            raise Refused(Refusal.SEATS_EMPTY)
        self.state = GameState.new_game(self.rules, self._rng)
        self.game_names = self.seating.names()
        levels = [s.bot_level for s in self.seating.seats if s.name is None and s.bot_level]
        self.stand_in_level = levels[0] if levels else self.config.stand_in_level
        self.hand_seats = ()
        self._note_hand_seats()
        self.status = "playing"
        self._turn_started = self.clocks.now()
        self.seating.rematch_votes.clear()
        self.recorder.new_game()
        self._publish()
        self._advance()

    def _to_move(self) -> int | None:
        if self.state is None or self.status != "playing":
            return None
        player = self.state.current_player()
        return player if player >= 0 else None

    def _act(self, name: str, action: Action) -> None:
        seat = self.seating.seat_of(name)
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
        self.recorder.person_decided = True
        self._changed()

    def _computer_moved(self, seat: int, action: Action, stand_in: bool) -> None:
        assert self.state is not None
        self.state.apply_action(action)
        held = self.seating.seats[seat]
        if stand_in and held.name is not None and held.away_since is None:
            self.publisher.tell(held.name, Notice(
                Tell.TIMED_OUT_PLAYED, {"action": str(action)}, "warning"))
        self._changed()

    def _readers(self) -> list[str]:
        """Seated players, here and connected, who have not yet read the hand's result."""
        return [s.name for s in self.seating.seats if s.name is not None
                and s.away_since is None and s.name in self.publisher.connected
                and s.name not in self._seen]

    def _hand_seen(self, name: str, hand: int) -> None:
        """`name` has read the result of hand `hand`: once everyone has, deal the next."""
        state = self.state
        if (state is None or self.status != "playing" or state.current_player() != CHANCE
                or hand != state.hand_number or self.seating.seat_of(name) is None):
            return  # late or early: nothing to wait for
        self._seen.add(name)
        if not self._readers():
            self._deal()

    def _deal(self) -> None:
        assert self.state is not None
        self._seen.clear()
        self.state.deal(self._rng)
        self._note_hand_seats()
        self._changed()

    def _note_hand_seats(self) -> None:
        """Remember who plays the hand just dealt: past hands keep their players' names."""
        assert self.state is not None
        seats = tuple(SeatInfo(s.name, s.bot_level if s.name is None else None)
                      for s in self.seating.seats)
        missing = self.state.hand_number + 1 - len(self.hand_seats)
        if missing > 0:
            self.hand_seats += (seats,) * missing

    def _changed(self) -> None:
        """After a move: count a finished hand, tell everyone, and set the next clock."""
        assert self.state is not None
        if self.state.current_player() < 0:
            self._link.to_lobby(Counted(hands=1))
        self._turn_started = self.clocks.now()
        self._publish()
        self._advance()

    def _advance(self) -> None:
        """Set the clock for whatever the game waits on now."""
        generation = self.clocks.restart()
        state = self.state
        if state is None or self.status != "playing":
            return
        if state.is_terminal():
            self._finish_game()
            return
        player = state.current_player()
        if player == CHANCE:
            pause = self.config.hand_pause
            if self._readers():
                pause = max(pause, self.config.hand_result_seconds)
            if pause > 0:
                self.clocks.post_after(pause, DealNow(generation))
            else:
                self.post(DealNow(generation))  # readers still see the hand's end
            return
        seat = self.seating.seats[player]
        now = self.clocks.now()
        turn_end = self._turn_end()
        back = self._reconnect_end(player)
        if seat.name is None:
            self._think_later(player, stand_in=False, delay=self._computer_delay())
        elif back is not None and (turn_end is None or back < turn_end):
            # A dropped player's turn waits for them (reconnecting hands it back, `_attach`);
            # then the stand-in plays. The turn timer, if any, is not stopped by the drop.
            if back > now:
                self.clocks.post_after(back - now, ThinkNow(generation, player, True))
            else:
                self._think_later(player, stand_in=True, delay=self._computer_delay())
        elif turn_end is not None:
            self.clocks.post_after(turn_end - now, TimerRanOut(generation, player))

    def _computer_delay(self) -> float:
        """How long a computer waits before its move: `bot_delay`, and when it leads a new
        trick at least `trick_pause`, so everyone sees the trick just taken."""
        state = self.state
        assert state is not None
        trick = state.current_trick
        if trick is not None and not trick.plays and state.tricks:
            return max(self.config.bot_delay, self.config.trick_pause)
        return self.config.bot_delay

    def _time_ran_out(self, seat: int) -> None:
        """The turn timer of `seat` ran out. In the auction the seat passes (or bids the
        least it may, where the rules force a bid): a computer does not bid for a person.
        Otherwise the stand-in computer chooses the move."""
        state = self.state
        assert state is not None
        if state.phase is not Phase.BID:
            self._think_later(seat, stand_in=True, delay=0)
            return
        legal = state.legal_actions()
        action = Action.make_pass()
        if action not in legal:
            action = min((a for a in legal if a.bid is not None), key=lambda a: a.bid or 0)
        state.apply_action(action)
        name = self.seating.seats[seat].name
        if name is not None:
            notice = Notice(Tell.TIMED_OUT_PASSED, {}, "warning") if action.kind == "pass" \
                else Notice(Tell.TIMED_OUT_BID, {"bid": action.bid or 0}, "warning")
            self.publisher.tell(name, notice)
        self._changed()

    def _think_later(self, seat: int, *, stand_in: bool, delay: float) -> None:
        """A computer plays `seat` after a pause (so humans can follow)."""
        if delay > 0:
            self.clocks.post_after(delay, ThinkNow(self.clocks.generation, seat, stand_in))
        else:
            self._think(seat, stand_in=stand_in)

    def _think(self, seat: int, *, stand_in: bool) -> None:
        """A computer's move for `seat`, chosen off the event loop from the seat's view."""
        assert self.state is not None and self._tg is not None
        held = self.seating.seats[seat]
        level = self.stand_in_level if stand_in or held.bot_level is None \
            else held.bot_level
        self._to_think = (self.clocks.generation, seat, level, self.state.view(seat), stand_in)

    def _start_thinking(self) -> None:
        """The computer asked for in the pass starts once the pass is out, so the readers
        of what the pass told go first (a quick level decides in the task, an expert in a
        worker process; measured with bots that do not pause, when they thought in a
        thread: a player's round trip, p99 2 ms -> 0.1 ms)."""
        asked, self._to_think = self._to_think, None
        if asked is not None and self.clocks.is_current(asked[0]) and self._tg is not None:
            self.clocks.work(self._tg.create_task(self.computers.choose(*asked)))

    def _finish_game(self) -> None:
        state = self.state
        assert state is not None
        outcome = state.outcome()
        assert outcome is not None
        self.status = "finished"
        self._link.to_lobby(Counted(games=1))
        winners = tuple(self.game_names[i] for i in range(self.rules.players)
                        if self.rules.side_of(i) == outcome.winner)
        self.publisher.tell_all(GameFinished(self.table_id, outcome, winners, state.scores,
                                             self.publisher.seq))
        self.recorder.finished(state, self.game_names)  # stored after this pass's write
        self._publish()

    def _rematch(self, name: str, agree: bool) -> None:
        if self.status != "finished":
            raise Refused(Refusal.REMATCH_NOT_OVER)
        if self.seating.vote(name, agree):
            if not self.seating.full:
                self._publish()
                raise Refused(Refusal.REMATCH_SEATS_EMPTY)
            self._start_game()
        else:
            self._publish()

    # -- closing -----------------------------------------------------------------------------
    async def _save_unfinished(self) -> None:
        if self.state is not None and self.status == "playing":
            record = self.recorder.take(self.state, self.game_names)
            if record is not None:
                await self.recorder.store(record, finished=False)

    def _close(self, reason: Leave, params: Mapping[str, Param] | None = None, *,
               for_good: bool = True) -> None:
        if self._closing is not None:
            return
        self._closing = reason
        self._for_good = for_good
        self.clocks.stop()
        for name in list(self.publisher.connected):
            self.publisher.disconnect(name)
            self.publisher.answer(name, TableLeft(self.table_id, reason, params or {}))

    # -- after a restart -------------------------------------------------------------------
    def restore(self, saved: Restored) -> None:
        """Take up the table as the journal kept it (`restoring.read_saved`), before `run`.

        Its players and spectators are away since now: each keeps their place for
        `restart_grace_seconds`, and a turn of a player waits as long (its timer starts
        when they are back). Computers play on as soon as the table runs."""
        seating = self.seating
        seating.seats = [Seat(s.name, s.bot_level) for s in saved.seats]
        seating.owner = saved.owner
        seating.spectators = list(saved.spectators)
        seating.rematch_votes = list(saved.rematch_votes)
        self.stand_in_level = saved.stand_in_level
        self.status = saved.status
        self.game_names = saved.game_names
        self.hand_seats = saved.hand_seats
        self.state = saved.state
        if self.state is not None:
            self._note_hand_seats()  # every hand dealt has its players, even if not kept
        self.recorder.restored(self.state, self.game_names, saved.status,
                               saved.person_decided)
        self.publisher.connected.clear()
        self.publisher.chat.extend(saved.chat)
        grace = self.config.restart_grace_seconds
        for held in seating.seats:
            if held.name is not None:
                held.away_since = self.clocks.start_grace(held.name, grace)
                held.back_by = held.away_since + grace
        for name in seating.spectators:
            seating.away_watchers[name] = self.clocks.start_grace(name, grace)
        self._turn_started = None
        self._restored = True
        self.writer.prime(self)
