"""What one client sends about itself is bounded: its terminal size, its environment,
its window changes, escape strings and pastes (server/channel.py, banner.py, keyboard.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncssh
import pytest
from textual.widgets import Input

from server.config import Limits
from server.service import MoonServer
from tests.support.settings import FAST
from tools.probe import (
    ScreenClient,
    changed,
    cursor_on,
    enter_lobby,
    eventually,
    new_key,
    open_bot_table,
    open_connection,
    running_server,
)

pytestmark = pytest.mark.ssh


async def at_banner(server: MoonServer) -> asyncssh.SSHServerProcess[bytes]:
    """The server's side of the one player looking at the welcome banner."""
    await eventually(lambda: len(server.door.at_banner) == 1, "a player at the banner")
    (process,) = server.door.at_banner
    return process


async def raw_process(
    port: int, name: str, *, term: str = "xterm-256color", size: tuple[int, int] = (80, 24),
    env: dict[str, str] | None = None,
) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientProcess[bytes]]:
    """A client session that never reads what the server draws."""
    conn = await open_connection(port, name, key=new_key(), window=32768)
    process = await conn.create_process(term_type=term, term_size=size, encoding=None,
                                        env=env or {})
    process.channel.pause_reading()
    return conn, process


async def test_a_huge_terminal_is_drawn_at_the_clamp(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn, process = await raw_process(server.port, "ann", size=(2000, 900))
        server_side = await at_banner(server)
        assert server_side.get_terminal_size()[:2] == (500, 200)
        process.stdin.write(b"\r")
        await eventually(lambda: server.sessions.count == 1, "the game started")
        (session,) = server.sessions.all()
        assert (session.terminal.profile.width, session.terminal.profile.height) == (500, 200)
        await eventually(lambda: session.app.is_running, "the app runs")
        assert tuple(session.app.size) == (500, 200)
        conn.close()


async def test_window_changes_are_clamped_and_only_the_latest_counts(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=new_key(), window=32768)
        await enter_lobby(client)
        assert client.process is not None
        client.process.channel.pause_reading()  # a client that does not read
        (session,) = server.sessions.all()
        for index in range(40):
            size = (700, 250) if index % 2 else (600, 210)
            client.process.change_terminal_size(*size)
        client.process.change_terminal_size(90, 30)
        client.process.change_terminal_size(3000, 3000)
        await eventually(lambda: tuple(session.app.size) == (500, 200), "the clamped size")
        channel = session.terminal.process.channel
        assert channel.get_write_buffer_size() < 2 * 1024 * 1024
        client.resize(80, 24)
        client.process.channel.resume_reading()
        await client.wait_for(lambda s: "new table" in client.row(23), timeout=15)
        await client.close()


async def test_the_banner_under_a_resize_flood_keeps_its_output_bounded(tmp_path: Path) -> None:
    limits = Limits(window_changes_per_10s=5000)  # a flood, but not one that is closed
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        client = await ScreenClient.connect(server.port, "ann", key=new_key(), window=32768)
        await client.wait_for("go to the lobby")
        assert client.process is not None
        client.process.channel.pause_reading()
        server_side = await at_banner(server)
        for index in range(3000):  # each would be a whole banner of ~4 KB
            client.process.change_terminal_size(100 + index % 2 * 20, 30 + index % 2 * 10)
        client.process.change_terminal_size(90, 28)
        await eventually(lambda: server_side.get_terminal_size()[:2] == (90, 28),
                         "the last window change arrived")
        assert server_side.channel.get_write_buffer_size() < 1024 * 1024
        client.resize(90, 28)
        client.process.channel.resume_reading()
        await client.wait_for(lambda s: "q quit" in client.row(27) and "Welcome" in s)
        await client.press("enter")
        await client.wait_for("new table")
        await client.close()


async def test_a_client_flooding_window_changes_is_disconnected(tmp_path: Path) -> None:
    limits = Limits(window_changes_per_10s=30)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        calm = await ScreenClient.connect(server.port, "bob", key=new_key())
        await enter_lobby(calm)
        for index in range(limits.window_changes_per_10s - 1):  # a drag: still a player
            calm.resize(100 - index % 2 * 20, 30)
        calm.resize(90, 26)  # the last one allowed, and the lobby is drawn at its size
        await calm.wait_for(lambda s: "new table" in calm.row(25))
        client = await ScreenClient.connect(server.port, "ann", key=new_key())
        await client.wait_for("go to the lobby")
        assert client.process is not None
        for index in range(limits.window_changes_per_10s + 1):
            client.process.change_terminal_size(100 + index % 2 * 20, 30)
        await client.wait_closed()
        before = calm.text()
        await calm.press("c")  # the other player goes on: the chat line opens
        await changed(calm, before)
        await calm.close()


async def test_connections_take_in_a_bounded_input_at_a_time(tmp_path: Path) -> None:
    limits = Limits(receive_buffer_bytes=16384)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        conn, _process = await raw_process(server.port, "ann")
        server_side = await at_banner(server)
        sock = server_side.get_extra_info("socket")
        # Linux keeps twice what is asked for (its own bookkeeping); the default is ~128 KB.
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) <= 2 * 16384
        conn.close()


async def test_only_a_few_short_game_variables_of_the_environment_are_kept(
    tmp_path: Path,
) -> None:
    flood = {f"X{index}": "v" * 30_000 for index in range(40)}
    env = {**flood, "COLORTERM": "truecolor", "LANG": "C.UTF-8", "NO_COLOR": "x" * 5000}
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn, _process = await raw_process(server.port, "ann", env=env)
        server_side = await at_banner(server)
        assert dict(server_side.env) == {"COLORTERM": "truecolor", "LANG": "C.UTF-8"}
        conn.close()


