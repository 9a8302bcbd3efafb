"""Who plays a seat when its person is not there, tested on the table's core as a function:
one rule for an absent person (their turn waits, then the computer passes in the auction
and plays after it), a seat never lost for good, the owner's or everyone's hand-over, and
the record's `seat_changes`."""

from __future__ import annotations

import dataclasses

from test_lobby import FAST

from moon_tui.lobby.core import TableState
from moon_tui.lobby.effects import EndGrace, Grace, Send, StopWaiting, Think, Wait
from moon_tui.lobby.internal import (
    Attach,
    BotMoved,
    Detach,
    FromMember,
    TableMessage,
    ToMember,
)
from moon_tui.lobby.journal import SavedTable
from moon_tui.lobby.messages import (
    Act,
    AddBot,
    CreateTable,
    Event,
    HandOver,
    JoinSeat,
    LeaveTable,
    Notice,
    OpenSeats,
    Rejected,
    StartGame,
    TableUpdate,
)
from moon_tui.lobby.notices import Tell
from moon_tui.lobby.restoring import read_saved
from moon_tui.ratings.game import result_of
from moon_tui.rules import Action, Phase, Rules
from moon_tui.rules.record import record_of
from moon_tui.rules.replay import replay_game

ABSENT = dataclasses.replace(FAST, grace_seconds=120, reconnect_wait_seconds=30,
                             restart_grace_seconds=600, timer_scale=1)
RULES = Rules.make(target=60, moon_wins_game=False)


class Run:
    """A table's core and the shell's part played by hand: its waits go off when the
    test moves the time on, its computers answer with their first legal choice."""

    def __init__(self, core: TableState, now: float = 0.0) -> None:
        self.core = core
        self.now = now
        self.wait: tuple[float, TableMessage] | None = None
        self.graces: dict[str, tuple[float, TableMessage]] = {}
        self.thinking: Think | None = None
        self.told: dict[str, list[Event]] = {}
        self.records: list[dict[str, object]] = []

    def feed(self, effects: list[object]) -> None:
        for effect in effects:
            if isinstance(effect, Wait):
                self.wait, self.thinking = (self.now + effect.seconds, effect.message), None
            elif isinstance(effect, StopWaiting):
                self.wait, self.thinking = None, None
            elif isinstance(effect, Grace):
                self.graces[effect.name] = (self.now + effect.seconds, effect.message)
            elif isinstance(effect, EndGrace):
                self.graces.pop(effect.name, None)
            elif isinstance(effect, Think):
                self.thinking = effect
            elif isinstance(effect, Send) and isinstance(effect.output, ToMember):
                self.told.setdefault(effect.output.name, []).append(effect.output.event)
            elif type(effect).__name__ == "StoreRecord":
                self.records.append(effect.record)  # type: ignore[attr-defined]

    def send(self, message: TableMessage) -> None:
        self.feed(self.core.handle(message, self.now)[1])

    def say(self, name: str, command: object) -> None:
        self.send(FromMember(name, command))  # type: ignore[arg-type]

    def until(self, then: float, *, stop: object = None) -> None:
        """Let time run to `then`: waits go off, computers answer (at most 500 steps)."""
        for _ in range(500):
            if stop is not None and stop():  # type: ignore[operator]
                return
            if self.thinking is not None:
                think, self.thinking = self.thinking, None
                self.send(BotMoved(think.generation, think.seat, eager(think.view.legal),
                                   think.stand_in))
                continue
            due = [(at, m) for at, m in [*([self.wait] if self.wait else []),
                                         *self.graces.values()] if at <= then]
            if not due:
                break
            at, message = min(due, key=lambda d: d[0])
            self.now = max(self.now, at)
            if self.wait is not None and self.wait[1] is message:
                self.wait = None
            self.graces = {n: g for n, g in self.graces.items() if g[1] is not message}
            self.send(message)
        self.now = max(self.now, then)

    def notices(self, name: str, code: Tell) -> list[Notice]:
        return [e for e in self.told.get(name, []) if isinstance(e, Notice) and e.code is code]

    def last_update(self, name: str) -> TableUpdate:
        return [e for e in self.told[name] if isinstance(e, TableUpdate)][-1]

    @property
    def to_move(self) -> int:
        assert self.core.game is not None
        return self.core.game.current_player()


def three_people(turn_seconds: int | None = None, seed: int = 1, rules: Rules = RULES) -> Run:
    """ann's table with bob and cy, the game just started."""
    core = TableState("t1", "ann", CreateTable("t", rules, turn_seconds), invite_code="ABCDEF",
                      config=ABSENT, seed=seed)
    run = Run(core)
    run.feed(core.begin(0.0))
    run.say("bob", JoinSeat("t1", 1))
    run.say("cy", JoinSeat("t1", 2))
    run.say("ann", StartGame("t1"))
    return run


