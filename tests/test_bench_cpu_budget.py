"""`bench/ssh_load.py --cpu-budget` gives each server worker a share of a core and leaves
its computers' processes out of it: what issue 33's scaling figure is measured with.

The kernel enforces the budget, so the CPU bound below cannot flake: a process held to a
quarter of a core cannot use more than that (plus one period) in a second.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.cpu_budget import PERIOD_US, CpuBudget

BUSY_PARENT = """
import subprocess, sys, time
sys.stdin.readline()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(child.pid, flush=True)
end = time.monotonic() + 60
while time.monotonic() < end:
    pass
"""


def _can_budget() -> bool:
    try:
        CpuBudget(0.5)
    except SystemExit:
        return False
    return os.geteuid() == 0


pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or not _can_budget(),
    reason="needs Linux's cpu controller, as root (as the bench says)")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _group_of(pid: int, v2: bool) -> str:
    """The process's group in the hierarchy that has the cpu controller."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if (controllers == "") if v2 else ("cpu" in controllers.split(",")):
            return path
    return ""


def test_a_held_worker_runs_on_its_share_and_its_children_outside_it() -> None:
    budget = CpuBudget(0.25, name="moon-test-budget")
    parent = subprocess.Popen([sys.executable, "-c", BUSY_PARENT],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert parent.stdin is not None and parent.stdout is not None
    child = 0
    try:
        budget.hold(parent.pid)
        assert "moon-test-budget" in _group_of(parent.pid, budget.v2)
        parent.stdin.write("\n")
        parent.stdin.flush()
        child = int(parent.stdout.readline())
        # Started after the worker was held, the child is in its group, until released.
        assert "moon-test-budget" in _group_of(child, budget.v2)
        budget.release_children()
        assert "moon-test-budget" not in _group_of(child, budget.v2)

        before, started = _cpu_seconds(parent.pid), time.monotonic()
        time.sleep(1.0)
        used = _cpu_seconds(parent.pid) - before
        wall = time.monotonic() - started
        allowed = 0.25 * wall + 2 * PERIOD_US / 1e6 + 0.02  # one tick of /proc's clock
        assert used <= allowed, (used, allowed)
        assert budget.throttled_ms()[parent.pid] > 0
    finally:
        parent.kill()
        parent.wait()
        if child:
            os.kill(child, 9)
        budget.close()
    assert not budget.groups
    assert not any(p.name.startswith("moon-test-budget") for p in budget.root.iterdir())
