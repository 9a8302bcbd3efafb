"""The server's memory follows what is alive, whatever ends: not only game sessions.

The garbage collector policy (server/memory.py) runs as `moon-server` runs it; the
connections are real SSH clients (and bare TCP sockets) on loopback.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from server.channel import REFUSED_CHANNELS_MAX, BoundedProcess, GameSSHServer
from server.config import Limits
from server.memory import FreezePolicy
from server.service import MoonServer
from tests.support.settings import FAST
from tools.probe import (
    ScreenClient,
    cursor_on,
    enter_lobby,
    eventually,
    new_key,
    open_connection,
    refused,
    running_server,
)

pytestmark = pytest.mark.ssh

CHAT_PLACEHOLDER = "c: chat with everyone"


@pytest.fixture
def gc_restored() -> Iterator[None]:
    """The policy changes the process's collector: give the next test the one it had."""
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        gc.collect()


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> weakref.WeakSet[GameSSHServer]:
    """Every connection's server-side object, held weakly: what is in it is alive."""
    seen: weakref.WeakSet[GameSSHServer] = weakref.WeakSet()
    made = GameSSHServer.connection_made

    def remember(self: GameSSHServer, conn: asyncssh.SSHServerConnection) -> None:
        seen.add(self)
        made(self, conn)

    monkeypatch.setattr(GameSSHServer, "connection_made", remember)
    return seen


async def _ticks(server: MoonServer, count: int) -> None:
    """Until the memory policy has ticked `count` more times (each may freeze)."""
    policy = server.memory
    assert policy is not None
    target = policy.full_ticks + policy.young_ticks + count
    await eventually(lambda: policy.full_ticks + policy.young_ticks >= target,
                     f"{count} memory ticks")


async def _visitors_who_never_play(server: MoonServer, owner: str) -> None:
    """Silent TCP sockets, guests who quit at the banner and failed logins, all open
    together across memory ticks, then gone."""
    sockets = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(4)]
    quitters = [await ScreenClient.connect(server.port, "visitor") for _ in range(3)]
    for quitter in quitters:
        await quitter.wait_for("go to the lobby")
    for _ in range(3):
        assert "not a valid player name" in await refused(server.port, "no such name!",
                                                          key=new_key())
    await _ticks(server, 3)
    for quitter in quitters:
        await quitter.press("q")
        await quitter.wait_closed()
        await quitter.close()
    for _, writer in sockets:
        writer.close()
    await eventually(lambda: sum(server.gate.connections.values()) == 1,
                     "only the player's connection open")


def _others(seen: weakref.WeakSet[GameSSHServer], name: str) -> list[GameSSHServer]:
    return [c for c in seen if c.player is None or c.player.name != name]


@pytest.mark.parametrize("frozen", [False, True], ids=["never-frozen", "frozen-then-reclaimed"])
async def test_connections_that_never_play_are_freed_while_a_player_stays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gc_restored: None,
        connections: weakref.WeakSet[GameSSHServer], frozen: bool) -> None:
    """No game session ends here: the frozen garbage used to wait for 20 (or 200) of those.
    `frozen`: the policy freezes at every tick, young connections or not (as under a
    flood that never stops), so the visitors' objects are frozen while alive; their
    garbage must then be counted and reclaimed."""
    if frozen:
        monkeypatch.setattr(FreezePolicy, "MAX_DEFER", 0.0)
        monkeypatch.setattr(FreezePolicy, "RECLAIM_SHARE", 1e-9)
    async with running_server(tmp_path, lobby_config=FAST, freeze_memory=True) as server:
        player = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(player)
        await _visitors_who_never_play(server, "ann")
        await eventually(lambda: not _others(connections, "ann"),
                         "the visitors' connections freed")
        assert server.sessions.count == 1  # no game session ended meanwhile
        assert server.memory is not None
        assert (server.memory.reclaims > 0) == frozen
        assert server.memory.young <= 1  # every visitor's end was counted (not the player's)
        await player.wait_for("new table")
        await player.close()


async def _bare_channel(conn: asyncssh.SSHClientConnection) -> asyncssh.SSHClientChannel[bytes]:
    """A session channel opened and never used (no terminal, no shell), as a flood
    sends them. asyncssh's client always asks for a shell or a command, so this opens
    one by hand, with the request asyncssh itself sends first."""
    channel: asyncssh.SSHClientChannel[bytes] = asyncssh.SSHClientChannel(
        conn, asyncio.get_running_loop(), "strict", None, "strict", 2 * 1024 * 1024, 32768)
    await channel._open(b"session")
    return channel


async def test_a_connection_has_a_few_channels_at_once_and_closed_ones_are_freed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gc_restored: None) -> None:
    processes: weakref.WeakSet[BoundedProcess] = weakref.WeakSet()
    made = BoundedProcess.__init__

    def remember(self: BoundedProcess, *args: Any) -> None:
        made(self, *args)
        processes.add(self)

    monkeypatch.setattr(BoundedProcess, "__init__", remember)
    # Their garbage, frozen, waits for a reclaim: here the first garbage counted brings it.
    monkeypatch.setattr(FreezePolicy, "RECLAIM_SHARE", 1e-9)
    limit = Limits().channels_per_connection_max
    async with running_server(tmp_path, lobby_config=FAST, freeze_memory=True) as server:
        player = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(player)
        (conn,) = server.connections
        auth: GameSSHServer = conn.get_extra_info("moon_auth")
        for _ in range(3):
            tries = await asyncio.gather(*(_bare_channel(player.conn) for _ in range(12)),
                                         return_exceptions=True)
            opened = [c for c in tries if isinstance(c, asyncssh.SSHClientChannel)]
            refused = [e for e in tries if isinstance(e, asyncssh.ChannelOpenError)]
            assert len(opened) == limit - 1  # the game has one
            assert len(refused) == 12 - len(opened)
            assert {e.code for e in refused} == {asyncssh.OPEN_RESOURCE_SHORTAGE}
            assert auth.open_channels == limit
            await _ticks(server, 2)  # frozen while open, as a flood's would be
            for channel in opened:
                channel.close()
            await eventually(lambda: auth.open_channels == 1, "their places free again")
        await eventually(lambda: len(processes) == 1, "the closed channels freed")
        await player.press("c")  # the game goes on: the chat line takes the keys
        await player.wait_for(lambda _: cursor_on(player, CHAT_PLACEHOLDER))
        await player.close()


async def test_a_connection_that_keeps_opening_refused_channels_is_closed(
        tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        tries = await asyncio.gather(*(_bare_channel(conn) for _ in range(REFUSED_CHANNELS_MAX
                                                                          + 10)),
                                     return_exceptions=True)
        refused = [e for e in tries if isinstance(e, asyncssh.ChannelOpenError)]
        assert len(refused) >= REFUSED_CHANNELS_MAX
        await asyncio.wait_for(conn.wait_closed(), 10)
        await eventually(lambda: not server.gate.connections, "its connection closed")
