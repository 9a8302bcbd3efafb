"""A table's core is a function from messages (and the time) to effects: no loop, no
clock, no journal, nothing performed."""

from __future__ import annotations

import pytest
from test_lobby import FAST

from moon_tui.lobby.core import TableState
from moon_tui.lobby.effects import Send, StopWaiting, Think, Wait
from moon_tui.lobby.internal import (
    BotMoved,
    Counted,
    EntryChanged,
    FromMember,
    HandDealt,
    TableOutput,
    TimerRanOut,
    ToMember,
)
from moon_tui.lobby.messages import Act, AddBot, CreateTable, Notice, StartGame, TableUpdate
from moon_tui.lobby.notices import Tell
from moon_tui.rules import Action, Rules


def started(seed: int = 3) -> TableState:
    """Ann's table with two computers, a 30-second turn timer, the game just started
    (with seed 3, ann bids first)."""
    core = TableState("t1", "ann", CreateTable("t", Rules.make(), 30), invite_code="ABCDEF",
                      config=FAST, seed=seed)
    core.begin(0.0)
    for command in (AddBot("t1", 1, "easy"), AddBot("t1", 2, "easy")):
        core.handle(FromMember("ann", command), 1.0)
    return core


def sent(effects: list[object]) -> list[TableOutput]:
    return [e.output for e in effects if isinstance(e, Send)]


def test_starting_a_game_tells_everyone_and_asks_for_the_turn_timer() -> None:
    core = TableState("t1", "ann", CreateTable("t", Rules.make(), 30), invite_code="ABCDEF",
                      config=FAST, seed=3)
    (update, entry) = sent(core.begin(0.0))
    assert isinstance(update, ToMember) and update.name == "ann"
    assert isinstance(entry, EntryChanged) and entry.info.invite_code == "ABCDEF"
    for command in (AddBot("t1", 1, "easy"), AddBot("t1", 2, "easy")):
        core.handle(FromMember("ann", command), 1.0)
    _, effects = core.handle(FromMember("ann", StartGame("t1")), 10.0)
    dealt, told, listed, stop, wait = effects
    assert dealt == Send(HandDealt("t1", 0)), "the lobby hears which hand is played"
    assert isinstance(told, Send) and isinstance(told.output, ToMember)
    shown = told.output.event
    assert isinstance(shown, TableUpdate) and shown.view is not None and shown.view.my_turn
    assert shown.turn_left == pytest.approx(30 * FAST.timer_scale), "from the time given"
    assert isinstance(listed, Send) and isinstance(listed.output, EntryChanged)
    assert stop == StopWaiting()
    assert wait == Wait(pytest.approx(30 * FAST.timer_scale), TimerRanOut(1, 0))


def test_a_timer_that_ran_out_passes_for_the_player_and_a_stale_one_does_nothing() -> None:
    core = started()
    core.handle(FromMember("ann", StartGame("t1")), 10.0)
    _, effects = core.handle(TimerRanOut(1, 0), 10.3)
    outputs = sent(effects)
    assert ToMember("ann", Notice(Tell.TIMED_OUT_PASSED, {}, "warning")) in outputs
    update = next(o.event for o in outputs if isinstance(o, ToMember)
                  and isinstance(o.event, TableUpdate))
    assert update.view is not None and update.view.bids == ((0, Action.make_pass()),)
    think = effects[-1]
    assert isinstance(think, Think) and (think.generation, think.seat) == (2, 1)
    assert think.view.seat == 1, "a computer decides from its own seat's view"
    _, effects = core.handle(TimerRanOut(1, 0), 11.0)
    assert effects == [], "a wait replaced since"


def test_a_finished_hand_is_counted_as_a_message() -> None:
    core = started()
    core.handle(FromMember("ann", StartGame("t1")), 10.0)
    counted: list[TableOutput] = []
    game = core.game
    assert game is not None
    for step in range(200):
        to_move = game.current_player()
        if to_move < 0:
            break
        action = game.legal_actions()[0]
        message = FromMember("ann", Act("t1", action)) if to_move == 0 \
            else BotMoved(core.generation, to_move, action, False)
        counted += [o for o in sent(core.handle(message, 11.0 + step)[1])
                    if isinstance(o, Counted)]
    assert game.hand_number == 0 and counted == [Counted(hands=1)]


def test_a_table_that_waited_for_its_journal_gives_the_turn_its_whole_time_again() -> None:
    """The players saw nothing while the table waited (`table.py`): a turn timer that ran
    out meanwhile is stale, and the turn starts again when the table goes on."""
    core = started()
    core.handle(FromMember("ann", StartGame("t1")), 10.0)  # ann's turn, 30 * scale s
    effects = core.resume(500.0)
    (update,) = [o.event for o in sent(effects) if isinstance(o, ToMember)]
    assert isinstance(update, TableUpdate) and update.view is not None
    assert update.view.my_turn
    assert update.turn_left == pytest.approx(30 * FAST.timer_scale), "all of it, from now"
    assert effects[-1] == Wait(pytest.approx(30 * FAST.timer_scale), TimerRanOut(2, 0))
    _, late = core.handle(TimerRanOut(1, 0), 500.1)
    assert late == [], "the timer set before the wait went off meanwhile: stale"
