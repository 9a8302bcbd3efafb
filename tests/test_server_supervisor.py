"""`moon-server --workers N`: workers on one port, restarted when they die, stopped together."""

import asyncio
import os
import re
import signal
from pathlib import Path

from tests.support.processes import found, gone, supervised_club
from tools.probe import ScreenClient, enter_lobby, eventually, new_key


async def test_workers_share_the_port_come_back_when_killed_and_stop_together(
    tmp_path: Path,
) -> None:
    async with supervised_club(tmp_path, "shutdown_notice_seconds = 0\n") as club:
        process, port, lines = club.process, club.port, club.lines
        pids = {int(m.group(1)): int(m.group(2)) for m in re.finditer(
            r"worker (\d) started \(pid (\d+)\)", "".join(lines))}
        bus = found(lines, r"valkey-server \(pid (\d+)\) on (\S+)")
        assert bus is not None and Path(bus.group(2)).is_socket()

        os.kill(pids[1], signal.SIGKILL)
        await eventually(lambda: found(lines, rf"worker 1 \(pid {pids[1]}\) ended with status "
                                              r"-9 .* started again in 1 s") is not None,
                         "the supervisor saw worker 1 die", 30)
        # Meanwhile worker 0 alone takes the connections.
        ann = await ScreenClient.connect(port, "ann", key=new_key(), width=100, height=30)
        await enter_lobby(ann, timeout=30)
        await eventually(lambda: len(re.findall(rf"w1 .*listening on \S+ port {port}",
                                                "".join(lines))) == 2,
                         "worker 1 started again", 60)
        restarted = re.findall(r"worker 1 started \(pid (\d+)\)", "".join(lines))
        assert len(restarted) == 2 and int(restarted[1]) != pids[1]

        process.send_signal(signal.SIGTERM)
        await ann.wait_closed(timeout=30)
        assert "shutting down" in ann.text()
        assert await asyncio.wait_for(process.wait(), 30) == 0
        assert gone([pids[0], int(restarted[1]), int(bus.group(1))])
        assert not Path(bus.group(2)).exists()
        assert found(lines, "every worker stopped")


async def test_the_clubs_own_bus_comes_back_when_killed_and_the_workers_find_it(
    tmp_path: Path,
) -> None:
    # The supervisor started the bus and nobody watched it: killed (or out of memory),
    # it stayed gone, and the workers tried for good to reach it.
    async with supervised_club(tmp_path, "shutdown_notice_seconds = 0\n") as club:
        lines = club.lines
        first = found(lines, r"valkey-server \(pid (\d+)\) on (\S+)")
        assert first is not None
        os.kill(int(first.group(1)), signal.SIGKILL)
        await eventually(lambda: found(lines, rf"valkey-server \(pid {first.group(1)}\) "
                                              r"ended with status -9 .* started again in 1 s")
                         is not None, "the supervisor saw the bus die", 30)
        await eventually(lambda: len(re.findall(r"valkey-server \(pid \d+\) on",
                                                "".join(lines))) == 2, "started again", 30)
        pids = re.findall(r"valkey-server \(pid (\d+)\) on", "".join(lines))
        assert pids[1] != pids[0]
        await eventually(lambda: all(found(lines, rf"{w} .*this worker's share was gone")
                                     for w in ("w0", "w1")),
                         "each worker shares its part of the club on it again", 30)
        ann = await ScreenClient.connect(club.port, "ann", key=new_key(), width=100,
                                         height=30)
        await enter_lobby(ann, timeout=30)
        await ann.close()

        club.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(club.process.wait(), 30) == 0
        assert gone([int(pids[1])])
