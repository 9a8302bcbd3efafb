"""Checks on the processes a test started (the bot pool's workers)."""

import os


def gone(pids: list[int]) -> bool:
    """No process of `pids` is left (nor a zombie: whoever started them waited for each)."""
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        return False
    return True
