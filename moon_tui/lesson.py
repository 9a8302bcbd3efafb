"""The first lesson: one guided hand on a fixed deal, at a table of the learner's own.

A lesson is a game played alone (`LocalMoonApp`: its own in-process lobby, computer
players), so no one at a club sees its table; the deal is fixed by `LESSON_SEED`, chosen
so the learner bids first and holds a hand worth bidding. The table screen shows the
lesson's words beside the table (`ui/lesson_text.py`); a session already at the club
starts the same hand from the help, at a practice table (`MoonApp.start_lesson`). At the
end of the hand the learner goes on: at a club (`club` given) the same session leaves
the lesson's lobby for the club's, elsewhere (`moon --lesson`) a new game against the
computers starts.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from textual import on

from .lesson_deal import LESSON_RULES, LESSON_SEED
from .lobby import Lobby, LobbyConfig, PlayerHandle
from .lobby.messages import Event
from .local import LocalMoonApp
from .ui.base import FirstScreen
from .ui.game import GameScreen
from .ui.lesson_text import FINISH
from .ui.lobby_screen import LobbyScreen
from .ui.model import Model

log = logging.getLogger(__name__)

LESSON_CONFIG = LobbyConfig(bot_delay=0.8, trick_pause=2.0, hand_pause=1.0,
                            hand_result_seconds=3600.0, bot_workers=1)
"""Slow enough to follow; the hand's result stays until the learner has read it. The
computers are of an instant level: the worker pool is never started."""
LOCAL_FINISH = "Enter: finish the lesson and play a game."


class LessonApp(LocalMoonApp):
    """`LocalMoonApp` on the lesson's deal, with the lesson's words at the table."""

    def __init__(self, name: str, *, club: Lobby | None = None,
                 config: LobbyConfig = LESSON_CONFIG, **app_options: Any) -> None:
        super().__init__(name, LESSON_RULES, level="normal", config=config,
                         seed=LESSON_SEED, **app_options)
        self.club = club
        self.club_next = club is not None
        self.lesson = FINISH if club is not None else LOCAL_FINISH
        self._in_club = False
        self._moving = False

    async def open_handle(self) -> PlayerHandle:
        if self._in_club:
            return await self.lobby.connect(self.player_name, operator=self.operator,
                                            person=self.person)
        return await super().open_handle()

    def take(self, event: Event) -> None:
        if self._moving:
            return  # the lesson's lobby closing behind the learner: its table's end, its
            # goodbye ("the server is shutting down"), are not the player's news
        super().take(event)

    @on(GameScreen.LessonOver)
    async def _lesson_over(self) -> None:
        await self.finish_lesson()

    async def action_new_game(self) -> None:  # type: ignore[override]
        """`n` in the end-of-game dialog: the lesson ends (a new game, or the club)."""
        await self.finish_lesson()

    async def finish_lesson(self) -> None:
        """Leave the lesson for a real game: the club's lobby, or a new solo game."""
        if self.lesson is None:
            LocalMoonApp.action_new_game(self)
            return
        self.lesson = None
        if self.club is None:
            LocalMoonApp.action_new_game(self)
            return
        self._moving = True
        self._lobby_stop.set()
        if self._host is not None:
            try:
                await asyncio.wait_for(self._host.wait(), timeout=5)
            except Exception:  # noqa: BLE001 - on to the club anyway
                log.debug("the lesson's lobby did not stop cleanly", exc_info=True)
        self.lobby = self.club
        self._in_club = True
        self._table_set_up = True
        self.solo = self.club_next = False
        self.model = Model(self.player_name)
        self.current_table = None
        self.chat_max_chars = self.club.config.chat_max_chars
        while not isinstance(self.screen, FirstScreen):
            self.pop_screen()
        self.push_screen(LobbyScreen())
        self._moving = False
        self.run_worker(self._session(), name="session", exclusive=True)
