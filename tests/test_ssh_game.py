"""The real server on loopback, real SSH clients with a PTY, the screen read through pyte."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import asyncssh
import pytest
from textual.app import ComposeResult
from textual.widgets import Input

from moon_tui.lobby import LobbyConfig
from moon_tui.ui.lobby_screen import LobbyScreen
from tools.probe import (
    ScreenClient,
    enter_lobby,
    eventually,
    next_move,
    open_bot_table,
    play_until,
    running_server,
)

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                   bot_time_budget=0.05,
                   grace_seconds=60)


@pytest.fixture
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


async def test_lobby_then_a_full_hand_with_two_bots_and_the_score(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key)
        welcome = await client.wait_for("Welcome")
        assert "ann" in welcome
        lobby = await enter_lobby(client)
        assert "ann (you)" in lobby
        await open_bot_table(client)
        screen = await play_until(client, lambda s: "hand 2" in s or "game is over" in s)
        assert "pts" in screen
        await client.press("s")
        sheet = await client.wait_for("Score sheet")
        assert "Hand" in sheet and "Bot 2" in sheet
        await client.close()


async def test_resize_redraws_at_the_new_size(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key, width=80, height=24)
        await enter_lobby(client)
        client.resize(120, 40)
        await client.wait_for(lambda s: "quit" in client.row(39))
        assert "new table" in client.row(39)
        client.resize(60, 20)
        await client.wait_for(lambda s: "new table" in client.row(19))
        await client.close()


async def test_a_lone_escape_closes_a_dialog(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key)
        await enter_lobby(client)
        await client.press("n")
        await client.wait_for("Create (ctrl+s)")
        await client.press("escape")  # only the parser's escape delay can release this
        await client.wait_for(lambda s: "Create (ctrl+s)" not in s)
        # ...and it was a real Esc, not Alt+ the next key: the lobby takes keys again.
        await client.press("n")
        await client.wait_for("Create (ctrl+s)")
        await client.close()


@pytest.mark.parametrize(
    ("term", "env", "present", "absent"),
    [
        ("xterm", {}, "\x1b[3", ("38;5;", "38;2;")),
        ("xterm-256color", {}, "38;5;", ("38;2;",)),
        ("xterm-256color", {"COLORTERM": "truecolor"}, "38;2;", ()),
        ("vt100", {}, "\x1b[", ("38;5;", "38;2;", "48;5;", "48;2;")),
        ("xterm-256color", {"NO_COLOR": "1"}, "\x1b[", ("38;5;", "38;2;", "48;5;", "48;2;")),
    ],
)
async def test_colours_follow_the_client_terminal(
    tmp_path: Path,
    key: asyncssh.SSHKey,
    term: str,
    env: dict[str, str],
    present: str,
    absent: tuple[str, ...],
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key, term=term, env=env)
        client.keep_raw = True
        await enter_lobby(client)
        raw = bytes(client.raw).decode("utf-8", "replace")
        assert present in raw
        for sequence in absent:
            assert sequence not in raw, f"{term} {env} got {sequence!r}"
        assert "ann (you)" in client.text()  # readable whatever the colours
        await client.close()


async def test_a_client_that_vanishes_mid_hand_comes_back_to_its_seat(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key)
        await enter_lobby(client)
        await open_bot_table(client)
        client.conn.abort()  # no goodbye: the TCP connection just goes
        await client.wait_closed()
        back = await ScreenClient.connect(server.port, "ann", key=key)
        screen = await back.wait_for("ann's table")  # straight back to the seat
        assert "hand" in screen
        # An Enter out of habit (the welcome screen asks for one) is not taken as a move.
        await eventually(lambda: next_move(back.text()) is not None, "ann's turn")
        await back.press("enter")
        told = await back.wait_for("Welcome back")
        assert next_move(told) is not None  # still her turn: nothing was played
        assert "✗" not in told  # a greeting, not a refusal
        await back.press("enter")  # the second takes the marked choice: the turn moves on
        await eventually(lambda: "Welcome back" not in back.text(), "her move taken")
        await back.close()


async def test_a_returning_player_gets_the_lobby_only_when_leaving_the_table(
    tmp_path: Path, key: asyncssh.SSHKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Straight back to the seat, the lobby unbuilt (after a restart every seated player
    comes back at once: an unseen lobby each was a third of the start); leaving the table
    builds it, and it works."""
    lobbies: list[str] = []
    compose_body = LobbyScreen.compose_body

    def composed(screen: LobbyScreen) -> ComposeResult:
        lobbies.append(screen.moon.player_name)
        return compose_body(screen)

    monkeypatch.setattr(LobbyScreen, "compose_body", composed)
    config = dataclasses.replace(FAST, motd="Cake at nine")
    async with running_server(tmp_path, lobby_config=config) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key)
        await enter_lobby(client)
        await open_bot_table(client)
        assert lobbies == ["ann"]
        client.conn.abort()
        await client.wait_closed()
        back = await ScreenClient.connect(server.port, "ann", key=key)
        await back.wait_for("ann's table")
        await eventually(lambda: next_move(back.text()) is not None, "ann's turn")
        assert lobbies == ["ann"]  # the table's screen went up on its own
        await back.press("q")
        await back.wait_for("Press q again")
        await back.press("q")
        # Who is online, laid out at the panel's width (not `i…`).
        lobby = await back.wait_for("ann (you) idle")
        assert lobbies == ["ann", "ann"]
        assert "Today: Cake at nine" in lobby  # the notice board
        await back.wait_for("You left the table")
        await back.press("c")  # the lobby's chat (its line is under the toast)
        (session,) = server.sessions.all()
        await eventually(lambda: isinstance(session.app.focused, Input), "the chat's line")
        back.send("hi all")
        await back.press("enter")
        await back.wait_for("hi all")
        await back.close()


async def test_the_same_account_twice_takes_over_the_first(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        first = await ScreenClient.connect(server.port, "ann", key=key)
        await enter_lobby(first)
        second = await ScreenClient.connect(server.port, "ann", key=key)
        await enter_lobby(second)
        told = await first.wait_for("somewhere else", timeout=15)
        assert "ended" in told.lower() or "somewhere else" in told
        await first.wait_closed(timeout=15)
        assert [s.player.name for s in server.sessions.all()] == ["ann"]
        await second.close()


async def test_a_finished_session_says_goodbye_and_closes(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=key)
        await enter_lobby(client)
        await client.press("q")
        await client.wait_closed()
        await asyncio.sleep(0)
        assert server.sessions.count == 0
