"""The CPU the server spends sending one frame over SSH, with and without patch 20.

asyncssh put an empty SSH_MSG_IGNORE packet before every packet it sent (a counter-measure
for CBC ciphers, which moon-server does not offer); server/patches.py, patch 20, sends it
only on a CBC connection. Here a real asyncssh server and client talk on loopback with
asyncssh's default algorithms (OpenSSH and asyncssh clients get chacha20-poly1305). The
server writes `--frames` frames of `--size` bytes to the client's session, and the CPU
of those writes (building, encrypting and handing each packet to the socket) is timed
per frame, in rounds that alternate asyncssh's own `send_packet` and the patched one, so
that a change in the machine's speed falls on both.

Run: PYTHONPATH=. .venv/bin/python bench/ssh_send.py [--frames 3000] [--size 400]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import asyncssh
from asyncssh.connection import SSHConnection

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server import patches  # noqa: E402

ROUNDS = 5


class Open(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False  # no authentication: the cost measured is the sending


async def cpu_per_frame(frames: int, size: int, patched: bool, key: asyncssh.SSHKey) -> float:
    """CPU seconds per frame the server spent writing `frames` frames of `size` bytes."""
    send_packet = patches._send_packet if patched else patches._original_send_packet
    SSHConnection.send_packet = send_packet  # type: ignore[method-assign]
    spent: list[float] = []
    frame = "x" * size

    async def session(process: asyncssh.SSHServerProcess[str]) -> None:
        await asyncio.sleep(0.1)  # (the client's session is ready)
        began = time.process_time()
        for _ in range(frames):
            process.stdout.write(frame)
        spent.append(time.process_time() - began)
        process.exit(0)

    try:
        server = await asyncssh.create_server(
            Open, "127.0.0.1", 0, server_host_keys=[key], process_factory=session,
            encoding="utf-8", line_editor=False)
        port = server.sockets[0].getsockname()[1]
        # A window large enough that the writes never wait for the client.
        async with asyncssh.connect("127.0.0.1", port, known_hosts=None, username="bench",
                                    window=frames * size * 2) as client:
            await client.run("", check=False)
        server.close()
        await server.wait_closed()
    finally:
        SSHConnection.send_packet = patches._original_send_packet  # type: ignore[method-assign]
    return spent[0] / frames


async def main(frames: int, size: int) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    figures: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(ROUNDS):
        for patched in (False, True):
            figures[patched].append(await cpu_per_frame(frames, size, patched, key))
    before = statistics.median(figures[False]) * 1e6
    after = statistics.median(figures[True]) * 1e6
    print(f"{frames} frames of {size} bytes, median of {ROUNDS} rounds, server CPU per frame:")
    print(f"  asyncssh as released (an empty packet before each): {before:.1f} us")
    print(f"  with patch 20 (no empty packet):                    {after:.1f} us "
          f"({100 * (1 - after / before):.0f}% less)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--size", type=int, default=400, help="bytes per frame")
    args = parser.parse_args()
    asyncio.run(main(args.frames, args.size))
