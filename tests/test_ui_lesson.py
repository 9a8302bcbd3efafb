"""The first lesson (issue 34, item 6): its words for each phase, and its hand played out."""

from __future__ import annotations

import dataclasses
import random
import re

from test_ui_support import FAST, current_view, screen_text, wait_for

from moon_tui.bots.pool import Request, decide
from moon_tui.lesson import LESSON_RULES, LESSON_SEED, LessonApp
from moon_tui.lobby import Lobby
from moon_tui.rules import Action, GameState, Phase, SeatView, Tile
from moon_tui.ui.game import GameScreen
from moon_tui.ui.lesson_text import FINISH, lesson_step
from moon_tui.ui.lobby_screen import LobbyScreen

LESSON_FAST = dataclasses.replace(FAST, hand_result_seconds=3600.0)
NAMES = ("ann", "Computer 2", "Computer 3")


def lesson_text(app: LessonApp) -> str:
    return str(app.screen.query_one("#lesson").render())


async def test_the_lesson_hand_played_as_the_lesson_says_then_the_lobby() -> None:
    club = Lobby(FAST)
    async with club:
        app = LessonApp("ann", club=club, config=LESSON_FAST)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen)
                           and (v := current_view(app)) is not None and v.my_turn,
                           "the lesson's table, my bid")
            seen: list[str] = []
            for _ in range(40):
                view = current_view(app)
                assert view is not None
                if view.phase is Phase.DEAL:
                    break
                words = lesson_text(app)
                print(view.phase, repr(words))
                seen.append(words)
                press = re.search(r"[Pp]ress (\w)", words)
                good = re.search(r"(\d-\d) is a good one", words)
                if press:
                    await pilot.press(press.group(1))
                elif good:
                    await pilot.press(str(view.hand.index(Tile.parse(good.group(1))) + 1))
                else:
                    legal = {a.tile for a in view.legal}
                    await pilot.press(str(next(i for i, t in enumerate(view.hand) if t in legal) + 1))
                await wait_for(pilot, lambda v=view: (w := current_view(app)) is not v and w is not None and (w.my_turn or w.phase is Phase.DEAL), "my next turn")
            print(screen_text(app))
            print(lesson_text(app))
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.model.lobby), "the club lobby")
            print(screen_text(app))
