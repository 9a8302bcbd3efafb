"""The welcome banner the server draws before a player's app starts (server/banner.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from moon_tui.lobby import LobbyConfig
from server.probe import ScreenClient, running_server

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, hand_pause=0.0)


async def test_the_banner_comes_before_any_app_and_enter_opens_the_lobby(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, lobby_config=FAST, motd="Tuesday: club night") as server:
        client = await ScreenClient.connect(server.port, "ann")
        screen = await client.wait_for("go to the lobby")
        assert "Welcome, guest-" in screen and "Tuesday: club night" in screen
        assert server.session_count == 0  # nothing started yet: a banner costs next to nothing
        client.send(b"\x1b[A\x1b[<0;10;5M\xff\xfe")  # an arrow, a click, garbage: ignored
        client.resize(100, 30)
        await client.wait_for("q quit")
        assert "Welcome" in client.text()
        await client.press("enter")
        await client.wait_for("new table")
        assert server.session_count == 1
        await client.close()


async def test_question_mark_opens_the_lobby_with_the_help_and_q_leaves(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        helped = await ScreenClient.connect(server.port, "ann")
        await helped.wait_for("go to the lobby")
        await helped.press("?")
        await helped.wait_for("The rules in short")  # the help, over the lobby
        await helped.close()

        leaving = await ScreenClient.connect(server.port, "bea")
        await leaving.wait_for("go to the lobby")
        await leaving.press("q")
        await leaving.wait_closed()
        assert "Goodbye from Moon." in leaving.text()
        assert server.session_count == 0
