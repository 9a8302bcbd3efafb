"""The welcome banner the server draws before a player's app starts (server/banner.py)."""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path

import pytest

from moon_tui.lobby import LobbyConfig
from tools.probe import ScreenClient, eventually, running_server

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0)


async def test_the_banner_comes_before_any_app_and_enter_opens_the_lobby(
    tmp_path: Path,
) -> None:
    club_night = dataclasses.replace(FAST, motd="Tuesday: club night")
    async with running_server(tmp_path, lobby_config=club_night, motd=club_night.motd) as server:
        client = await ScreenClient.connect(server.port, "ann")
        screen = await client.wait_for("go to the lobby")
        assert "Welcome, guest-" in screen and "Tuesday: club night" in screen
        assert server.sessions.count == 0  # nothing started yet: a banner costs next to nothing
        client.send(b"\x1b[A\x1b[<0;10;5M\xff\xfe")  # an arrow, a click, garbage: ignored
        client.resize(100, 30)
        await client.wait_for("q quit")
        assert "Welcome" in client.text()
        await client.press("enter")
        await client.wait_for("new table")
        assert server.sessions.count == 1
        await client.close()


async def test_question_mark_opens_the_lobby_with_the_help_and_q_leaves(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="server")
    async with running_server(tmp_path, lobby_config=FAST) as server:
        helped = await ScreenClient.connect(server.port, "ann")
        await helped.wait_for("go to the lobby")
        await helped.press("?")
        await helped.wait_for("The rules in short")  # the help, over the lobby
        await helped.close()
        await eventually(lambda: server.sessions.count == 0, "ann's session ended")

        leaving = await ScreenClient.connect(server.port, "bea")
        banner_text = await leaving.wait_for("go to the lobby")
        bea = re.search(r"Welcome, (guest-\d+)!", banner_text)
        assert bea is not None
        await leaving.press("q")
        await leaving.wait_closed()
        assert "Goodbye from Moon." in leaving.text()
        started = [r.getMessage() for r in caplog.records if "session start" in r.getMessage()]
        assert len(started) == 1 and bea[1] not in started[0]  # q on the banner started no app


async def test_l_on_the_banner_opens_the_first_lesson_at_a_table_nobody_else_sees(
    tmp_path: Path,
) -> None:
    """Issue 34, item 6: `l` on the banner, the lesson's first words, then its next step."""
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann")
        banner_text = await client.wait_for("go to the lobby")
        assert "l to learn to play" in banner_text and "l learn to play" in banner_text
        await client.press("l")
        await client.wait_for("Your first hand of Moon!")
        await client.wait_for("Press 4 to bid 4")
        assert server.sessions.count == 1
        assert server.lobby.tables() == ()  # the lesson's table is its own, not the club's
        await client.press("4")
        await client.wait_for("You won the bidding", timeout=20)
        # q leaves the lesson for the club's lobby: it quit Moon at once (the dialog
        # said "q quit Moon", "n start a new game", as in a game alone on one's own
        # terminal), and a learner who wanted the lobby was logged out.
        assert "q leave" in client.text() and "q quit" not in client.text()
        await client.press("q")
        dialog = await client.wait_for("Leave the lesson?")
        assert "on to the club's lobby" in dialog and "quit Moon" not in dialog
        await client.press("q")
        await client.wait_for("Moon  lobby · you are")
        assert server.sessions.count == 1
        await client.close()
