"""The first lesson (issue 34, item 6): its words for each phase, and its hand played out
at the learner's own table, then the club's lobby."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path
from typing import Any

import pytest
from test_ui_support import FAST, current_view, screen_text, wait_for
from textual.pilot import Pilot

import moon_tui.app as app_module
from moon_tui.bots.pool import Request, decide
from moon_tui.lesson import LESSON_RULES, LESSON_SEED, LessonApp
from moon_tui.lesson_deal import lesson_game
from moon_tui.lobby import Lobby
from moon_tui.local import parse_args
from moon_tui.rules import Action, GameState, Phase, SeatView, Tile
from moon_tui.ui.game import GameScreen
from moon_tui.ui.lesson_text import FINISH, lesson_step
from moon_tui.ui.lobby_screen import LobbyScreen

LESSON_FAST = dataclasses.replace(FAST, hand_result_seconds=3600.0)
NAMES = ("ann", "Bot 2", "Bot 3")


def as_told(words: str, view: SeatView) -> Action:
    """The move the lesson's words name (a key to press, a tile), else the first legal."""
    press = re.search(r"[Pp]ress (\w)", words)
    tile = re.search(r"(\d-\d) is a good one|your (\d-\d)", words)
    if press and view.phase is Phase.BID:
        key = press.group(1)
        return Action.make_pass() if key == "p" else Action.make_bid(int(key))
    if press and view.phase is Phase.TRUMP:
        return Action.make_trump(int(press.group(1)))
    if tile and view.phase is Phase.DISCARD:
        return Action.make_discard(Tile.parse(tile.group(1)))
    if tile and view.phase is Phase.PLAY:
        return Action.make_play(Tile.parse(tile.group(2) or tile.group(1)))
    return view.legal[0]


def lesson_hand() -> list[tuple[SeatView, str]]:
    """The lesson's hand in the rules engine: the learner (seat 0) plays as the lesson
    says, the computers as the table's do; every view of seat 0 with its words."""
    table_seed = random.Random(LESSON_SEED).getrandbits(64)  # as the lobby seeds a table
    state = GameState.new_game(LESSON_RULES, random.Random(table_seed))
    steps = []
    while True:
        view = state.view(0)
        steps.append((view, lesson_step(view, NAMES)))
        if state.phase is Phase.DEAL:
            return steps
        seat = state.current_player()
        if seat == 0:
            action = as_told(steps[-1][1], view)
            assert action in view.legal, steps[-1][1]
        else:
            action = decide(Request(state.view(seat), "normal", seed=1))
        state.apply_action(action)


def test_the_lesson_says_what_to_do_in_each_phase() -> None:
    steps = lesson_hand()
    words = {phase: [w for v, w in steps if v.phase is phase and v.my_turn]
             for phase in Phase}
    bid = words[Phase.BID][0]
    assert "Your first hand of Moon" in bid and "Each number is a suit" in bid
    assert "You hold 4 5s with the 5-5" in bid and "Press 4 to bid 4" in bid
    assert "you are the declarer" in words[Phase.DISCARD][0]
    assert "widow (W)" in words[Phase.DISCARD][0]
    assert "Name trump" in words[Phase.TRUMP][0] and "press 5" in words[Phase.TRUMP][0]
    play = words[Phase.PLAY]
    assert "the declarer leads the first trick" in play[0]
    assert "your 5-5 is your highest" in play[0]
    assert any("You must follow" in w and "solid border" in w for w in play)
    assert any("You have no" in w and "A trump (5s) beats them" in w for w in play)
    assert any("took the trick with" in w for w in play)
    waiting = [w for v, w in steps if v.phase is Phase.PLAY and not v.my_turn]
    assert waiting and all("to play" in w and "Tricks: you" in w for w in waiting)
    end = steps[-1][1]
    result = steps[-1][0].results[-1]
    assert result.declarer == 0 and result.made
    assert f"You bid 4 and took {result.tricks_won[0]} tricks: made the bid" in end
    assert "a failed one costs it" in end and "1 a trick" in end and end.endswith(FINISH)
    assert f"This hand: you +4, Bot 2 +{result.tricks_won[1]}" in end


