"""A planned restart: an operator's countdown (or SIGTERM's) reaches everyone, can be
called off, and ends in a clean stop."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest

from moon_tui.lobby import (
    CancelRestart,
    Lobby,
    LobbyConfig,
    PlayerHandle,
    Refusal,
    Rejected,
    Restart,
    RestartNotice,
)
from moon_tui.ui.operator import OperatorError, parse_operator
from moon_tui.ui.words import restart_words
from server.cli import RESTART_EXIT_STATUS
from server.service import MoonServer
from tests.manual_clock import ManualClock
from tools.probe import (
    ScreenClient,
    enter_lobby,
    moon_server_process,
    new_key,
    operator_command_line,
    running_server,
)

pytestmark = pytest.mark.ssh

REPO = Path(__file__).resolve().parent.parent


@contextlib.asynccontextmanager
async def club(tmp_path: Path, olga_key: asyncssh.SSHKey) -> AsyncIterator[MoonServer]:
    """A server where olga is an operator; its restart countdown runs on a manual clock."""
    olga_line = olga_key.export_public_key("openssh").decode()
    lobby = LobbyConfig(bot_delay=0.0, hand_pause=0.0, bot_time_budget=0.05,
                        operators=frozenset({"olga"}))
    async with running_server(tmp_path, lobby_config=lobby,
                              operators={"olga": (olga_line,)}) as server:
        server.restart.clock = ManualClock()
        yield server


async def in_the_lobby(server: MoonServer, olga_key: asyncssh.SSHKey
                       ) -> tuple[ScreenClient, ScreenClient]:
    ann = await ScreenClient.connect(server.port, "ann", key=new_key(), width=100, height=30)
    olga = await ScreenClient.connect(server.port, "olga", key=olga_key, width=100, height=30)
    await enter_lobby(ann)
    await enter_lobby(olga)
    await operator_command_line(olga)
    return ann, olga


def clock_of(server: MoonServer) -> ManualClock:
    clock = server.restart.clock
    assert isinstance(clock, ManualClock)
    return clock


def test_the_operator_line_and_the_notice_words() -> None:
    assert parse_operator("restart 60 new version") == Restart(60, "new version")
    assert parse_operator("restart 5") == Restart(5)
    assert parse_operator("Restart cancel") == CancelRestart()
    text = restart_words(RestartNotice(60, "new version", "olga"))
    assert text.startswith("The server restarts in 60 s;")
    assert "olga: new version" in text
    assert "your game will be here when you come back" in text
    assert "in 5 min" in restart_words(RestartNotice(300))
    assert "called off" in restart_words(RestartNotice(None, by="olga"))


@pytest.mark.parametrize("seconds", ["²", "٣", "1" * 5000], ids=["super", "arabic", "long"])
def test_a_restart_takes_ascii_digits_only(seconds: str) -> None:
    # `restart ²` raised from int() and crashed the operator's app (issue 31).
    with pytest.raises(OperatorError, match="not an operator command"):
        parse_operator(f"restart {seconds}")


async def test_an_operators_restart_counts_down_on_every_screen_then_stops(
    tmp_path: Path,
) -> None:
    olga_key = new_key()
    async with club(tmp_path, olga_key) as server:
        ann, olga = await in_the_lobby(server, olga_key)
        await olga.press(*"restart 60 [b]new[/b] version", "enter")
        await ann.wait_for("The server restarts in 60 s")
        await ann.wait_for("olga: [b]new[/b] version")  # as typed, not read as markup
        clock = clock_of(server)
        clock.advance(15)
        # Whoever arrives during the countdown is told how long is left.
        bea = await ScreenClient.connect(server.port, "bea", key=new_key(), width=100,
                                         height=30)
        await enter_lobby(bea)
        await bea.wait_for("The server restarts in 45 s")
        clock.advance(15)
        await ann.wait_for("The server restarts in 30 s")
        clock.advance(20)
        await ann.wait_for("The server restarts in 10 s")
        assert not server.stopped.is_set()
        clock.advance(10)
        await ann.wait_closed()
        await olga.wait_closed()
        await bea.wait_closed()
        assert "The server is restarting" in ann.text()
        await asyncio.wait_for(server.stopped.wait(), 30)
        assert server.restart.ended_by == "olga"


async def test_a_restart_called_off_does_not_stop_the_server(tmp_path: Path) -> None:
    olga_key = new_key()
    async with club(tmp_path, olga_key) as server:
        ann, olga = await in_the_lobby(server, olga_key)
        await olga.press(*"restart 60", "enter")
        await ann.wait_for("The server restarts in 60 s")
        await olga.press(*"restart cancel", "enter")
        await ann.wait_for("The server restart was called off (olga)")
        clock = clock_of(server)
        assert clock.pending() == 0, "nothing left to announce or to stop"
        clock.advance(120)
        assert not server.restart.running and server.restart.ended_by is None
        assert server.sessions.count == 2
        # Nothing to call off any more: the operator is told.
        await olga.press(*"restart cancel", "enter")
        await olga.wait_for("no restart is counting down")
        await ann.close()
        await olga.close()
    assert not ann.text().count("The server is restarting")


async def test_a_player_who_is_not_an_operator_cannot_restart(tmp_path: Path) -> None:
    async with club(tmp_path, new_key()) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(ann)
        # ann's app has no operator screen: send as a modified client would.
        handle = await server.lobby.connect("mallory")
        handle.send(Restart(1, "bye"))
        handle.send(CancelRestart())
        refusals = []
        while len(refusals) < 2:
            event = await asyncio.wait_for(handle.next_event(), 10)
            if isinstance(event, Rejected):
                refusals.append(event.code)
        assert refusals == [Refusal.OPERATOR_ONLY, Refusal.OPERATOR_ONLY]
        assert not server.restart.running
        await ann.press("o")
        await ann.wait_for("new table")
        assert "Tab: next list" not in ann.text()  # no dashboard for a player

        await handle.close()
        await ann.close()


# --- moon-server on SIGTERM --------------------------------------------------------------


async def start_moon_server(tmp_path: Path, countdown: float, more: str = ""
                            ) -> tuple[asyncio.subprocess.Process, int, list[str]]:
    config = tmp_path / "config.toml"
    config.write_text(f"restart_countdown_seconds = {countdown}\nshutdown_notice_seconds = 0\n"
                      + more)
    return await moon_server_process(tmp_path / "data", "--config", str(config))


async def test_sigterm_announces_the_configured_countdown_and_a_second_one_stops_at_once(
    tmp_path: Path,
) -> None:
    process, port, _log = await start_moon_server(tmp_path, 600)
    try:
        ann = await ScreenClient.connect(port, "ann", key=new_key(), width=100, height=30)
        await enter_lobby(ann, timeout=30)
        process.send_signal(signal.SIGTERM)
        await ann.wait_for("The server restarts in 10 min", timeout=30)
        assert not ann.closed.is_set()
        process.send_signal(signal.SIGTERM)
        await ann.wait_closed(timeout=30)
        assert "shutting down" in ann.text()
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_sigterm_without_a_countdown_stops_at_once(tmp_path: Path) -> None:
    process, port, _log = await start_moon_server(tmp_path, 0)
    try:
        ann = await ScreenClient.connect(port, "ann", key=new_key(), width=100, height=30)
        await enter_lobby(ann, timeout=30)
        process.send_signal(signal.SIGTERM)
        await ann.wait_closed(timeout=30)
        assert "shutting down" in ann.text() and "restarts in" not in ann.text()
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_an_operators_restart_ends_moon_server_with_the_status_that_restarts_it(
    tmp_path: Path,
) -> None:
    olga_key = new_key()
    line = olga_key.export_public_key("openssh").decode().strip()
    process, port, _log = await start_moon_server(
        tmp_path, 0, f'[operators]\nolga = ["{line}"]\n')
    try:
        olga = await ScreenClient.connect(port, "olga", key=olga_key, width=100, height=30)
        await enter_lobby(olga, timeout=30)
        await operator_command_line(olga)
        await olga.press(*"restart 0", "enter")
        await olga.wait_closed(timeout=30)
        assert "The server is restarting" in olga.text()
        assert await asyncio.wait_for(process.wait(), 30) == RESTART_EXIT_STATUS == 75
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def refusal_of(handle: PlayerHandle) -> object:
    """The code of the next refusal the handle reads."""
    while True:
        event = await asyncio.wait_for(handle.next_event(), 10)
        if isinstance(event, Rejected):
            return event.code


async def test_what_the_lobby_refuses_of_an_operators_restart(tmp_path: Path) -> None:
    async with club(tmp_path, new_key()) as server:
        olga = await server.lobby.connect("olga", operator=True)
        olga.send(Restart(3601))
        assert await refusal_of(olga) == Refusal.BAD_RESTART
        olga.send(CancelRestart())
        assert await refusal_of(olga) == Refusal.NO_RESTART
        server.restart_on_signal(60)  # the system's countdown: not the operator's to cancel
        olga.send(CancelRestart())
        assert await refusal_of(olga) == Refusal.RESTART_BY_SYSTEM
        assert server.restart.running
        await olga.close()
    # A lobby with no server to count down says so.
    async with Lobby() as lobby:
        olga = await lobby.connect("olga", operator=True)
        olga.send(Restart(60))
        assert await refusal_of(olga) == Refusal.RESTART_UNAVAILABLE
        await olga.close()
