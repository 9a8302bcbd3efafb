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

import pytest
import uvloop

from moon_tui.lobby import LobbyConfig
from moon_tui.ui.door_words import SHUTDOWN_MESSAGE
from tools.probe import new_key, running_server

pytestmark = [
    pytest.mark.ssh,
    pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client"),
]

LEAVE_FULL_SCREEN = b"\x1b[?1049l"


async def openssh(port: int, key_file: Path, log_level: str = "ERROR"
                  ) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        "ssh", "-tt", "-p", str(port), "-i", str(key_file), "-o", "IdentitiesOnly=yes",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", f"LogLevel={log_level}", "-o", "BatchMode=yes", "ann@127.0.0.1",
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


def key_file_in(folder: Path) -> Path:
    key = new_key()
    key_file = folder / "id_ed25519"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)
    return key_file


def test_at_shutdown_openssh_shows_why_then_keeps_it_in_the_terminal(tmp_path: Path) -> None:
    uvloop.run(shutdown_seen_through_openssh(tmp_path))


async def shutdown_seen_through_openssh(tmp_path: Path) -> None:
    key_file = key_file_in(tmp_path)
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


def test_the_server_sends_openssh_no_empty_packet_before_each_of_its_own(
    tmp_path: Path,
) -> None:
    uvloop.run(packets_seen_by_openssh(tmp_path))


async def packets_seen_by_openssh(tmp_path: Path) -> None:
    """OpenSSH's debug log names each packet it receives: once encrypted, the server
    sends no SSH_MSG_IGNORE (type 2) before its packets (server/patches.py, patch 20)."""
    key_file = key_file_in(tmp_path)
    out = bytearray()
    async with running_server(tmp_path / "data", lobby_config=LobbyConfig(bot_delay=0.0)
                              ) as server:
        ssh = await openssh(server.port, key_file, log_level="DEBUG3")
        assert ssh.stdin is not None and ssh.stderr is not None
        await read_until(ssh, out, b"Welcome, ann")
        ssh.stdin.write(b"\r")
        await ssh.stdin.drain()
        await read_until(ssh, out, b"Online")
        ssh.stdin.write(b"qq")
        await ssh.stdin.drain()
        await asyncio.wait_for(ssh.wait(), 20)
    log = (await ssh.stderr.read()).decode(errors="replace")
    received = [int(line.rsplit(" ", 1)[1]) for line in log.splitlines()
                if line.startswith("debug3: receive packet: type ")]
    session_opened = 91  # (the log names the packets: the check below can fail)
    assert session_opened in received, log[-2000:]
    assert 2 not in received, received
    assert "Received SSH2_MSG_IGNORE" not in log
