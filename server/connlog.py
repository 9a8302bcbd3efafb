"""Connections that never log in, and sessions refused, summed up per address per minute.

Each connection that never logged in wrote two log lines ("connection from", "closed"):
under a flood of bare sockets that was 7 MB of log a minute (issue 36). A player's
login and logout are still logged one by one (`auth.py`); what no player did is counted
here and written as one line per address per `PERIOD`, with its counts.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable

from .logtext import shown

log = logging.getLogger(__name__)

OTHERS = "other addresses"
"""Where the counts of addresses past `MAX_ADDRESSES` in one period go."""


class ConnectionLog:
    """Counts by address and by what happened; `flush()` writes them (`run()` does it
    every `PERIOD`)."""

    PERIOD = 60.0
    MAX_ADDRESSES = 1000
    """Addresses named in one period; the rest are summed as one line."""
    MAX_KINDS = 6
    """Different things counted per address (a client's own disconnect text varies)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._since = clock()
        self._counts: dict[str, Counter[str]] = {}
        self.unlogged = 0
        """Connections closed without logging in since the last flush."""

    def closed_unlogged(self, address: str, reason: object | None) -> None:
        """A connection from `address` ended before logging in (`reason`: why, if known)."""
        self.unlogged += 1
        why = f" ({shown(reason, 40)})" if reason is not None else ""
        self.note(address, f"closed without logging in{why}")

    def note(self, address: str, what: str) -> None:
        """Count one `what` (short words, no client text unescaped) for `address`."""
        counts = self._counts.get(address)
        if counts is None:
            if len(self._counts) >= self.MAX_ADDRESSES:
                address = OTHERS
            counts = self._counts.setdefault(address, Counter())
        if what not in counts and len(counts) >= self.MAX_KINDS:
            what = "other"
        counts[what] += 1

    def flush(self) -> None:
        """One line per address for what was counted since the last flush."""
        now = self._clock()
        seconds = now - self._since
        self._since = now
        counts, self._counts = self._counts, {}
        self.unlogged = 0
        for address, kinds in counts.items():
            said = ", ".join(f"{count} {what}" for what, count in kinds.most_common())
            log.info("from %s in the last %.0f s: %s", address, seconds, said)

    async def run(self) -> None:
        """Flush every `PERIOD` (until cancelled)."""
        try:
            while True:
                await asyncio.sleep(self.PERIOD)
                self.flush()
        finally:
            self.flush()