def eager(legal: tuple[Action, ...] | list[Action]) -> Action:
    """A person's choice: the least bid when they may bid, else the first legal choice."""
    bids = [a for a in legal if a.bid is not None]
    return min(bids, key=lambda a: a.bid or 0) if bids else legal[0]


def play_to(run: Run, seat: int, phase: Phase, *, bid: bool = False) -> None:
    """The people here pass (or with `bid`, bid) or play their first legal choice until
    `seat` is to move in `phase`."""
    for _ in range(300):
        game = run.core.game
        assert game is not None
        if game.current_player() == seat and game.phase is phase:
            return
        to_move = game.current_player()
        if to_move < 0 or run.core.seating.held(to_move).absent \
                or run.core.seating.held(to_move).name is None:
            run.until(run.now + 1)
            continue
        legal = game.legal_actions()
        action = eager(legal) if bid else \
            Action.make_pass() if Action.make_pass() in legal else legal[0]
        run.say(run.core.seating.held(to_move).name or "", Act("t1", action))
    raise AssertionError(f"seat {seat} never came to {phase}")


def bids_of(run: Run, seat: int) -> list[Action]:
    game = run.core.game
    assert game is not None
    view = game.view(seat)
    return [a for s, a in view.bids if s == seat]


def test_an_absent_players_auction_turn_waits_then_the_computer_passes_timer_or_not() -> None:
    for timer in (None, 20):
        run = three_people(turn_seconds=timer)
        play_to(run, 1, Phase.BID)
        run.send(Detach("bob"))
        run.until(run.now + 25)
        assert bids_of(run, 1) == [], "the turn waits 30 s for bob, whatever the timer"
        run.until(run.now + 5)
        assert bids_of(run, 1) == [Action.make_pass()], "then the computer passes for him"


def test_after_a_restart_an_absent_players_turn_waits_the_restart_grace_timer_or_not() -> None:
    for timer in (None, 20):
        run = three_people(turn_seconds=timer)
        play_to(run, 1, Phase.BID)
        assert run.core.game is not None
        saved = SavedTable("t1", run.core.row(),
                           tuple(record_of(run.core.game, run.core.game_names)["hands"]))
        core = TableState("t1", "ann", CreateTable("t", RULES, timer), invite_code="ABCDEF",
                          config=ABSENT, seed=2)
        back = Run(core, 1000.0)
        back.feed(core.restore(read_saved(saved), 1000.0))
        back.feed(core.begin(1000.0))
        back.until(1000.0 + 590)
        assert bids_of(back, 1) == [], "bob's turn waits the 10 minutes the README promises"
        back.until(1000.0 + 600)
        assert bids_of(back, 1) == [Action.make_pass()]


def test_the_owner_hands_an_absent_seat_to_a_computer_at_once_others_vote() -> None:
    run = three_people()
    play_to(run, 1, Phase.BID)
    run.send(Detach("bob"))
    run.say("cy", HandOver("t1", 1))
    assert bids_of(run, 1) == [] and run.notices("ann", Tell.HANDOVER_ASKED)
    run.say("ann", HandOver("t1", 1))
    run.until(run.now)
    assert bids_of(run, 1) == [Action.make_pass()], "the owner's word: at once"
    assert run.notices("cy", Tell.HANDED_OVER)

    run = three_people()
    play_to(run, 0, Phase.BID)
    run.send(Detach("ann"))  # the owner is away: everyone present votes
    run.say("bob", HandOver("t1", 0))
    assert bids_of(run, 0) == []
    run.say("cy", HandOver("t1", 0))
    run.until(run.now)
    assert bids_of(run, 0) == [Action.make_pass()]
    run.say("cy", HandOver("t1", 2))
    assert isinstance(run.told["cy"][-1], Rejected), "nobody is away at seat 2"


