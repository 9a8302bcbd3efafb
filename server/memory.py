"""Keeping Python's garbage collector from pausing every player at once.

A full collection walks every tracked object: ~10,000 per live session, so at 100
sessions one pass froze the whole server for over a second (measured). Objects in
`gc.freeze()`'s permanent generation are skipped by every pass, so the policy is:

- every half second, a collection of what is *not* frozen (only what was made since
  the previous tick: cheap) and then `gc.freeze()` (unless young connections are open:
  below): what survives that long stops costing scan time. The collection is a full
  one while sessions come and go (for `FRESH` seconds after a connection, a session
  start or end, and while young connections are open); in a steady spell, only the
  youngest generation (`STEADY_GENERATION`). A young collection leaves the cyclic
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
- a connection is cyclic garbage when it ends, whether or not it played: asyncio's
  transport and asyncssh's connection each hold a bound method of their own (measured
  per connection: a silent socket ~35 objects, 8 KB; a failed login ~40, 9 KB; a guest
  quitting at the banner ~70, 16 KB). Frozen, that garbage stayed until the next reclaim,
  which only ended game sessions brought: silent sockets at 60/s grew a server 1.6 GB an
  hour. So the freeze waits while connections opened since the last one are still open
  (`young`): a socket, a failed login or a banner quit that ends before is collected by
  the ticks, never frozen. Meanwhile the ticks are young collections, with a full one
  every `FULL_EVERY` seconds or `YOUNG_ENDED_COLLECT` ended young connections (for their
  garbage). It waits at most `MAX_DEFER` seconds, and no longer once such a full
  collection costs `FREEZE_COST` (what waits unfrozen costs scan time: players starting
  their apps meanwhile, say, or thousands of silent sockets open at once);
- what cyclic garbage stays frozen: a connection closed after a freeze (counted by
  `connection_closed`), a session channel closed on a connection that stays
  (`channel_closed`), a game session's leftovers (~140 objects after the teardown,
  `session_ended`). It is reclaimed by `gc.unfreeze()` and one full collection, which
  pauses the server for as long as it takes to walk everything (measured here: 125 ms
  with 30 players in the lobby, 270,000 objects; about a second at 300). So a reclaim
  comes when the garbage counted reaches `RECLAIM_SHARE` of the frozen objects: memory
  stays within that share of what is alive, and the pauses, the longer the more players,
  come the more rarely (their cost per piece of garbage is constant). Also when nobody
  is connected, not even at the welcome banner, once `QUIET_DEAD` ended (the pause is
  short then). Each reclaim's duration is logged.
"""

from __future__ import annotations

import gc
import logging
import sys
import time

log = logging.getLogger(__name__)


