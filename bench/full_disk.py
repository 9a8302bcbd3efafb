"""Nothing shown is lost on a full disk, measured for real: `moon-server` on a 16 MB tmpfs.

Needs root (it mounts the tmpfs). A player (an SSH client with a terminal) plays against
two computers; the disk is filled with `dd`; the player's move must not show, the screen
must say the game waits; then the disk is freed and the figure is how long the table took
to go on. Then the disk is filled again, the player moves, the server is killed with
SIGKILL, started again on the still-full disk (it must say so), the disk freed, and the
player's screen must be what it was before the unwritten move.

    sudo .venv/bin/python bench/full_disk.py
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_ssh_full_disk import says, seats  # noqa: E402
from test_ssh_survive import move, my_turn, settled  # noqa: E402

from tools.probe import (  # noqa: E402
    ScreenClient,
    enter_lobby,
    moon_server_process,
    new_key,
    open_bot_table,
)

CONFIG = """\
bot_delay = 0
shutdown_notice_seconds = 0
[limits]
trick_pause_seconds = 0
hand_result_seconds = 0
"""
WAIT = 60.0


def fill(mount: Path) -> None:
    subprocess.run(["dd", "if=/dev/zero", f"of={mount / 'filler'}", "bs=64k"],
                   capture_output=True, check=False)


def free(mount: Path) -> None:
    (mount / "filler").unlink()


async def next_turn(ann: ScreenClient, before: str) -> str:
    """Play on (as the probe's simple player) to ann's next turn after `before`."""
    await ann.wait_for(lambda s: seats(s) != seats(before), WAIT)
    return await settled(ann, my_turn)


async def main() -> None:
    if os.geteuid() != 0:
        sys.exit("needs root: it mounts a 16 MB tmpfs")
    with tempfile.TemporaryDirectory() as where:
        mount = Path(where) / "disk"
        mount.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
                       check=True)
        config = Path(where) / "config.toml"
        config.write_text(CONFIG)
        try:
            await run(mount / "data", mount, config)
        finally:
            subprocess.run(["umount", str(mount)], check=False)


async def run(data: Path, mount: Path, config: Path) -> None:
    key = new_key()
    process, port, _ = await moon_server_process(data, "--config", str(config))
    ann = await ScreenClient.connect(port, "ann", key=key, width=100, height=30)
    await enter_lobby(ann, WAIT)
    await open_bot_table(ann, WAIT)
    before = await settled(ann, my_turn)

    fill(mount)
    await ann.press(move(before) or "enter")
    waiting = await ann.wait_for(says("cannot save right now: the game waits"), WAIT)
    assert seats(waiting) == seats(before), "the move was shown on a full disk"
    print("full disk: the move is not shown; the screen says the game waits")
    free(mount)
    freed = time.monotonic()
    await ann.wait_for(says("saves again: the game goes on"), WAIT)
    print(f"disk freed -> table goes on: {time.monotonic() - freed:.2f} s")

    before = await next_turn(ann, waiting)
    fill(mount)
    await ann.press(move(before) or "enter")
    await ann.wait_for(says("cannot save right now: the game waits"), WAIT)
    process.kill()
    await process.wait()
    await ann.close()
    print("killed with SIGKILL while the table waited")

    process, port, log_lines = await moon_server_process(data, "--config", str(config))
    started = time.monotonic()
    while not any("cannot write the database" in line for line in log_lines):
        assert process.stderr is not None and time.monotonic() - started < WAIT
        log_lines.append((await process.stderr.readline()).decode())
    print("restarted on the full disk; the log says:",
          next(line for line in log_lines if "cannot write the database" in line).strip())
    ann = await ScreenClient.connect(port, "ann", key=key, width=100, height=30)
    free(mount)
    freed = time.monotonic()
    back = await settled(ann, my_turn)
    print(f"disk freed -> ann back at her table: {time.monotonic() - freed:.2f} s")
    same = seats(back) == seats(before)
    print("after SIGKILL on a full disk, ann sees what she last saw:", same)
    await ann.close()
    process.kill()
    await process.wait()
    assert same, (seats(back), seats(before))


if __name__ == "__main__":
    asyncio.run(main())
