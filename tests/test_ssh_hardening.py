"""Everything that is not a player at a terminal is refused; abuse never hurts others."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any, cast

import asyncssh
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from server import driver
from server.config import Limits
from server.door import ENDS_AT_ONCE
from server.driver import SSHTerminal
from server.identity import Player
from tests.support.settings import FAST
from tools.probe import (
    ScreenClient,
    click,
    enter_lobby,
    eventually,
    new_key,
    open_connection,
    running_server,
)

pytestmark = pytest.mark.ssh


async def test_no_pty_gets_one_line_and_an_exit_status(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        result = await conn.run(term_type=None, encoding="utf-8", timeout=10)
        assert result.exit_status == 1
        assert "interactive terminal" in str(result.stdout)
        assert str(result.stdout).count("\n") == 1
        conn.close()


async def test_exec_offers_help_and_refuses_anything_else(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        help_text = await conn.run("help", encoding="utf-8", timeout=10)
        assert help_text.exit_status == 0
        assert "ssh -p" in str(help_text.stdout)
        shell = await conn.run("cat /etc/passwd", encoding="utf-8", timeout=10)
        assert shell.exit_status == 2
        assert str(shell.stderr) == "unknown command 'cat': try 'help'\n"
        assert "root:" not in str(shell.stdout) + str(shell.stderr)
        scp = await conn.run("scp -t /tmp", encoding="utf-8", timeout=10)
        assert scp.exit_status == 2
        conn.close()


async def test_sftp_and_forwarding_are_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        with pytest.raises((asyncssh.SFTPError, asyncssh.ChannelOpenError, OSError)):
            async with conn.start_sftp_client():
                pass
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", server.port)
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_unix_connection(asyncssh.SSHUNIXSession, "/run/docker.sock")
        conn.close()
        assert server.sessions.count == 0


def garbage(size: int, *, seed: int) -> bytes:
    """Broken UTF-8, NULs and cut-off escape sequences, but no plain letters: the test is
    about the server's decoding and metering, not about which app keys get pressed."""
    rng = random.Random(seed)
    pieces = [b"\x1b[", b"\x1b[<", b"\x1b]", b"\x1bO", b";", b"9", b"\x00", b"\x1b\x1b",
              b"\xf0\x9f", b"\xc3", b"\x1b[200", b"\x1b[<0;999;999"]
    out = bytearray()
    while len(out) < size:
        if rng.random() < 0.5:
            out.append(rng.randrange(0x80, 0x100))
        else:
            out += rng.choice(pieces)
    return bytes(out[:size])


