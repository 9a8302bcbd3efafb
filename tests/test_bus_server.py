"""The club's own bus: a real valkey-server on a unix socket only its user can open."""

import contextlib
import os
import stat
import time
from pathlib import Path

import pytest
import valkey.asyncio as valkey

from server.bus_server import BusServer, answers
from server.datafolder import CannotStart
from tests.support.processes import gone


async def test_the_bus_answers_on_a_private_socket_and_stops(valkey_bus: BusServer) -> None:
    client = valkey.Valkey.from_url(valkey_bus.url)
    try:
        assert await client.ping()
        await client.set("moon:test", "1")
        assert await client.get("moon:test") == b"1"
    finally:
        await client.aclose()
    assert stat.S_IMODE(os.stat(valkey_bus.folder).st_mode) == 0o700
    mode = os.stat(valkey_bus.socket).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) & 0o077 == 0
    pid = valkey_bus.pid
    assert pid is not None
    valkey_bus.stop()
    assert gone([pid]) and not valkey_bus.socket.exists()
    assert not answers(valkey_bus.socket)


def test_a_socket_path_too_long_is_refused_in_words(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    with pytest.raises(CannotStart, match="longer than a unix socket may be"):
        BusServer(deep).start()


def ended(pid: int) -> bool:
    """The child `pid` of this test ends within a few seconds (reaped here or by
    `subprocess`, which reaps the children it forgot when it starts the next)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        if gone([pid]):
            return True
        time.sleep(0.01)
    return False


def test_a_bus_left_by_a_killed_supervisor_is_ended_by_the_next_start(tmp_path: Path) -> None:
    first = BusServer(tmp_path)
    first.start()
    left = first.pid
    assert left is not None
    first._process = None  # as if its supervisor had been killed: nobody stops it
    second = BusServer(tmp_path)
    try:
        second.start()
        assert second.pid != left and answers(second.socket)
        assert ended(left)
    finally:
        second.stop()
        if not gone([left]):
            os.kill(left, 9)
