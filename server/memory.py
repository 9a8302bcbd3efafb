"""Keeping Python's garbage collector from pausing every player at once.

A full collection walks every tracked object: ~10,000 per live session, so at 100
sessions one pass froze the whole server for over a second (measured). Objects in
`gc.freeze()`'s permanent generation are skipped by every pass, so the policy is:

- every half second, a collection of what is *not* frozen (only what was made since
  the previous tick: cheap) and then `gc.freeze()`: what survives that long stops
  costing scan time. The collection is a full one while sessions come and go (for
  `FRESH` seconds after a connection, a session start or end); in a steady spell, only
  the youngest generation (`STEADY_GENERATION`). A young collection leaves the cyclic
  garbage that Python's own collections had already moved to an older generation, and
  the freeze then keeps it. Measured with 100 club players (bench/ssh_load.py --mix
  club, MOON_GARBAGE_EVERY=60; notes/cap.md): the steady play left 0-66 such objects a
  minute with ticks up to generation 1 and 49 with full ones; the arrivals left
  ~550,000 with either (things alive at a tick that die later: a full tick does not
  help there, a reclaim does). Full ticks took ~10% of the server's CPU, generation-1
  ticks ~1-2%. With 300 club players, generation-1 ticks took 6% (23 ms of CPU each,
  for the ~45,000 objects Python's collections had moved there since the last tick, to
  find one piece of garbage a tick); generation-0 ticks take 0.6%, and left no garbage
  in steady play (counts 30 s apart: 0, 0, 0; with `OLDER_EVERY` as now, 0, 0);
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
    FRESH = 10.0
    """Seconds after the connections or sessions changed during which ticks are full."""
    STEADY_GENERATION = 0
    """The generation a tick collects up to in a steady spell (2: everything not frozen,
    as while sessions come and go)."""
    OLDER_EVERY = 100_000
    """Python's own collections of generation 1 come after this many of generation 0
    (Python's default: 10). They scanned what the next tick was to freeze anyway: with
    300 club players ~45,000 objects, 20-80 ms each, a pause for everyone. So high, the
    ticks do it: generation 1 waits at most half a second to be frozen, or collected
    while sessions come and go."""
    SLOW_TICK = 0.05
    """A tick slower than this (seconds) is logged."""

    def __init__(self, *, min_dead: int = 200) -> None:
        self.min_dead = min_dead
        self.dead = 0
        """Sessions ended since the last reclaim."""
        self.ended = 0
        """Sessions ended in all."""
        self.reclaims = 0
        self.longest_reclaim = 0.0
        self.longest_tick = 0.0
        self.tick_cpu = 0.0
        """CPU seconds (of the loop's thread) spent in ticks so far."""
        self.full_ticks = 0
        self.young_ticks = 0
        self._seen: tuple[int, int, int] = (-1, -1, -1)
        """(live, connections, ended) at the last tick: a change restarts `FRESH`."""
        self._changed = 0.0

    def start(self) -> None:
        """Freeze what the server built at start (imports, lobby, caches), and leave the
        older generations to the ticks (`OLDER_EVERY`)."""
        gc.collect()
        gc.freeze()
        young, _, old = gc.get_threshold()
        gc.set_threshold(young, self.OLDER_EVERY, old)

    def tick(self, *, live: int, connections: int) -> None:
        """`live`: sessions playing; `connections`: every open connection, those still
        logging in or at the banner included."""
        started, cpu = time.perf_counter(), time.thread_time()
        generation = self._generation(live, connections, started)
        gc.collect(generation)
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

    def _generation(self, live: int, connections: int, now: float) -> int:
        """2 while sessions come and go (their garbage must not be frozen), else the
        cheaper `STEADY_GENERATION`."""
        seen = (live, connections, self.ended)
        if seen != self._seen:
            self._seen, self._changed = seen, now
        if now - self._changed < self.FRESH:
            self.full_ticks += 1
            return 2
        self.young_ticks += 1
        return self.STEADY_GENERATION

    def session_ended(self) -> None:
        self.dead += 1
        self.ended += 1

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
