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

import asyncssh
import pytest

from server.channel import GameSSHServer
from server.memory import FreezePolicy
from server.service import MoonServer
from tests.support.probe import (
    ScreenClient,
    enter_lobby,
    eventually,
    new_key,
    refused,
    running_server,
)
from tests.support.settings import FAST

pytestmark = pytest.mark.ssh


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
        assert "taken" in await refused(server.port, owner, key=new_key())
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