class FreezePolicy:
    """Call `tick()` every `INTERVAL` seconds, `connection_opened()` and
    `connection_closed()` for every connection, and `session_ended()` at each game
    session's end."""

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
    MAX_DEFER = 60.0
    """Seconds the freeze waits at most for young connections to end (under a flood that
    never stops, those open then are frozen, and counted when they end). A game
    session's connection stays young while its player plays: tried (issue 36), freezing
    without waiting for them froze every table screen's garbage too, and a club of 150
    players leaving had a reclaim of 2.1 s while the last ones still played
    (bench/ssh_load.py --mix club)."""
    FREEZE_COST = 0.05
    """CPU seconds of a full collection while the freeze waits past which it waits no
    longer: what waits unfrozen would cost as much at every full collection (at 20 ms,
    1,800 silent sockets open at once were frozen, then reclaimed in pauses of 80-250
    ms with one player on; scanning them every second costs ~2% of a core). Also when
    the next one would cost that much, had what waits grown again as much as since the
    last one: four guests arriving and opening tables grew a full collection from under
    50 ms to 124 ms in two seconds, a pause for every player (bench/attacks.py 4)."""
    FULL_EVERY = 1.0
    """Seconds between full collections while the freeze waits (a young one otherwise)."""
    YOUNG_ENDED_COLLECT = 50
    """Young connections ended that bring the next full collection forward (their
    garbage, ~35-70 objects each, waits for it)."""
    RECLAIM_SHARE = 0.1
    """A reclaim comes once the garbage counted reaches this share of the frozen objects."""
    QUIET_DEAD = 20
    """Ended connections and sessions for a reclaim when nobody is connected."""
    CONNECTION_GARBAGE = 60
    """Objects a connection leaves frozen when it ends (measured 35-70)."""
    CHANNEL_GARBAGE = 60
    """Objects a session channel closed after a freeze leaves frozen (about a connection's:
    asyncssh's channel and its process hold each other)."""
    SESSION_GARBAGE = 140
    """Objects a game session's app leaves frozen when it ends, after the teardown."""
    GROWTH = 1.25
    """A reclaim also comes once the frozen objects have grown this much since the last
    one (counted every `RECOUNT` seconds once Python's memory grew, `HEAP_GROWTH`). Not
    every piece of garbage is counted as it ends: the screens and tables a player leaves
    in a session that goes on are not (a guest cycling tables left 65 MB frozen with no
    session ending). Growth that more
    live sessions explain is not counted (`SESSION_OBJECTS`), and what is alive raises
    the mark at each reclaim, so reclaims that find little come rarely: memory follows
    what is alive whatever the traffic."""
    SESSION_OBJECTS = 10_000
    """Frozen objects a live session holds, about (~7,150 per player back at a table
    after a restart, bench/restart_burst.py; 8,600-9,000 per club player at 80x24,
    bench/ssh_load.py --mix club at 150 and 300: with 7,000, 300 players arriving
    brought a reclaim of 2.5 s that found 4% of the frozen objects garbage). Growth of
    that many per live session more than at the mark is what the new players hold, not
    garbage: 150 players coming back at once grew the frozen objects ninefold, and each
    count in the burst brought a reclaim that walked them all for nothing (1.2 and
    3.3 s, everyone frozen meanwhile)."""
    RECOUNT = 30.0
    """Seconds between looks at whether the frozen objects grew (`HEAP_GROWTH`)."""
    HEAP_GROWTH = 0.1
    """How much more of Python's memory than at the last count (its allocated blocks,
    `sys.getallocatedblocks()`: a look at its pools, 0.3 ms for 7 million blocks), past
    what the sessions that came since hold (`SESSION_BLOCKS`), brings a count of the
    frozen objects at a `RECOUNT`. A count walks them all, in the order they were frozen,
    all over the heap: 62-112 ms for 663,000-746,000 with 60-70 club players, 117-146 ms
    with 85-91 on each of two workers, a pause for everyone, the longest of a steady
    evening (bench/ssh_load.py --mix club); a heap that did not grow holds no more of them
    to find. Not 2%: a club's heap grew that much in 30 s for minutes after the arrivals
    (0.06% a second at 85 players once all had come). The growth rule's quarter is then
    seen at most a tenth late."""
    SESSION_BLOCKS = 17_000
    """Python's allocated blocks a live club player's session holds once it has played a
    few minutes, about (at 80x24, bench/ssh_load.py --mix club, 100 players: 14,400 each
    when the last sat down, 15,800 two minutes later, 16,750 after five, growing more
    slowly each minute: its screens' caches filling). Without it the last players of a
    club's arrival, after a count among the first, grew the heap past `HEAP_GROWTH` and
    brought one more count in the steady play; counted as they arrived (14,000), the
    sessions' own warming up brought that count a minute or two later (120-190 ms, one
    per worker, bench/ssh_load.py --cpu-budget)."""

    def __init__(self) -> None:
        self.dead = 0
        """Game sessions ended since the last reclaim."""
        self.dead_connections = 0
        """Connections closed since the last reclaim that a freeze had caught open."""
        self.dead_channels = 0
        """Session channels closed since the last reclaim that a freeze had caught open."""
        self.ended = 0
        """Game sessions ended in all."""
        self.reclaims = 0
        self.longest_reclaim = 0.0
        self.longest_tick = 0.0
        self.tick_cpu = 0.0
        """CPU seconds (of the loop's thread) spent in ticks so far."""
        self.full_ticks = 0
        self.young_ticks = 0
        self.freezes = 0
        """Also the stamp of the connections opened since the last freeze."""
        self.young = 0
        """Connections opened since the last freeze and still open."""
        self.deferred_freezes = 0
        """Freezes made with young connections open (`MAX_DEFER` or `FREEZE_COST`)."""
        self._seen: tuple[int, int, int] = (-1, -1, -1)
        """(live, connections, ended) at the last tick: a change restarts `FRESH`."""
        self._changed = 0.0
        self._frozen_at = time.perf_counter()
        self._full_at = self._frozen_at
        self._waited = False
        """Ticks went by without a freeze: the next one collects everything first."""
        self._young_ended = 0
        """Young connections ended since the last full collection."""
        self._full_cost = 0.0
        """CPU seconds of the last full collection since the last freeze."""
        self._frozen_count = 0
        self._counted_at = 0.0
        self._heap = 0
        """Python's allocated blocks at the last count of the frozen objects."""
        self._heap_live = 0
        """Live sessions at that count."""
        self.counts = 0
        """Counts of the frozen objects taken (each walks them all)."""
        self._mark = 0
        """The frozen objects after the last reclaim (or at start): `GROWTH` measures from
        here, with `SESSION_OBJECTS` for each live session more than `_mark_live`."""
        self._mark_live = 0
        """Live sessions at the mark."""
        self._thresholds = gc.get_threshold()

    def start(self) -> None:
        """Freeze what the server built at start (imports, lobby, caches), and leave the
        older generations to the ticks (`OLDER_EVERY`)."""
        self._thresholds = gc.get_threshold()
        gc.collect()
        gc.freeze()
        self._frozen_count = self._mark = gc.get_freeze_count()
        self._heap = sys.getallocatedblocks()
        young, _, old = self._thresholds
        gc.set_threshold(young, self.OLDER_EVERY, old)

    def stop(self) -> None:
        """Give the process its collector back as `start()` found it (nothing frozen)."""
        gc.unfreeze()
        gc.set_threshold(*self._thresholds)

    # --- what the server tells ---------------------------------------------------------

    def connection_opened(self) -> int:
        """A connection was accepted; returns its stamp for `connection_closed`."""
        self.young += 1
        return self.freezes

    def connection_closed(self, stamp: int) -> None:
        if stamp == self.freezes:
            self.young -= 1  # never frozen: the ticks collect what it leaves
            self._young_ended += 1
        else:
            self.dead_connections += 1

    def channel_closed(self, stamp: int) -> None:
        """A session channel closed; `stamp`: `freezes` when it opened. One closed on a
        connection that stays (a flood of channels, `help`) is garbage no session end or
        connection end counts."""
        if stamp != self.freezes:
            self.dead_channels += 1

    def session_ended(self) -> None:
        self.dead += 1
        self.ended += 1

    # --- ticks ------------------------------------------------------------------------

    def tick(self, *, live: int, connections: int) -> None:
        """`live`: sessions playing; `connections`: every open connection, those still
        logging in or at the banner included."""
        started, cpu = time.perf_counter(), time.thread_time()
        fresh = self._fresh(live, connections, started)
        due = not self.young or started - self._frozen_at >= self.MAX_DEFER
        if due:  # what waited since the last freeze is collected whole first
            full = fresh or self._waited
        else:  # waiting: young collections, and now and then a full one for what ended
            full = (self._young_ended >= self.YOUNG_ENDED_COLLECT
                    or started - self._full_at >= self.FULL_EVERY)
        gc.collect(2 if full else self.STEADY_GENERATION)
        if full:
            self.full_ticks += 1
            self._young_ended, self._full_at = 0, started
            cost = time.thread_time() - cpu
            # What waits unfrozen costs that much at every full collection, and the next
            # one will cost more again by as much as this one grew: enough.
            due = due or max(cost, 2 * cost - self._full_cost) > self.FREEZE_COST
            self._full_cost = cost
        else:
            self.young_ticks += 1
        if due:
            self._freeze(started)
        else:
            self._waited = True
        took = time.perf_counter() - started
        self.tick_cpu += time.thread_time() - cpu
        self.longest_tick = max(self.longest_tick, took)
        if took > self.SLOW_TICK:
            log.info("memory tick took %.0f ms (%d live sessions)", took * 1000, live)
        if self._reclaim_due(live, live == 0 and connections == 0, started):
            self.reclaim(live)

    def _freeze(self, now: float) -> None:
        gc.freeze()
        self._full_cost = 0.0
        if self.young:
            self.deferred_freezes += 1
        self.freezes += 1
        self.young = 0
        self._frozen_at = now
        self._waited = False

    def _fresh(self, live: int, connections: int, now: float) -> bool:
        """Sessions came or went within `FRESH` seconds: their garbage must not be
        frozen, so a freeze then follows a full collection (else the cheaper
        `STEADY_GENERATION`)."""
        seen = (live, connections, self.ended)
        if seen != self._seen:
            self._seen, self._changed = seen, now
        return now - self._changed < self.FRESH

    def garbage(self) -> int:
        """Frozen garbage objects, as counted from what ended since the last reclaim."""
        return (self.dead * self.SESSION_GARBAGE + self.dead_connections * self.CONNECTION_GARBAGE
                + self.dead_channels * self.CHANNEL_GARBAGE)

    def _reclaim_due(self, live: int, quiet: bool, now: float) -> bool:
        """`quiet`: nobody connected (apps may outlive their connections)."""
        if now - self._counted_at >= self.RECOUNT:
            self._counted_at = now
            if self._heap_grew(live):  # the frozen objects may have grown: count them
                self._frozen_count = gc.get_freeze_count()
                self.counts += 1
                alive = self._mark + max(0, live - self._mark_live) * self.SESSION_OBJECTS
                if self._mark and self._frozen_count >= self.GROWTH * alive:
                    return True
        ended = self.dead + self.dead_connections + self.dead_channels
        if not ended:
            return False
        if quiet and ended >= self.QUIET_DEAD:
            return True
        return self.garbage() >= self.RECLAIM_SHARE * self._frozen_count

    def _heap_grew(self, live: int) -> bool:
        """Python's memory grew by `HEAP_GROWTH` since the last count, past what the
        sessions that came since hold (the frozen objects may have, then: count them);
        the mark for the next look moves only on a count."""
        heap = sys.getallocatedblocks()
        came = max(0, live - self._heap_live)
        if heap < (self._heap + came * self.SESSION_BLOCKS) * (1 + self.HEAP_GROWTH):
            return False
        self._heap, self._heap_live = heap, live
        return True

    def reclaim(self, live: int) -> None:
        started = time.perf_counter()
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        found = gc.collect()
        self._freeze(started)  # young connections open now are frozen too: stamped so
        self._frozen_count = self._mark = frozen - found
        self._mark_live = live
        self._heap, self._heap_live = sys.getallocatedblocks(), live
        pause = time.perf_counter() - started
        self.reclaims += 1
        self.longest_reclaim = max(self.longest_reclaim, pause)
        log.info(
            "memory reclaim: %d of %d frozen objects (%d ended sessions, %d ended "
            "connections, %d closed channels) freed in %.0f ms (%d live)",
            found, frozen, self.dead, self.dead_connections, self.dead_channels,
            pause * 1000, live,
        )
        self.dead = 0
        self.dead_connections = 0
        self.dead_channels = 0