def test_a_seat_is_never_lost_and_whoever_comes_back_hears_what_was_chosen() -> None:
    run = three_people()
    play_to(run, 1, Phase.BID)
    run.send(Detach("bob"))
    run.until(run.now + 121)
    play_to(run, 1, Phase.PLAY, bid=True)
    seat = run.core.seating.held(1)
    assert seat.name is None and seat.held_for == "bob", "past the grace a computer holds it"
    assert run.core.infos()[0].seats[1].held_for == "bob"
    run.send(Attach("bob"))
    assert run.notices("bob", Tell.SEAT_WAITS)[-1].params == {
        "table": "t", "table_id": "t1", "seat": 1}
    run.say("bob", JoinSeat("t1"))
    assert run.core.seating.seat_of("bob") == 1
    update = run.last_update("bob")
    assert update.seat == 1 and update.view is not None and update.view.my_turn, \
        "the seat's next decision is his"
    (report,) = run.notices("bob", Tell.WHILE_AWAY)
    assert report.params["actions"].split(";")[0] == "pass"
    assert run.notices("ann", Tell.TOOK_SEAT_BACK)


def test_the_owner_may_open_a_computers_seat_to_a_newcomer() -> None:
    core = TableState("t1", "ann", CreateTable("t", RULES, None), invite_code="ABCDEF",
                      config=ABSENT, seed=1)
    run = Run(core)
    run.feed(core.begin(0.0))
    run.say("ann", AddBot("t1", 1, "easy"))
    run.say("ann", AddBot("t1", 2, "easy"))
    run.say("ann", StartGame("t1"))
    run.say("dan", JoinSeat("t1"))
    assert isinstance(run.told["dan"][-1], Rejected), "not without the owner's leave"
    run.say("dan", OpenSeats("t1"))
    assert isinstance(run.told["dan"][-1], Rejected), "only the owner opens them"
    run.say("ann", OpenSeats("t1"))
    assert core.infos()[0].open_seats
    run.say("dan", JoinSeat("t1"))
    assert core.seating.seat_of("dan") == 1 and run.last_update("dan").seat == 1
    assert [c.why for c in core.seat_changes] == ["joined"]


def test_the_record_says_who_played_and_the_ratings_rank_a_leaver_last() -> None:
    run = three_people(seed=4, rules=Rules.make(target=7))
    run.core.recorder.rated = True
    play_to(run, 2, Phase.BID)
    run.say("cy", LeaveTable("t1"))
    for _ in range(3000):
        game = run.core.game
        assert game is not None
        if game.is_terminal():
            break
        to_move = game.current_player()
        name = None if to_move < 0 else run.core.seating.held(to_move).name
        if name is None:
            run.until(run.now + 10)
        else:
            run.say(name, Act("t1", eager(game.legal_actions())))
    (record,) = run.records
    assert record["seat_changes"] == [{"hand": 0, "at": 2, "seat": 2, "name": "normal bot",
                                       "computer": True, "why": "left"}]
    assert replay_game(record).ok
    result = result_of(record)
    assert result is not None and result.left == (False, False, True)
    assert result.places[2] == 3, "the leaver is ranked last"


def test_a_kick_is_written_in_the_record() -> None:
    run = three_people()
    play_to(run, 0, Phase.BID)
    run.send(Detach("bob", kicked=True))
    change = run.core.seat_changes[-1]
    assert (change.seat, change.computer, change.why) == (1, True, "kicked")
    run.until(run.now + 200)
    assert [c.why for c in run.core.seat_changes] == ["kicked"], "then left: no change"


def test_a_held_seat_and_the_seat_changes_come_back_after_a_restart() -> None:
    run = three_people()
    play_to(run, 1, Phase.BID)
    run.send(Detach("bob"))
    run.until(run.now + 121)
    assert run.core.seating.held(1).held_for == "bob" and run.core.seat_changes
    game = run.core.game
    assert game is not None
    saved = SavedTable("t1", run.core.row(), tuple(record_of(game, run.core.game_names)["hands"]))
    core = TableState("t1", "ann", CreateTable("t", RULES, None), invite_code="ABCDEF",
                      config=ABSENT, seed=2)
    core.restore(read_saved(saved), 1000.0)
    assert core.seating.held(1).held_for == "bob"
    assert core.seat_changes == run.core.seat_changes


def test_every_new_notice_crosses_the_wire() -> None:
    from moon_tui.lobby.codec import decode, encode

    run = three_people()
    play_to(run, 1, Phase.BID)
    run.say("ann", OpenSeats("t1"))
    run.send(Detach("bob"))
    run.until(run.now + 121)
    run.send(Attach("bob"))
    run.say("bob", JoinSeat("t1"))
    notices = [e for events in run.told.values() for e in events if isinstance(e, Notice)]
    assert {n.code for n in notices} >= {Tell.SEATS_OPENED, Tell.LEFT_FOR_COMPUTER,
                                         Tell.SEAT_WAITS, Tell.WHILE_AWAY,
                                         Tell.TOOK_SEAT_BACK}
    for notice in notices:
        assert decode(encode(notice)) == notice
