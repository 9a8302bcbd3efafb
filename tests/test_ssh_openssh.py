"""What a player's own OpenSSH client shows when the server stops.

OpenSSH quits at a disconnect without writing out what it had received but not yet
shown, so a goodbye followed at once by closing the connection was lost: players read
only "Disconnected by application" (issue 13, item 3). The race shows with uvloop, the
event loop `moon-server` runs on, so these tests run on it too.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import asyncssh
import pytest
import uvloop

from moon_tui.lobby import LobbyConfig
from server.service import SHUTDOWN_MESSAGE
from tests.support.probe import running_server

pytestmark = [
    pytest.mark.ssh,
    pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client"),
]

LEAVE_FULL_SCREEN = b"\x1b[?1049l"


async def openssh(port: int, key_file: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        "ssh", "-tt", "-p", str(port), "-i", str(key_file), "-o", "IdentitiesOnly=yes",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "ann@127.0.0.1",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def read_until(process: asyncio.subprocess.Process, out: bytearray, marker: bytes) -> None:
    assert process.stdout is not None
    async with asyncio.timeout(20):
        while marker not in out:
            chunk = await process.stdout.read(4096)
            assert chunk, f"ssh ended before {marker!r}: {bytes(out[-300:])!r}"
            out.extend(chunk)


def test_at_shutdown_openssh_shows_why_then_keeps_it_in_the_terminal(tmp_path: Path) -> None:
    uvloop.run(shutdown_seen_through_openssh(tmp_path))


async def shutdown_seen_through_openssh(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)
    out = bytearray()
    async with running_server(tmp_path / "data", lobby_config=LobbyConfig(bot_delay=0.0),
                              shutdown_notice_seconds=1.0) as server:
        ssh = await openssh(server.port, key_file)
        assert ssh.stdin is not None and ssh.stdout is not None and ssh.stderr is not None
        await read_until(ssh, out, b"Welcome, ann")
        ssh.stdin.write(b"\r")
        await ssh.stdin.drain()
        await read_until(ssh, out, b"Online")
        in_lobby = len(out)
    out.extend(await asyncio.wait_for(ssh.stdout.read(), 20))
    errors = await ssh.stderr.read()
    assert await ssh.wait() == 0, errors
    after_lobby = bytes(out[in_lobby:])
    # First on the full screen, a moment...
    full_screen, _, after = after_lobby.rpartition(LEAVE_FULL_SCREEN)
    assert b"the server is shutting down" in full_screen
    # ...then left in the player's own terminal.
    assert SHUTDOWN_MESSAGE.encode() in after
    assert b"Disconnected" not in errors
