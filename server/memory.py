"""Keeping Python's garbage collector from pausing every player at once.

A full collection walks every tracked object: ~15,000 per session, so at 100 sessions a
full pass froze the whole server for about a second (measured). Objects in `gc.freeze()`'s
permanent generation are skipped by every pass, but are then only freed by reference
counting: an ended session's cyclic garbage stays until the next `gc.unfreeze()`.

The policy here: freeze after each session's first screen and every few seconds (the
live sessions' widgets stop costing scan time), and reclaim (unfreeze, one full
collection, freeze again) only when ended sessions make up about half of what is frozen,
or, as a safety net for garbage made between two freezes, when the frozen set has grown
by half and the last reclaim is ten minutes old. (Reclaiming on growth alone fired again
and again while players were arriving: their live widgets are growth too.) The pause of
a reclaim is as long as before, but it happens once per that many session ends instead
of every few seconds, and its duration is logged. Short-lived garbage is still collected
by the cheap young generations as usual.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)



class FreezePolicy:
    """Call `session_ready()` after a first screen and `session_ended()` at each end."""

    INTERVAL = 5.0
    """Seconds between two periodic freezes (`tick()`)."""
    SAFETY_NET_SECONDS = 600.0

    def __init__(self, *, min_dead: int = 50) -> None:
        self.min_dead = min_dead
        self.frozen_after_reclaim = 0
        self.last_reclaim = time.monotonic()
        self.live = 0
        self.dead_frozen = 0
        self.reclaims = 0
        self.longest_reclaim = 0.0

    def start(self) -> None:
        """Freeze what the server built at start (imports, lobby, caches) for good."""
        gc.collect()
        gc.freeze()
        self.frozen_after_reclaim = gc.get_freeze_count()

    def tick(self) -> None:
        """Called every `INTERVAL` seconds."""
        gc.freeze()
        if (
            time.monotonic() - self.last_reclaim > self.SAFETY_NET_SECONDS
            and gc.get_freeze_count() > 1.5 * self.frozen_after_reclaim
        ):
            self.reclaim()

    def session_ready(self) -> None:
        self.live += 1
        gc.freeze()

    def session_ended(self, *, was_ready: bool) -> None:
        if not was_ready:
            return
        self.live -= 1
        self.dead_frozen += 1
        if self.dead_frozen >= max(self.min_dead, self.live):
            self.reclaim()

    def reclaim(self) -> None:
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.frozen_after_reclaim = gc.get_freeze_count()
        self.last_reclaim = time.monotonic()
        pause = time.perf_counter() - started
        self.reclaims += 1
        self.longest_reclaim = max(self.longest_reclaim, pause)
        log.info(
            "memory reclaim: %d objects of %d ended sessions freed in %.0f ms (%d live)",
            found, self.dead_frozen, pause * 1000, self.live,
        )
        self.dead_frozen = 0
