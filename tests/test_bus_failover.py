"""A worker killed (`kill -9`) in the middle of a hand loses nothing: `moon-server
--workers 2`, a game on one worker, that worker killed; its table is taken over by a
worker from the journal once its lease lapses, and its player, who connected again at
once (to whichever worker), is put back in their seat and plays on."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import asyncssh
import pytest
import valkey.asyncio as valkey

from server.bus_club import share_key
from tests.support.processes import found, supervised_club
from tests.test_ssh_survive import WAIT, create_table, start_game
from tools.probe import (
    ScreenClient,
    decide_once,
    enter_lobby,
    new_key,
)

pytestmark = pytest.mark.ssh


async def reconnect(port: int, key: asyncssh.SSHKey) -> ScreenClient:
    """Connect as a player does after a drop: a connection the kernel had queued on the
    killed worker's socket is reset (SO_REUSEPORT spreads them), and ssh is run again."""
    for _ in range(10):
        try:
            return await ScreenClient.connect(port, "ann", key=key, width=100, height=30)
        except (ConnectionResetError, asyncssh.ConnectionLost):
            await asyncio.sleep(0.2)
    return await ScreenClient.connect(port, "ann", key=key, width=100, height=30)


async def listed_by_the_other_worker(bus: valkey.Valkey, owner: str) -> None:
    """The other worker has read the owner's share listing the table (a club's table is
    listed on every worker within a round of shares; the kill must not come sooner): its
    own share written twice after the owner's listed the table, each round reading the
    others' just after writing its own."""
    worker = owner.split(".")[0]
    other = share_key("w1" if worker == "w0" else "w0")
    while b"playing" not in (await bus.get(share_key(worker)) or b""):
        await asyncio.sleep(0.05)
    for _ in range(2):
        left = await bus.pttl(other)
        while (now := await bus.pttl(other)) <= left:
            left = now
            await asyncio.sleep(0.05)


async def test_a_killed_workers_table_is_taken_over_and_its_game_goes_on(
    tmp_path: Path,
) -> None:
    async with supervised_club(tmp_path, "shutdown_notice_seconds = 0\nbot_delay = 0\n"
                               ) as club:
        port, lines = club.port, club.lines
        bus: valkey.Valkey | None = None
        try:
            where = found(lines, r"valkey-server \(pid \d+\) on (\S+)")
            assert where is not None
            bus = valkey.Valkey.from_url(f"unix://{where.group(1)}")
            key = new_key()
            ann = await ScreenClient.connect(port, "ann", key=key, width=100, height=30)
            await enter_lobby(ann, WAIT)
            await create_table(ann, bots=2)
            await start_game(ann)
            await decide_once(ann)  # a decision shown, and written, before the kill
            [lease] = await bus.keys("moon:table:*:owner")
            owner = (await bus.get(lease)).decode()
            await listed_by_the_other_worker(bus, owner)
            os.kill(int(owner.split(".")[1]), signal.SIGKILL)
            await ann.wait_closed(timeout=WAIT)

            async def taken_over() -> bool:
                holder = await bus.get(lease)
                return holder is not None and holder.decode() != owner

            ann = await reconnect(port, key)
            # Back at once, before the take-over: her table is listed as coming back, and
            # she waits for it there (never the welcome banner, never the lobby); once a
            # worker has taken it over she is in her seat, without a key.
            def in_seat(screen: str) -> bool:
                return "hand 1" in screen.splitlines()[0]

            def elsewhere(screen: str) -> bool:
                return "go to the lobby" in screen or "new table" in screen

            screen = await ann.wait_for(lambda s: in_seat(s) or elsewhere(s), 40)
            assert in_seat(screen), screen
            assert await taken_over()
            await decide_once(ann)  # and the game goes on
            await ann.close()
        finally:
            if bus is not None:
                await bus.aclose()