async def test_a_client_sending_hundreds_of_variables_is_disconnected(tmp_path: Path) -> None:
    env = {f"X{index}": "v" for index in range(Limits().max_env_requests + 1)}
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        with contextlib.suppress(asyncssh.Error, OSError):
            await conn.create_process(term_type="xterm", env=env, encoding=None)
        await asyncio.wait_for(conn.wait_closed(), 10)
        assert server.sessions.count == 0


async def test_the_terminal_type_is_a_short_plain_word(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="server")
    forged = "xterm-256color\nmoon: ban lifted for everyone " + "A" * 5000
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn, process = await raw_process(server.port, "ann", term=forged)
        server_side = await at_banner(server)
        term = server_side.get_terminal_type()
        assert term is not None and term.startswith("xterm-256color")
        assert len(term) <= Limits().max_term_chars and term.isprintable() and " " not in term
        process.stdin.write(b"\r")
        await eventually(lambda: server.sessions.count == 1, "the game started")
        assert not any("ban lifted" in r.getMessage() for r in caplog.records)
        conn.close()


@pytest.mark.parametrize("opener", ["\x1b]0;abc", "\x1b_abc", "\x1bP1;c"])
async def test_an_unfinished_escape_string_does_not_take_the_keyboard(
    tmp_path: Path, opener: str
) -> None:
    limits = Limits(escape_timeout_seconds=0.2)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        client = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(client)
        (session,) = server.sessions.all()
        decoder: Any = session.app._driver._decoder  # type: ignore[attr-defined]
        before = session.terminal.last_input
        client.send(opener)
        await eventually(lambda: session.terminal.last_input > before and not decoder.waiting,
                         "the open string arrived and was given up")
        await client.press("?")
        await client.wait_for("The rules in short")
        await client.close()


async def test_a_huge_paste_is_cut_at_once_and_the_player_is_told(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(client)
        (session,) = server.sessions.all()
        await client.press("c")  # the chat line takes the paste
        client.send(b"\x1b[200~" + b"x" * 1_000_000 + b"\x1b[201~")
        await client.wait_for("Pasted text was cut to 4096", timeout=20)
        await client.press("escape")  # the keyboard answers at once
        await eventually(lambda: not isinstance(session.app.focused, Input), "chat left")
        await client.press("?")
        await client.wait_for("The rules in short")
        await client.close()


async def test_leaving_right_after_enter_is_not_a_crash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        for index in range(10):
            client = await ScreenClient.connect(server.port, f"p{index}", key=new_key())
            await client.wait_for("go to the lobby")
            await client.press("enter")
            await client.close()  # while the app builds its lobby
        await eventually(lambda: server.sessions.count == 0, "every session ended")
    crashes = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert crashes == []


@pytest.mark.parametrize(("limit", "words"), [("tables_per_hour", "within the hour"),
                                              ("tables_per_10_minutes", "within 10")])
async def test_guests_of_one_address_open_tables_per_hour_as_one_player(
    tmp_path: Path, limit: str, words: str,
) -> None:
    # Issue 36: a guest opening tables and leaving, again and again; coming back as a new
    # guest (a new name) does not start the count again.
    async with running_server(tmp_path, lobby_config=replace(FAST, **{limit: 1})
                              ) as server:
        first = await ScreenClient.connect(server.port, "visitor")
        await enter_lobby(first, timeout=30)
        await open_bot_table(first, timeout=30)
        await first.close()
        # Another user name: the same one would be given the first guest's kept seat.
        second = await ScreenClient.connect(server.port, "visitor2")
        await enter_lobby(second, timeout=30)
        await second.press("n")
        await second.wait_for("Create (ctrl+s)")
        await second.press("\x13")
        screen = await second.wait_for(lambda s: words in " ".join(s.split()))
        assert f"you opened 1 table {words}" in " ".join(screen.split())
        # Asking again within the hour: told at once, without a form the lobby would
        # refuse (the server built ~100 ms of form at each such try).
        await second.press("n")
        screen = await second.wait_for(
            lambda s: "Create (ctrl+s)" in s
            or " ".join(s.split()).count(words) == 2)
        assert "Create (ctrl+s)" not in screen
        await second.close()


async def test_a_line_typed_faster_than_the_key_budget_arrives_whole_up_to_the_setting(
    tmp_path: Path,
) -> None:
    # 250 characters sent at once (a terminal without bracketed paste, tmux send-keys)
    # stopped at 120, the key budget's burst: the rest were dropped. And the chat input
    # stopped at 300 whatever the club's `chat_max_chars` said.
    import dataclasses

    typed = "".join(str(index % 10) for index in range(250)) + "END"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    async with running_server(tmp_path / "a", lobby_config=FAST) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        bob = await ScreenClient.connect(server.port, "bob", key=new_key())
        await enter_lobby(ann)
        await enter_lobby(bob)
        await ann.press("c")
        await ann.wait_for(lambda _: cursor_on(ann, "c: chat with everyone"))
        ann.send(typed)
        await ann.press("enter")
        await bob.wait_for("789END")
        await ann.close()
        await bob.close()
    short = dataclasses.replace(FAST, chat_max_chars=50)
    async with running_server(tmp_path / "b", lobby_config=short) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(ann)
        (session,) = server.sessions.all()
        await ann.press("c")
        await ann.wait_for(lambda _: cursor_on(ann, "c: chat with everyone"))
        ann.send(typed[:80])
        field = session.app.focused
        assert isinstance(field, Input)
        await eventually(lambda: len(field.value) == 50 and field.value == typed[:50],
                         "the input stops where the club's setting says")
        await ann.close()
