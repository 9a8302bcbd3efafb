"""`moon-server` as a process: expert computers think in worker processes of its own, and
none is left once it stops."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from tools.probe import (
    ScreenClient,
    changed,
    enter_lobby,
    eventually,
    moon_server_process,
    new_key,
    next_move,
)

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


def bot_workers(parent: int) -> list[int]:
    """The bot worker processes whose parent is `parent`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and b"moon_tui.bots.pool" in command:
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_experts_think_in_workers_that_stop_with_the_server(tmp_path: Path) -> None:
    process, port, _ = await moon_server_process(tmp_path / "data")
    try:
        client = await ScreenClient.connect(port, "ann", key=new_key())
        await enter_lobby(client, timeout=30)
        assert bot_workers(process.pid) == []  # nobody has asked an expert yet
        await client.press("n")
        await client.wait_for("Create (ctrl+s)", 15)
        await client.press("\x13")
        await client.wait_for("waiting room", 15)
        await client.press("v")  # normal -> expert
        for _ in range(2):
            before = client.text()
            await client.press("b")
            await changed(client, before)
        await client.wait_for("Every seat is taken", 15)
        await client.press("s")
        await client.wait_for("hand 1", 15)

        async def play_until_a_worker_thinks() -> list[int]:
            while not (workers := bot_workers(process.pid)):
                screen = client.text()
                if (key := next_move(screen)) is not None:
                    await client.press(key)
                await changed(client, screen, 0.5)
            return workers

        workers = await asyncio.wait_for(play_until_a_worker_thinks(), 60)
        process.send_signal(signal.SIGTERM)
        await client.wait_closed(timeout=30)
        assert await asyncio.wait_for(process.wait(), 30) == 0
        await eventually(lambda: not any(alive(pid) for pid in workers), "workers gone", 5)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
