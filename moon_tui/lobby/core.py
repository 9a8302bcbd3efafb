"""A table's core: `TableState.handle(message, now)` -> the state and its effects.

Everything a table decides is decided here, one message at a time: who sits where, what a
move does to the game, what each member is told, what the game waits on next. The core
performs nothing. It does not read a clock (`now` comes with each message), post, write,
store or start a task: it returns what it wants done as effects (`effects.py`), in order,
and the shell (`table.py`) does them. So a table's behaviour can be read, and tested,
as a function from messages to effects.

The core calls three helpers, each with one job, and edits them only through their
methods: `Seating` (`seating.py`: seats, bots and stand-ins, ownership, rematch votes),
`Publisher` (`publishing.py`: each member's own view after every change, numbered) and
the clock helpers (`clocks.py`: when a turn runs out, what the seat to move waits on).
`Recorder` (`records.py`) hands each game's record out once.

A move: `FromMember(name, Act)` → `_act` → `GameState.apply_action` → `_changed` →
`_publish` (a `Send(ToMember(TableUpdate))` per member) → `_advance` (a `Wait`, or a
`Think` for a computer).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..bots.claim import ClaimProof, can_claim
from ..rules import CHANCE, Action, Breach, GameState, IllegalActionError, Phase, RuleBroken
from ..rules.illegal import Param
from ..rules.seat_changes import SeatChange, Why, decisions_in
from . import clocks
from .config import LobbyConfig
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
from .handover import Asked, hand_over
from .internal import (
    Attach,
    BotMoved,
    ClaimChecked,
    CloseNow,
    Counted,
    DealNow,
    Detach,
    FromMember,
    GraceOver,
    HandDealt,
    TableMessage,
    TableOutput,
    ThinkNow,
    TimerRanOut,
)
from .joining import Door, JoinHow, joining, may_watch
from .messages import (
    Act,
    AddBot,
    BotLevel,
    ChatLine,
    ChatPosted,
    Claim,
    Command,
    CreateTable,
    GameFinished,
    HandOver,
    HandSeen,
    JoinByCode,
    JoinSeat,
    LeaveTable,
    Notice,
    OpenSeats,
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
from .practice import start_of
from .publishing import Publisher
from .records import Recorder
from .refusals import Refusal, Refused, echoed
from .restoring import Restored
from .seating import Seat, Seating, bot_name
from .writing import ROW_VERSION

log = logging.getLogger(__name__)


class TableState:
    """Everything one table knows. Changed only by `handle` (and `begin`, `restore`)."""

    def __init__(self, table_id: str, owner: str, create: CreateTable, *,
                 invite_code: str, config: LobbyConfig, seed: int) -> None:
        self.table_id = table_id
        self.name = create.name
        self.rules = create.rules
        self.turn_seconds = create.turn_seconds
        self.private = create.private
        self.spectators_allowed = create.spectators_allowed
        self.invite_code = invite_code
        self.config = config
        self._rng = random.Random(seed)
        self._effects: list[Effect] = []
        self._now = 0.0
        self.seating = Seating(self.rules.players, owner)
        self.publisher = Publisher(self._effects)
        self.publisher.connect(owner)
        self.play_on = create.play_on
        """Start the first game from a saved game's position (`practice.py`)."""
        self.practice = create.practice or create.play_on is not None
        """One person with computer players, hints at hand: never rated nor saved."""
        self.recorder = Recorder(table_id, rated=create.rated and not self.practice,
                                 kept=not self.practice)
        if create.play_on is not None:
            self._seat_play_on(owner, create.play_on.seat, create.play_on.level)
        self.status: TableStatus = "waiting"
        self.game: GameState | None = None
        self.game_names: tuple[str, ...] = ()
        self.generation = 0
        """The number of what the game waits on now (see `clocks.py`)."""
        self._turn_started: float | None = 0.0
        """When the seat to move was given its turn; None after a restart until its
        player is back (the turn timer starts then)."""
        self.stand_in_level: BotLevel = config.stand_in_level
        """The computer that plays for a player who is away or gone: the level of the
        table's own computer players, if it has any (the first one's)."""
        self.hand_seats: tuple[tuple[SeatInfo, ...], ...] = ()
        """Who held each seat when each hand of the game was dealt, by hand number."""
        self._seen: set[str] = set()
        """Players who have read the result of the hand just over."""
        self.closing: Leave | None = None
        self.for_good = True
        """The table closes for good (not just stopping with the server)."""
        self.open_seats = False
        """The owner lets newcomers take a computer's seat during the game."""
        self.seat_changes: list[SeatChange] = []
        """Who played a seat of this game when it was not the person dealt in (RECORD.md
        `seat_changes`), in the order of the game."""
        self._handover_votes: dict[int, frozenset[str]] = {}
        """Per absent player's seat, who asked that a computer play it at once."""
        self._restored = False
        self._claiming: int | None = None
        """The generation a claim's proof was asked in (one proof at a time)."""
        self._info_key: tuple[object, ...] | None = None
        self._infos: tuple[TableInfo, TableInfo] | None = None

    # -- the step ------------------------------------------------------------------------
    def handle(self, message: TableMessage, now: float) -> tuple[TableState, list[Effect]]:
        """What `message` does to the table at time `now`, and the effects it asks for."""
        self._now = now
        try:
            self._handle(message)
        except Exception:
            log.exception("table %s failed on %r", self.table_id, message)
            self._close(Leave.TABLE_FAILED)
        return self, self._take()

    def begin(self, now: float) -> list[Effect]:
        """The table starts running: everyone is told; a restored table's computers
        play on at once (players' turns wait for them); a play-on's game starts."""
        self._now = now
        if self.play_on is not None and not self._restored:
            try:
                self._start_game()  # (which tells everyone)
            except Exception:
                log.exception("table %s could not play on", self.table_id)
                self._close(Leave.TABLE_FAILED)
            return self._take()
        self._publish()
        if self._restored:
            self._advance()
        return self._take()

    def resume(self, now: float) -> list[Effect]:
        """The table waited for its journal (a full disk: `table.py`), and its players
        saw nothing meanwhile: the turn to play starts now, everyone is told again, and
        what the game waits on is set afresh (timers that went off meanwhile are stale)."""
        self._now = now
        if self._turn_started is not None:
            self._turn_started = now
        self._publish()
        self._advance()
        return self._take()

    def _seat_play_on(self, owner: str, seat: int, level: BotLevel) -> None:
        """A play-on's seats: its creator where they chose, computers in the others."""
        if seat != 0:
            self.seating.sit(owner, seat)
        for other in range(self.rules.players):
            if other != seat:
                self.seating.add_bot(other, level)

    def _take(self) -> list[Effect]:
        effects = list(self._effects)
        self._effects.clear()  # the same list: the publisher appends to it too
        return effects

    def _send(self, output: TableOutput) -> None:
        self._effects.append(Send(output))

    def is_current(self, generation: int) -> bool:
        return generation == self.generation

    def _handle(self, message: TableMessage) -> None:
        if isinstance(message, FromMember):
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
            self._detach(message.name, kicked=message.kicked)
        elif isinstance(message, GraceOver):
            self._grace_over(message.name, message.away_since)
        elif isinstance(message, CloseNow):
            self._close(message.reason, message.params, for_good=message.for_good)
        elif not self.is_current(message.generation):
            return  # a wait that was stopped or replaced after it went off
        elif isinstance(message, BotMoved):
            self._computer_moved(message.seat, message.action, message.stand_in)
        elif isinstance(message, ThinkNow):
            self._think(message.seat, stand_in=message.stand_in)
        elif isinstance(message, TimerRanOut):
            self._time_ran_out(message.seat)
        elif isinstance(message, ClaimChecked):
            self._claim_checked(message)
        else:
            self._deal()

    def _refuse(self, message: FromMember, refused: Refused) -> None:
        self.publisher.answer(message.name, Rejected.because(message.command, refused))

    # -- what members see ----------------------------------------------------------------
    def infos(self) -> tuple[TableInfo, TableInfo]:
        """The table's entry without and with the invite code; rebuilt only when the seats,
        status, spectators, owner or votes changed (not on every move)."""
        seating = self.seating
        key = (self.status, seating.key(), self.open_seats)
        if key != self._info_key:
            public = TableInfo(
                table_id=self.table_id, name=self.name, owner=seating.owner, rules=self.rules,
                seats=seating.infos(self.stand_in_level), status=self.status,
                private=self.private, spectators_allowed=self.spectators_allowed,
                spectators=tuple(seating.spectators), turn_seconds=self.turn_seconds,
                invite_code=None, rematch_votes=tuple(seating.rematch_votes),
                rated=self.recorder.rated, open_seats=self.open_seats,
                practice=self.practice,
                spectators_away=tuple(n for n in seating.spectators
                                      if n in seating.away_watchers))
            self._infos = (public, replace(public, invite_code=self.invite_code))
            self._info_key = key
        assert self._infos is not None
        return self._infos

    def _publish(self) -> None:
        """Every connected member gets their own TableUpdate. Called after every change."""
        public, players = self.infos()
        self.publisher.publish(public, players, self.game, self.seating.seat_of, self._waits(),
                               self.hand_seats)

    def _turn_end(self) -> float | None:
        return clocks.turn_end(self._turn_started, self.turn_seconds, self.config.timer_scale)

    def _waits(self) -> clocks.Waits:
        player = self._to_move()
        if player is None or self.seating.held(player).name is None:
            return (None, None)
        back_by = self.seating.held(player).back_by
        # An absent player's turn waits for them; the turn timer counts only when here.
        return clocks.waits(self._now, None if back_by is not None else self._turn_end(),
                            back_by)

    # -- commands --------------------------------------------------------------------------
    def _command(self, name: str, command: Command, by_code: bool) -> None:
        if self.closing is not None:
            raise Refused(Refusal.TABLE_CLOSING, table_id=self.table_id)
        if isinstance(command, JoinSeat | JoinByCode):
            self._join(name, command, by_code)
            return
        if isinstance(command, Spectate):
            self._spectate(name, by_code)
            return
        if not self.publisher.is_connected(name) and self.seating.seat_of(name) is None:
            raise Refused(Refusal.NOT_AT_TABLE, table_id=self.table_id)
        if isinstance(command, Act):
            self._act(name, command.action)
        elif isinstance(command, Resync):
            if command.seen < self.publisher.seq:
                public, players = self.infos()
                self.publisher.resend(name, public, players, self.game, self.seating.seat_of,
                                      self._waits(), self.hand_seats)
        elif isinstance(command, LeaveTable):
            self._leave(name, Leave.YOU_LEFT)
        elif isinstance(command, SendChat):
            line = ChatLine(name, command.text, self.table_id, time.time())
            self.publisher.say(ChatPosted(line))
            self._effects.append(Said(line))
        elif isinstance(command, AddBot | RemoveBot):
            self._owner_only(name)
            self._not_playing()
            if isinstance(command, AddBot):
                self.seating.add_bot(command.seat, command.level)
            else:
                self.seating.remove_bot(command.seat)
            self._publish()
        elif isinstance(command, StartGame):
            self._owner_only(name)
            self._start_game()
        elif isinstance(command, Rematch):
            self._rematch(name, command.agree)
        elif isinstance(command, HandSeen):
            self._hand_seen(name, command.hand)
        elif isinstance(command, Claim):
            self._claim(name)
        elif isinstance(command, HandOver):
            self._hand_over(name, command.seat)
        elif isinstance(command, OpenSeats):
            self._owner_only(name)
            if self.open_seats != command.open:
                self.open_seats = command.open
                self.publisher.tell_all(Notice(Tell.SEATS_OPENED, {"open": int(command.open)}))
            self._publish()
        else:
            raise Refused(Refusal.NOT_A_TABLE_COMMAND, command=type(command).__name__)

    def _owner_only(self, name: str) -> None:
        if name != self.seating.owner:
            raise Refused(Refusal.OWNER_ONLY, owner=self.seating.owner)

    def _not_playing(self) -> None:
        if self.status == "playing":
            raise Refused(Refusal.GAME_STARTED)

    def _door(self) -> Door:
        return Door(self.table_id, self.status == "playing", self.private, self.open_seats,
                    self.spectators_allowed, self.practice)

    def _join(self, name: str, command: JoinSeat | JoinByCode, by_code: bool) -> None:
        wanted = command.seat if isinstance(command, JoinSeat) else None
        join = joining(self.seating, self._door(), name, wanted, by_code=by_code)
        match join.how:
            case JoinHow.TAKE_BACK:
                self._take_back(name)
            case JoinHow.COMPUTER_SEAT:
                assert join.seat is not None
                self.seating.take_computer_seat(name, join.seat)
                self._person_sat(name, join.seat, why="joined", news=Tell.JOINED_SEAT)
                self._back_in_seat(join.seat)
            case JoinHow.WATCH:
                self._spectate(name, by_code)
            case JoinHow.SIT | JoinHow.BACK_TO_VIEW:
                if join.seat is not None:
                    self.seating.sit(name, join.seat)
                self.publisher.connect(name)
                self._publish()

    def _take_back(self, name: str) -> None:
        """`name`, dealt into the game, takes their seat back from the computer."""
        seat = self.seating.take_back(name)
        assert seat is not None
        self._person_sat(name, seat, why="back", news=Tell.TOOK_SEAT_BACK)
        self._tell_chosen(name, seat)
        self._back_in_seat(seat)

    def _person_sat(self, name: str, seat: int, *, why: Why, news: Tell) -> None:
        """`name` plays `seat` from now on, in a computer's place: noted for the record
        (`seat_changes`), and told to the others."""
        self._note_change(seat, name, computer=False, why=why)
        self.publisher.connect(name)
        self.publisher.tell_all(Notice(news, {"name": name, "seat": seat}), but=name)

    def _back_in_seat(self, seat: int) -> None:
        """A person plays `seat` again: from its next decision (a computer thinking on
        it now is called off; its turn timer starts now)."""
        self._handover_votes.pop(seat, None)
        to_move = self._to_move() == seat
        if to_move:
            self._turn_started = self._now
        self._publish()
        if to_move:
            self._advance()

    def _tell_chosen(self, name: str, seat: int) -> None:
        """Tell `name`, back, what the computer chose for them while away (if anything)."""
        chosen, more = self.seating.held(seat).take_chosen()
        if chosen:
            self.publisher.answer(name, Notice(Tell.WHILE_AWAY,
                                               {"actions": ";".join(chosen), "more": more}))

    def _hand_over(self, name: str, seat: int) -> None:
        """The owner, or everyone seated and present, let a computer play the absent
        player's seat at once (`handover.py`)."""
        seating = self.seating
        seat = seating.check_seat(seat)
        present = [n for n in seating.here() if self.publisher.is_connected(n)]
        decided = hand_over(seating, name, seat, playing=self.status == "playing",
                            votes=self._handover_votes.get(seat, frozenset()),
                            present=present)
        if isinstance(decided, Asked):
            self._handover_votes[seat] = decided.votes
            self.publisher.tell_all(Notice(Tell.HANDOVER_ASKED, {
                "name": name, "seat": seat, "votes": decided.agreed,
                "needed": decided.needed}))
            return
        self._handover_votes.pop(seat, None)
        seating.hand_over(seat, self._now)
        self.publisher.tell_all(Notice(Tell.HANDED_OVER, {
            "name": decided.away, "seat": seat, "by": name if decided.by_owner else ""}))
        self._publish()
        if self._to_move() == seat:
            self._advance()

    def _spectate(self, name: str, by_code: bool) -> None:
        may_watch(self.seating, self._door(), name, by_code=by_code)
        self.seating.watch(name, playing=self.status == "playing")
        self.publisher.connect(name)
        self._publish()

    def _leave(self, name: str, reason: Leave) -> None:
        playing = self.status == "playing"
        seat = self.seating.leave(name, self.stand_in_level if playing else None)
        if seat is not None:
            if playing:
                self._note_change(seat, bot_name(self.stand_in_level), computer=True,
                                  why="left")
                self.publisher.tell_all(
                    Notice(Tell.LEFT_FOR_COMPUTER, {"name": name, "seat": seat}), but=name)
            self._effects.append(EndGrace(name))
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
        if seating.seat_of(name) is None and not seating.is_watching(name):
            held = seating.held_seat_of(name)
            if held is not None and self.status == "playing":
                # Away past the grace: the game goes on, the seat is theirs to take back.
                self.publisher.answer(name, Notice(Tell.SEAT_WAITS, {
                    "table": self.name, "table_id": self.table_id, "seat": held}))
            return
        self.publisher.connect(name)
        seat, was_away = seating.came_back(name)
        if was_away:
            self._effects.append(EndGrace(name))
        if not was_away or seat is None:
            self._publish()
            return
        self._note_change(seat, name, computer=False, why="back")
        self._tell_chosen(name, seat)
        self._back_in_seat(seat)

    def _detach(self, name: str, *, kicked: bool = False) -> None:
        if not self.publisher.disconnect(name):
            return
        seating = self.seating
        seat = seating.seat_of(name)
        if seat is None:
            if seating.is_watching(name):
                seating.leave(name, None)
                self._after_someone_left(name)
            return
        self._away(name, self.config.grace_seconds)
        seating.went_away(seat, self._now, self._now + self.config.reconnect_wait_seconds)
        if kicked:
            self._note_change(seat, bot_name(self.stand_in_level), computer=True,
                              why="kicked")
        self._publish()
        if self._to_move() == seat:
            self._advance()

    def _away(self, name: str, seconds: float) -> None:
        self._effects.append(Grace(name, seconds, GraceOver(name, self._now)))

    def _grace_over(self, name: str, since: float) -> None:
        seat = self.seating.seat_of(name)
        if seat is None and self.seating.watcher_away_since(name) == since:
            self._leave(name, Leave.AWAY_TOO_LONG)  # a restored table's spectator
            return
        if seat is None or self.seating.held(seat).away_since != since:
            return
        self._effects.append(EndGrace(name))
        if self.status != "playing":
            self._leave(name, Leave.AWAY_TOO_LONG)
            return
        # The game goes on: a computer plays the seat until its person takes it back
        # (`_take_back`), however long that is.
        self.seating.hold(seat, self.stand_in_level)
        self._handover_votes.pop(seat, None)
        self._note_change(seat, bot_name(self.stand_in_level), computer=True, why="left")
        self.publisher.tell_all(
            Notice(Tell.LEFT_FOR_COMPUTER, {"name": name, "seat": seat, "held": 1}))
        self._after_someone_left(name)
        if self.closing is None and self._to_move() == seat:
            self._advance()

    # -- the game --------------------------------------------------------------------------
    def _start_game(self) -> None:
        self._not_playing()
        if not self.seating.full:
            raise Refused(Refusal.SEATS_EMPTY)
        if self.play_on is not None:
            self.game, self.play_on = start_of(self.play_on), None
        else:
            self.game = GameState.new_game(self.rules, self._rng)
        self.game_names = self.seating.names()
        levels = self.seating.computer_levels()
        self.stand_in_level = levels[0] if levels else self.config.stand_in_level
        self.hand_seats = ()
        self.seat_changes = []
        self._handover_votes.clear()
        self._note_hand_seats()
        self.status = "playing"
        self._turn_started = self._now
        self.seating.start_game()
        self.recorder.new_game()
        self._publish()
        self._advance()

    def _to_move(self) -> int | None:
        if self.game is None or self.status != "playing":
            return None
        player = self.game.current_player()
        return player if player >= 0 else None

    def _act(self, name: str, action: Action) -> None:
        seat = self.seating.seat_of(name)
        if seat is None:
            raise Refused(Refusal.SPECTATOR_CANNOT_PLAY)
        if self.game is None or self.status != "playing":
            raise Refused(Refusal.GAME_NOT_STARTED)
        if not isinstance(action, Action):
            raise Refused(Refusal.NOT_AN_ACTION, action=echoed(action))
        to_move = self.game.current_player()
        if to_move == CHANCE:
            raise Refused.illegal(Breach(RuleBroken.NOT_DEALT))
        if to_move != seat:
            raise Refused.illegal(Breach(RuleBroken.NOT_YOUR_TURN, seat=seat, to_move=to_move))
        self._note_change(seat, name, computer=False, why="back")  # after a timeout
        try:
            self.game.apply_action(action)
        except IllegalActionError as exc:
            raise Refused.illegal(exc.breach) from None
        self.recorder.decided()
        self._changed()

    def _claim(self, name: str) -> None:
        """`name` claims the rest: proven off the table (`Prove`), answered by
        `ClaimChecked` unless the game moved on meanwhile."""
        seat = self.seating.seat_of(name)
        if seat is None:
            raise Refused(Refusal.SPECTATOR_CANNOT_PLAY)
        if self.game is None or self.status != "playing":
            raise Refused(Refusal.GAME_NOT_STARTED)
        if not can_claim(self.game, seat):
            raise Refused(Refusal.CLAIM_NOT_YOUR_LEAD)
        if self._claiming == self.generation:
            raise Refused(Refusal.CLAIM_CHECKING)
        self._claiming = self.generation
        self._effects.append(Prove(self.generation, ClaimProof(self.game.clone(), seat)))

    def _claim_checked(self, checked: ClaimChecked) -> None:
        """A proven claim's plays are applied at once (each a recorded play; the engine
        checks them on a copy first); otherwise the claimant is told why not."""
        self._claiming = None
        game, seat = self.game, checked.seat
        assert game is not None
        name = self.seating.held(seat).name
        tricks = len(game.hand_of(seat))
        proven = checked.checked and bool(checked.plays) and self._claim_holds(checked)
        if not proven:
            if name is not None:
                refused = Refused(Refusal.CLAIM_NOT_PROVEN, tricks=tricks) if checked.checked \
                    else Refused(Refusal.CLAIM_UNCHECKED)
                self.publisher.answer(name, Rejected.because(Claim(self.table_id), refused))
            return
        for action in checked.plays:
            game.apply_action(action)
        self.recorder.decided()
        self.publisher.tell_all(Notice(Tell.CLAIMED, {
            "name": name or "", "seat": seat, "tricks": tricks,
            "plays": tuple(str(a.tile) for a in checked.plays)}))
        self._changed()

    def _claim_holds(self, checked: ClaimChecked) -> bool:
        """The plays end the hand with every trick to the claimant (on a copy)."""
        assert self.game is not None
        copy = self.game.clone()
        before = copy.tricks_won[checked.seat]
        left = len(copy.hand_of(checked.seat))
        try:
            for action in checked.plays:
                copy.apply_action(action)
        except IllegalActionError:
            log.exception("table %s: a claim's plays are not legal", self.table_id)
            return False
        return copy.phase is not Phase.PLAY and copy.tricks_won[checked.seat] == before + left

    def _computer_moved(self, seat: int, action: Action, stand_in: bool) -> None:
        assert self.game is not None
        held = self.seating.held(seat)
        if stand_in and held.name is not None and held.away_since is None:
            self._note_change(seat, bot_name(self.stand_in_level), computer=True,
                              why="timeout")
            self.publisher.tell(held.name, Notice(
                Tell.TIMED_OUT_PLAYED, {"action": str(action)}, "warning"))
        elif held.absent:
            self._for_absent(seat, action)
        self.game.apply_action(action)
        self._changed()

    def _for_absent(self, seat: int, action: Action) -> None:
        """The computer decides `action` for the absent person of `seat`: noted in the
        record and kept to tell them when they are back."""
        held = self.seating.held(seat)
        if held.away_since is not None:
            self._note_change(seat, bot_name(self.stand_in_level), computer=True, why="away")
        held.chose(str(action))

    def _note_change(self, seat: int, name: str, *, computer: bool, why: Why) -> None:
        """From the game's next decision, `seat` is played by `name` (RECORD.md
        `seat_changes`): noted when that is a change (a player's own move after their
        own move is not one)."""
        game = self.game
        if game is None or self.status != "playing" or not game.logs:
            return
        now_playing = next((c for c in reversed(self.seat_changes) if c.seat == seat), None)
        if now_playing is None:
            if not computer and name == self.game_names[seat]:
                return
        elif now_playing.name == name and now_playing.computer == computer:
            return
        log = game.logs[-1]
        self.seat_changes.append(SeatChange(game.hand_number, decisions_in(log), seat,
                                            name, computer, why))

    def _readers(self) -> list[str]:
        """Seated players, here and connected, who have not yet read the hand's result."""
        return [name for name in self.seating.here()
                if self.publisher.is_connected(name) and name not in self._seen]

    def _hand_seen(self, name: str, hand: int) -> None:
        """`name` has read the result of hand `hand`: once everyone has, deal the next."""
        game = self.game
        if (game is None or self.status != "playing" or game.current_player() != CHANCE
                or hand != game.hand_number or self.seating.seat_of(name) is None):
            return  # late or early: nothing to wait for
        self._seen.add(name)
        if not self._readers():
            self._deal()

    def _deal(self) -> None:
        assert self.game is not None
        self._seen.clear()
        self.game.deal(self._rng)
        self._note_hand_seats()
        self._changed()

    def _note_hand_seats(self) -> None:
        """Remember who plays the hand just dealt: past hands keep their players' names."""
        assert self.game is not None
        seats = self.seating.as_dealt()
        missing = self.game.hand_number + 1 - len(self.hand_seats)
        if missing > 0:
            self.hand_seats += (seats,) * missing
        self._send(HandDealt(self.table_id, self.game.hand_number))

    def _changed(self) -> None:
        """After a move: count a finished hand, tell everyone, and set the next wait."""
        assert self.game is not None
        if self.game.current_player() < 0:
            self._send(Counted(hands=1))
        self._turn_started = self._now
        self._publish()
        self._advance()

    def _wait(self, seconds: float, message: TableMessage) -> None:
        self._effects.append(Wait(seconds, message))

    def _advance(self) -> None:
        """Wait for whatever the game waits on now."""
        self.generation += 1
        generation = self.generation
        self._effects.append(StopWaiting())
        game = self.game
        if game is None or self.status != "playing":
            return
        if game.is_terminal():
            self._finish_game()
            return
        player = game.current_player()
        if player == CHANCE:
            pause = self.config.hand_pause
            if self._readers():
                pause = max(pause, self.config.hand_result_seconds)
            self._wait(pause, DealNow(generation))  # at once, readers still see the end
            return
        seat = self.seating.held(player)
        now = self._now
        turn_end = self._turn_end()
        back = seat.back_by
        if seat.name is None:
            self._think_later(player, stand_in=False,
                              delay=clocks.computer_delay(self.config, game))
        elif back is not None:
            # An absent player's turn waits for them until `back_by` (reconnecting hands
            # it back, `_attach`), turn timer or not; then the stand-in plays it.
            if back > now:
                self._wait(back - now, ThinkNow(generation, player, True))
            else:
                self._think_later(player, stand_in=True,
                                  delay=clocks.computer_delay(self.config, game))
        elif turn_end is not None:
            self._wait(turn_end - now, TimerRanOut(generation, player))

    def _time_ran_out(self, seat: int) -> None:
        """The turn timer of `seat` ran out. In the auction the seat passes (or bids the
        least it may, where the rules force a bid): a computer does not bid for a person.
        Otherwise the stand-in computer chooses the move."""
        game = self.game
        assert game is not None
        if game.phase is not Phase.BID:
            self._think_later(seat, stand_in=True, delay=0)
            return
        action = self._least_bid()
        name = self.seating.held(seat).name
        self._note_change(seat, bot_name(self.stand_in_level), computer=True, why="timeout")
        game.apply_action(action)
        if name is not None:
            notice = Notice(Tell.TIMED_OUT_PASSED, {}, "warning") if action.kind == "pass" \
                else Notice(Tell.TIMED_OUT_BID, {"bid": action.bid or 0}, "warning")
            self.publisher.tell(name, notice)
        self._changed()

    def _least_bid(self) -> Action:
        """A pass, or the least bid where the rules force one: what the auction takes
        from a player who does not speak (away, or out of time)."""
        assert self.game is not None
        legal = self.game.legal_actions()
        action = Action.make_pass()
        if action not in legal:
            action = min((a for a in legal if a.bid is not None), key=lambda a: a.bid or 0)
        return action

    def _think_later(self, seat: int, *, stand_in: bool, delay: float) -> None:
        """A computer plays `seat` after a pause (so humans can follow)."""
        if delay > 0:
            self._wait(delay, ThinkNow(self.generation, seat, stand_in))
        else:
            self._think(seat, stand_in=stand_in)

    def _think(self, seat: int, *, stand_in: bool) -> None:
        """A computer's move for `seat`, chosen from the seat's view (off the table)."""
        assert self.game is not None
        held = self.seating.held(seat)
        if held.absent and self.game.phase is Phase.BID:
            # One rule for an absent person: a computer never bids for them.
            action = self._least_bid()
            self._for_absent(seat, action)
            self.game.apply_action(action)
            self._changed()
            return
        level = self.stand_in_level if stand_in or held.bot_level is None \
            else held.bot_level
        self._effects.append(Think(self.generation, seat, level, self.game.view(seat),
                                   stand_in))

    def _finish_game(self) -> None:
        game = self.game
        assert game is not None
        outcome = game.outcome()
        assert outcome is not None
        self.status = "finished"
        self._send(Counted(games=1))
        winners = tuple(self.game_names[i] for i in range(self.rules.players)
                        if self.rules.side_of(i) == outcome.winner)
        self.publisher.tell_all(GameFinished(self.table_id, outcome, winners, game.scores,
                                             self.publisher.seq))
        self._store(self.recorder.take(game, self.game_names, self.seat_changes),
                    finished=True)
        self._publish()

    def _store(self, record: dict[str, Any] | None, *, finished: bool) -> None:
        if record is not None:
            self._effects.append(StoreRecord(record, finished))

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
    def unfinished_record(self) -> dict[str, Any] | None:
        """The record of a game cut short by the table closing for good (once)."""
        if self.game is not None and self.status == "playing":
            return self.recorder.take(self.game, self.game_names, self.seat_changes)
        return None

    def _close(self, reason: Leave, params: Mapping[str, Param] | None = None, *,
               for_good: bool = True) -> None:
        if self.closing is not None:
            return
        self.closing = reason
        self.for_good = for_good
        self.generation += 1
        self._effects.append(StopWaiting())
        for name in self.publisher.members():
            self.publisher.disconnect(name)
            self.publisher.answer(name, TableLeft(self.table_id, reason, params or {}))

    # -- the journal's view ----------------------------------------------------------------
    def row(self) -> dict[str, Any]:
        """The table's own facts, JSON-safe: all a restart needs but its game and chat."""
        seating = self.seating
        game = self.game
        return {
            "version": ROW_VERSION,
            "name": self.name,
            "rules": self.rules.to_dict(),
            "turn_seconds": self.turn_seconds,
            "private": self.private,
            "spectators_allowed": self.spectators_allowed,
            "rated": self.recorder.rated,
            "practice": self.practice,
            "invite_code": self.invite_code,
            "owner": seating.owner,
            "seats": [{"name": s.name, "bot_level": s.bot_level}
                      | ({"held_for": s.held_for} if s.held_for is not None else {})
                      for s in seating.seats],
            "open_seats": self.open_seats,
            "seat_changes": [c.to_dict() for c in self.seat_changes],
            "spectators": list(seating.spectators),
            "rematch_votes": list(seating.rematch_votes),
            "stand_in_level": self.stand_in_level,
            "status": self.status,
            "game_names": list(self.game_names),
            "person_decided": self.recorder.person_decided,
            "first_bidder": None if game is None else game.game_first_bidder,
            "hand_seats": [[[s.name, s.bot_level] for s in seats] for seats in self.hand_seats],
        }

    def row_key(self) -> tuple[object, ...]:
        """Changes whenever `row` may have changed: not on a move, but on a seat, the
        status, a new hand, a new game, a person's first decision in a game."""
        game = self.game
        return (self.status, self.seating.key(), self.stand_in_level, len(self.hand_seats),
                self.game_names, None if game is None else id(game),
                self.recorder.person_decided, self.open_seats, len(self.seat_changes))

    # -- after a restart -------------------------------------------------------------------
    def restore(self, saved: Restored, now: float) -> list[Effect]:
        """Take up the table as the journal kept it (`restoring.read_saved`), before it runs.

        Its players and spectators are away since `now`: each keeps their place for
        `restart_grace_seconds`, and a turn of a player waits as long (its timer starts
        when they are back). Computers play on as soon as the table runs."""
        self._now = now
        self.seating.restored([Seat(s.name, s.bot_level, held_for=s.held_for)
                               for s in saved.seats], saved.owner,
                              list(saved.spectators), list(saved.rematch_votes))
        self.open_seats = saved.open_seats
        self.seat_changes = list(saved.seat_changes)
        self.stand_in_level = saved.stand_in_level
        self.status = saved.status
        self.game_names = saved.game_names
        self.hand_seats = saved.hand_seats
        self.game = saved.state
        if self.game is not None:
            self._note_hand_seats()  # every hand dealt has its players, even if not kept
        self._store(self.recorder.restored(self.game, self.game_names, saved.status,
                                           saved.person_decided, self.seat_changes),
                    finished=True)
        self.publisher.restored(saved.chat)
        grace = self.config.restart_grace_seconds
        for name in self.seating.all_away(now, now + grace):
            self._away(name, grace)
        self._turn_started = None
        self._restored = True
        return self._take()

