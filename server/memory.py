"""Keeping Python's garbage collector from pausing every player at once.

A full collection walks every tracked object: ~10,000 per live session, so at 100
sessions one pass froze the whole server for over a second (measured). Objects in
`gc.freeze()`'s permanent generation are skipped by every pass, so the policy is:

- every half second, a full collection of what is *not* frozen (only what was made since
  the previous tick: cheap) and then `gc.freeze()`: what survives that long stops
  costing scan time;
- when a session ends, its app is dismantled (`teardown.py`) so reference counting
  frees most of it, frozen or not;
- what cyclic garbage stays frozen (~140 objects per ended session, measured, with the
  teardown) is reclaimed by `gc.unfreeze()` and one full collection, which pauses the
  server for as long as it takes to walk everything (~80 ms after 100 sessions, most of
  it the server's own objects). That is done when nobody is connected, not even
  at the welcome banner, or, so memory stays bounded on a server that is never
  empty, once the ended sessions outnumber the live ones twice over (and at least
  `min_dead`, 200): with 100 players online, a pause of about a second every 200 session
  ends. Its duration is logged.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)


class FreezePolicy:
    """Call `tick()` every `INTERVAL` seconds and `session_ended()` at each session's end."""

    INTERVAL = 0.5
    GENERATION = 2
    """The generation each tick collects up to (2: everything not frozen)."""
    SLOW_TICK = 0.05
    """A tick slower than this (seconds) is logged."""

    def __init__(self, *, min_dead: int = 200) -> None:
        self.min_dead = min_dead
        self.dead = 0
        """Sessions ended since the last reclaim."""
        self.reclaims = 0
        self.longest_reclaim = 0.0
        self.longest_tick = 0.0
        self.tick_cpu = 0.0
        """CPU seconds (of the loop's thread) spent in ticks so far."""

    def start(self) -> None:
        """Freeze what the server built at start (imports, lobby, caches)."""
        gc.collect()
        gc.freeze()

    def tick(self, *, live: int, connections: int) -> None:
        """`live`: sessions playing; `connections`: every open connection, those still
        logging in or at the banner included."""
        started, cpu = time.perf_counter(), time.thread_time()
        gc.collect(self.GENERATION)
        gc.freeze()
        took = time.perf_counter() - started
        self.tick_cpu += time.thread_time() - cpu
        self.longest_tick = max(self.longest_tick, took)
        if took > self.SLOW_TICK:
            log.info("memory tick took %.0f ms (%d live sessions)", took * 1000, live)
        quiet = live == 0 and connections == 0  # apps may outlive their connections
        if self.dead and (quiet and self.dead >= min(self.min_dead, 20)
                          or self.dead >= max(self.min_dead, 2 * live)):
            self.reclaim(live)

    def session_ended(self) -> None:
        self.dead += 1

    def reclaim(self, live: int) -> None:
        started = time.perf_counter()
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        pause = time.perf_counter() - started
        self.reclaims += 1
        self.longest_reclaim = max(self.longest_reclaim, pause)
        log.info(
            "memory reclaim: %d of %d frozen objects (%d ended sessions) freed in %.0f ms "
            "(%d live)", found, frozen, self.dead, pause * 1000, live,
        )
        self.dead = 0