async def test_garbage_and_a_huge_paste_are_survived_without_slowing_others(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        noisy = await ScreenClient.connect(server.port, "ann", key=new_key())
        calm = await ScreenClient.connect(server.port, "bea", key=new_key())
        await enter_lobby(noisy)
        await enter_lobby(calm)
        (noisy_session,) = server.sessions.of("ann")
        sent = time.monotonic()
        noisy.send(garbage(200_000, seed=1))
        noisy.send(b"\x1b[200~" + b"x" * 1_000_000 + b"\x1b[201~")
        noisy.send(garbage(50_000, seed=2))
        # The calm player is served meanwhile: a dialog opens and closes.
        await calm.press("?")
        await calm.wait_for("trick-taking", timeout=10)  # the help itself, not "? help"
        await calm.press("escape")
        # The server has read into the flood (metered: the rest waits its turn)...
        await eventually(lambda: noisy_session.terminal.last_input > sent, "the flood read")
        # ... and the noisy session is still alive: a notice sent after that reaches its
        # screen (a session the flood had ended or crashed would never show it).
        await server.lobby.announce_stop(restart=True)
        await noisy.wait_for("The server is restarting", timeout=10)
        assert not noisy.closed.is_set()
        assert server.sessions.count == 2
        await noisy.close()
        await calm.close()


class CrashOnX(App[None]):
    """A small real app that crashes when the player presses x."""

    typed = ""

    def compose(self) -> ComposeResult:
        yield Static("press x to crash")
        yield Static("typed:", id="typed")

    def on_key(self, event: Any) -> None:
        if event.key == "x":
            raise RuntimeError("deliberate crash for the test")
        self.typed += event.character or ""
        self.query_one("#typed", Static).update(f"typed: {self.typed}")


async def test_a_crash_ends_only_that_session_with_a_message(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def factory(player: Player) -> App[Any]:
        return CrashOnX()

    async with running_server(tmp_path, lobby_config=FAST, app_factory=factory) as server:
        victim = await ScreenClient.connect(server.port, "ann", key=new_key())
        other = await ScreenClient.connect(server.port, "bea", key=new_key())
        await victim.wait_for("press x")
        await other.wait_for("press x")
        await victim.press("x")
        await victim.wait_closed()
        assert "crashed for your session only" in victim.text()
        assert "deliberate crash" in caplog.text  # the traceback is in the log
        await other.press("h", "i")
        await other.wait_for("typed: hi")
        assert [s.player.name for s in server.sessions.all()] == ["bea"]
        await other.close()


async def test_a_client_that_stops_reading_costs_bounded_memory(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        # A small receive window, so the server's buffer is what fills up.
        client = await ScreenClient.connect(server.port, "ann", key=new_key(), window=32768)
        await enter_lobby(client)
        assert client.process is not None
        client.process.channel.pause_reading()
        (session,) = server.sessions.all()
        channel = session.terminal.process.channel
        for size in range(50):  # every resize is a full-screen frame (fewer than the
            # window changes per 10 s that close a connection)
            client.process.change_terminal_size(100 + size % 40, 30 + size % 20)
            # Paced on purpose: window changes that arrive together are merged into one
            # (server/channel.py), each costs input tokens, and this test needs many frames.
            await asyncio.sleep(0.05)
        await eventually(lambda: session.terminal.skipped_frames > 0, "a frame skipped")
        assert channel.get_write_buffer_size() < 2 * 1024 * 1024
        client.resize(80, 24)
        client.process.channel.resume_reading()
        # Once it reads again it gets a whole, correct screen.
        await client.wait_for(lambda s: "new table" in client.row(23), timeout=15)
        await client.close()


class Clicker(App[None]):
    """A small real app with one button, to click through the SSH driver."""

    clicks = 0

    def compose(self) -> ComposeResult:
        yield Button("Press me", id="press")
        yield Static("clicked 0 times", id="count")

    def on_button_pressed(self) -> None:
        self.clicks += 1
        self.query_one("#count", Static).update(f"clicked {self.clicks} times")


async def test_mouse_clicks_reach_the_app_and_motion_reports_do_no_harm(tmp_path: Path) -> None:
    async with running_server(tmp_path, app_factory=lambda player: Clicker()) as server:
        client = await ScreenClient.connect(server.port, "ann", key=new_key())
        screen = await client.wait_for("Press me")
        row = next(i for i, line in enumerate(screen.splitlines()) if "Press me" in line)
        column = screen.splitlines()[row].index("Press me")
        client.send(f"\x1b[<35;{column + 2};{row + 1}M" * 50)  # motion reports: dropped
        client.send(click(column + 1, row))
        await client.wait_for("clicked 1 times")
        await client.close()


async def test_an_idle_session_is_closed_with_a_message(tmp_path: Path) -> None:
    limits = Limits(idle_minutes=0.01)  # 0.6 s
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        client = await ScreenClient.connect(server.port, "ann", key=new_key())
        await client.wait_closed(timeout=15)
        assert "without a key press" in client.text().replace("\n", "")  # pyte wraps it


async def test_an_app_stuck_while_ending_gives_its_turn_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Apps whose clients went away end a few at a time (a hundred at once stalled the
    # server). A turn is only lent: apps stuck in their shutdown must not keep the others
    # from ending.
    monkeypatch.setattr(driver, "END_SLOT_LOAN", 0.3)
    async with running_server(tmp_path, lobby_config=FAST) as server:
        clients = [await ScreenClient.connect(server.port, name) for name in ("ann", "bob")]
        for client in clients:
            await enter_lobby(client)
        for _ in range(ENDS_AT_ONCE):  # every turn taken by an app that never finishes
            stuck = SSHTerminal(cast(Any, None), cast(Any, None), end_slots=server.door.end_slots)
            await stuck.take_end_slot()
        for client in clients:
            await client.close()
        await eventually(lambda: server.sessions.count == 0, "both sessions ended anyway")
        await eventually(lambda: not server.door.end_slots.locked(), "every turn given back")