def test_a_weak_hand_is_told_to_pass_and_a_watcher_gets_no_lesson() -> None:
    first = lesson_hand()[0][0]
    weak = dataclasses.replace(first, hand=tuple(Tile.parse(t) for t in (
        "6-1", "5-2", "4-3", "6-3", "5-4", "2-1", "0-0")))
    assert "Your hand is weak: press p to pass" in lesson_step(weak, NAMES)
    assert lesson_step(dataclasses.replace(first, seat=None), NAMES) == ""


class ToldLessonApp(LessonApp):
    """Keeps every notice it shows."""

    CSS_PATH = str(Path(app_module.__file__).parent / LessonApp.CSS_PATH)
    told: list[str] = []

    def notify(self, message: str, **options: Any) -> None:
        self.told = [*self.told, message]
        super().notify(message, **options)


async def play_the_lesson(pilot: Pilot[None], app: LessonApp) -> list[str]:
    """Play the learner's hand as the lesson's words say; the words shown at each turn."""
    await wait_for(pilot, lambda: isinstance(app.screen, GameScreen)
                   and (v := current_view(app)) is not None and v.my_turn,
                   "the lesson's table, my bid")
    assert "Your first hand" in screen_text(app)
    shown: list[str] = []
    for _ in range(40):
        view = current_view(app)
        assert view is not None
        if view.phase is Phase.DEAL:
            break
        words = str(app.screen.query_one("#lesson").render())
        shown.append(words)
        action = as_told(words, view)
        if action.kind == "play" or action.kind == "discard":
            assert action.tile is not None
            await pilot.press(str(view.hand.index(action.tile) + 1))
        else:
            key = {"pass": "p"}.get(action.kind, str(action.bid or action.trump))
            await pilot.press(key)
        await wait_for(pilot, lambda v=view: (w := current_view(app)) is not v  # type: ignore[misc]
                       and w is not None and (w.my_turn or w.phase is Phase.DEAL),
                       "my next turn")
    return shown


async def test_the_lesson_hand_played_as_the_lesson_says_then_the_club_lobby() -> None:
    club = Lobby(FAST)
    async with club:
        watcher = await club.connect("bea")
        app = ToldLessonApp("ann", club=club, config=LESSON_FAST)
        async with app.run_test(size=(80, 24)) as pilot:
            shown = await play_the_lesson(pilot, app)
            assert any("You must follow" in w for w in shown)
            assert "You know the game now!" in screen_text(app)
            assert "Enter: finish the lesson and go to the lobby" in screen_text(app)
            # Nobody at the club saw the lesson's table.
            assert club.tables() == ()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen)
                           and "Online (2)" in screen_text(app), "the club's lobby")
            assert app.lesson is None and not app.solo
            assert "bea" in screen_text(app)
            # The lesson's lobby closing behind the learner says nothing (it told "The
            # table closed: the server is shutting down" in a toast).
            assert app.told == []
        await watcher.close()


def test_moon_lesson_on_the_command_line() -> None:
    assert parse_args(["--lesson"]).lesson and not parse_args([]).lesson


async def test_alone_the_lesson_ends_in_a_game_against_the_computers() -> None:
    app = LessonApp("ann", config=LESSON_FAST)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_the_lesson(pilot, app)
        first = app.current_table
        assert "Enter: finish the lesson and play a game" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.current_table not in (None, first)
                       and current_view(app) is not None, "a new game")
        assert app.lesson is None and app.solo
        assert not app.screen.query_one("#lesson").display


@pytest.mark.parametrize("from_help", [True, False])
async def test_the_lobby_or_its_help_starts_the_lesson_at_a_practice_table_of_the_club(
    from_help: bool,
) -> None:
    # The help says "press l in the lobby": l did nothing there (only in the help).
    club = Lobby(LESSON_FAST)
    async with club:
        app = app_module.MoonApp(club, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen)
                           and app.handle is not None, "the club's lobby")
            if from_help:
                await pilot.press("question_mark")
                await wait_for(pilot, lambda: "learn to play" in screen_text(app), "the help")
            await pilot.press("l")
            await wait_for(pilot, lambda: (v := current_view(app)) is not None and v.my_turn,
                           "the lesson's table")
            view = current_view(app)
            assert view is not None and view.hand == lesson_game().hand_of(0)
            (table,) = club.tables()
            assert table.practice and table.private and not table.rated
            await play_the_lesson(pilot, app)  # type: ignore[arg-type]
            assert "Enter: finish the lesson and go to the lobby" in screen_text(app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen)
                           and app.current_table is None, "back in the club's lobby")
            assert app.lesson is None and club.tables() == ()

