"""Connections that never log in are summed up per address, not logged one by one
(issue 36: two lines each, 7 MB of log a minute under a flood)."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest

from tests.support.settings import FAST
from tools.probe import eventually, refused, running_server

pytestmark = pytest.mark.ssh


async def test_connections_that_never_log_in_make_one_line_per_address(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="server")
    async with running_server(tmp_path, lobby_config=FAST, guests=False) as server:
        for _ in range(5):  # bare sockets, closed without a word
            _reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.close()
        for _ in range(3):  # refused logins (no key, guests off)
            await refused(server.port, "visitor")
        await eventually(lambda: not server.gate.connections, "every connection closed")
        server.connection_log.flush()
    lines = [r.getMessage() for r in caplog.records if "from 127.0.0.1" in r.getMessage()]
    assert len(lines) == 1, lines
    counted = re.findall(r"(\d+) closed without logging in", lines[0])
    assert sum(map(int, counted)) == 8, lines
