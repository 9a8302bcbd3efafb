"""A share of one core for each server worker: a machine with a slower core per worker,
and the players and the computers elsewhere (`bench/ssh_load.py --cpu-budget`).

Issue 33's scaling figure compares one worker with two on this 2-core machine, where the
players' clients and the computers' processes share the two cores with the workers: at
1.6 times the players, the three together wanted the whole machine (docs/CAPACITY.md).
Here each worker process (its event loop and its threads) runs in a control group of its
own with a CPU budget of `share` of a core, given every `PERIOD_US` (Linux's CFS
bandwidth control); what it starts later (the computers' processes) is moved out to the
machine's own group, where the players are too. Two workers of 0.5 then have a core
between them as one of 0.5 has half, and the rest of the machine is the players'.

Linux only, as root, with the `cpu` controller of cgroup v1 (`/sys/fs/cgroup/cpu`) or v2.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PERIOD_US = 10_000
"""The budget is given per 10 ms: a worker that spent it waits at most the rest of the
10 ms (with the default 100 ms, a burst of work would stall it for up to 50 ms)."""

V1 = Path("/sys/fs/cgroup/cpu")
V2 = Path("/sys/fs/cgroup")


def _root() -> tuple[Path, bool]:
    """The cpu controller's root, and whether it is cgroup v2."""
    if (V1 / "cpu.cfs_quota_us").exists():
        return V1, False
    controllers = V2 / "cgroup.controllers"
    if controllers.exists() and "cpu" in controllers.read_text().split():
        return V2, True
    raise SystemExit("--cpu-budget needs Linux's cpu controller (cgroup v1 or v2) as root")


class CpuBudget:
    """Each process given to `hold` runs on `share` of a core; its children do not."""

    def __init__(self, share: float, name: str = "moon-bench") -> None:
        self.share = share
        self.root, self.v2 = _root()
        self.name = name
        self.groups: dict[int, Path] = {}
        """Each held process's control group."""

    def hold(self, pid: int) -> None:
        """Move the whole process `pid` (every thread) into a group of its own."""
        group = self.root / f"{self.name}-{os.getpid()}-{pid}"
        group.mkdir(exist_ok=True)
        quota = max(1000, round(self.share * PERIOD_US))
        if self.v2:
            (group / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
        (group / "cgroup.procs").write_text(str(pid))
        self.groups[pid] = group

    def release_children(self) -> None:
        """The held processes' children (the computers' processes) run outside the budget."""
        for pid in self.groups:
            for child in _children(pid):
                with contextlib.suppress(OSError):
                    (self.root / "cgroup.procs").write_text(str(child))

    def throttled_ms(self) -> dict[int, float]:
        """For each held process: how long its budget ran out, in all (ms)."""
        figures: dict[int, float] = {}
        for pid, group in self.groups.items():
            stat = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines())
            figures[pid] = (int(stat["throttled_usec"]) / 1000 if self.v2
                            else int(stat["throttled_time"]) / 1e6)
        return figures

    def close(self) -> None:
        """Remove the groups (their processes have ended, or go back to the root)."""
        for pid, group in self.groups.items():
            with contextlib.suppress(OSError):
                (self.root / "cgroup.procs").write_text(str(pid))
            with contextlib.suppress(OSError):
                group.rmdir()
        self.groups.clear()


def _children(pid: int) -> list[int]:
    """The processes `pid` started (from every one of its threads)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for thread in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                text = Path(f"/proc/{pid}/task/{thread}/children").read_text()
                found += [int(child) for child in text.split()]
    return found
