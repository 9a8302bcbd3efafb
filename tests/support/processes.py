"""The processes a test starts: checks on them (the bot pool's workers), and a club of
worker processes (`moon-server --workers 2`)."""

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from tools.probe import eventually, moon_server_process


def gone(pids: list[int]) -> bool:
    """No process of `pids` is left (nor a zombie: whoever started them waited for each)."""
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        return False
    return True


def found(lines: list[str], pattern: str) -> re.Match[str] | None:
    """The first match of `pattern` in the server's log lines."""
    for line in lines:
        if match := re.search(pattern, line):
            return match
    return None


@dataclass
class Club:
    """A `moon-server --workers 2` running: its process, its port, its log so far."""

    process: asyncio.subprocess.Process
    port: int
    lines: list[str]


@contextlib.asynccontextmanager
async def supervised_club(tmp_path: Path, config: str) -> AsyncIterator[Club]:
    """`moon-server --workers 2` with `config` (TOML), once both workers listen. On the
    way out it is stopped (SIGTERM, then kill) and no worker is left behind."""
    (tmp_path / "club.toml").write_text(f"workers = 2\n{config}")
    process, port, lines = await moon_server_process(
        tmp_path / "data", "--config", str(tmp_path / "club.toml"))
    assert process.stderr is not None
    stderr = process.stderr

    async def read() -> None:
        while line := await stderr.readline():
            lines.append(line.decode())

    reader = asyncio.create_task(read())
    try:
        await eventually(lambda: all(found(lines, rf"w{i} .*listening on \S+ port {port}")
                                     for i in (0, 1)), "both workers listening", 60)
        yield Club(process, port, lines)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
        await reader
        for pid in map(int, re.findall(r"worker \d started \(pid (\d+)\)", "".join(lines))):
            with contextlib.suppress(ProcessLookupError):  # a failed test leaves none
                os.kill(pid, signal.SIGKILL)
