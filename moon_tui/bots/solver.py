"""A double-dummy solver: with every hand known, how many of the remaining tricks can the
declarer's side take against best defence?

Alpha-beta over single plays, a transposition table at trick boundaries (the position is
the hands and the leader, so one table serves every sample of a decision), move ordering
(cheap wins first, then cheap losers), and equivalent-trump pruning (two trumps of one hand
with no live trump between them play the same way).

"Best" with three players: the declarer maximises its side's tricks, and the defenders
together minimise them (a "paranoid" alliance). A defender scores one point per trick it
takes, but setting the contract costs the declarer the whole bid, so a defender's interest
is almost entirely the declarer's trick count; the split of tricks between the two
defenders is ignored here. Every scoring rule is monotone in the declarer side's tricks,
so this trick count is enough to rank actions for either side (see `expert.utility`).

Two implementations of one search: `PySolver` here, the reference and the fallback, and
`_dds.c`, compiled at install where a C compiler exists (about 50 times faster, the same
values and the same nodes searched). `Solver` is the one to use.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from ..rules.tiles import FOLLOW, IS_TRUMP, LEAD_SUIT, TILES, WIN_RANK

if TYPE_CHECKING:
    from . import _dds

log = logging.getLogger(__name__)

_TT_LIMIT: Final = 300_000


class SearchTimeout(Exception):
    """The solver's deadline passed in the middle of a search."""



def _trumps_high_first(trump: int) -> tuple[int, ...]:
    ranks = WIN_RANK[trump][7]
    return tuple(sorted((t for t in range(28) if IS_TRUMP[trump] >> t & 1),
                        key=lambda t: -ranks[t]))


#: For each trump, the trumps from the highest down.
TRUMP_ORDER: Final[tuple[tuple[int, ...], ...]] = tuple(_trumps_high_first(tr) for tr in range(9))
#: A tile's strength when it leads (trumps above every plain tile): the order leads are tried.
LEAD_STRENGTH: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(WIN_RANK[tr][LEAD_SUIT[tr][t]][t] for t in range(28)) for tr in range(9)
)


def _by_rank(ranks: Sequence[int]) -> list[int]:
    """Every tile, the lowest in this ranking first."""
    return sorted(range(28), key=lambda t: (ranks[t], t))


def _places(order: Sequence[int]) -> list[int]:
    """For each tile, its position in `order`."""
    places = [0] * 28
    for i, t in enumerate(order):
        places[t] = i
    return places


def _move_orders(trump: int) -> tuple[tuple[int, ...], tuple[int, ...],
                                      tuple[tuple[int, ...], ...]]:
    """The orders moves are tried in: leads strongest first, discards cheapest first, and
    for each suit led the tiles from the lowest winner up."""
    strength = LEAD_STRENGTH[trump]
    return (tuple(sorted(range(28), key=lambda t: (-strength[t], t))),
            tuple(sorted(range(28), key=lambda t: (strength[t], t))),
            tuple(tuple(_by_rank(WIN_RANK[trump][led])) for led in range(8)))


#: For each trump: (lead order, cheap order, follow order for each suit led).
MOVE_ORDERS: Final = tuple(_move_orders(tr) for tr in range(9))


def bits(mask: int) -> list[int]:
    """The tile indexes of a bitmask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class PySolver:
    """Double-dummy solver for one trump and one declaring side, reusable across positions.

    The pure-Python solver: the reference, and the fallback where the compiled one
    (`_dds.c`, the same search step for step) was not built. Use `Solver`.

    `side[s]` is true for the seats of the declarer's side. Values are tricks taken by that
    side from the current trick (included) to the end of the hand.
    """

    def __init__(self, trump: int, players: int, side: Sequence[bool]) -> None:
        self.trump = trump
        self.n = players
        self.side = tuple(bool(s) for s in side)
        self.follow = FOLLOW[trump]
        self.lead_suit = LEAD_SUIT[trump]
        self.win_rank = WIN_RANK[trump]
        self.trump_mask = IS_TRUMP[trump]
        self.trump_order = TRUMP_ORDER[trump]
        # Sort keys: a tile's place in each move order (strongest lead first, cheapest
        # discard first, lowest winner first).
        lead, cheap, follow = MOVE_ORDERS[trump]
        self.lead_key = _places(lead).__getitem__
        self.cheap_key = _places(cheap).__getitem__
        self.follow_key = [_places(order).__getitem__ for order in follow]
        self.tt: dict[int, tuple[int, int]] = {}
        self.nodes = 0
        self.deadline: float | None = None
        """`clock()` value after which a search raises `SearchTimeout`."""
        self.clock: Callable[[], float] = time.perf_counter

    # -- public ---------------------------------------------------------------------------
    def solve(self, hands: Sequence[int], leader: int, trick: Sequence[int] = (),
              guess: int | None = None) -> int:
        """Tricks the declarer's side takes from here with best play by everyone.

        `hands` by seat (tiles still held), `trick` the tiles already played to the open
        trick, starting with `leader`'s. `guess` (a likely value) only changes the speed.
        """
        if len(self.tt) > _TT_LIMIT:
            self.tt.clear()
        remaining = max(x.bit_count() for x in hands) + (1 if trick else 0)
        return self._mtdf(list(hands), leader, list(trick), remaining,
                          remaining // 2 if guess is None else guess)

    def move_values(self, hands: Sequence[int], leader: int,
                    trick: Sequence[int] = ()) -> dict[int, int]:
        """For each legal tile of the seat to move: the side's tricks if it plays that tile
        (exact values, not bounds)."""
        if len(self.tt) > _TT_LIMIT:
            self.tt.clear()
        n = self.n
        mover = (leader + len(trick)) % n
        h = list(hands)
        t = list(trick)
        hand = h[mover]
        if t:
            f = hand & self.follow[self.lead_suit[t[0]]]
            if f:
                hand = f
        remaining = max(x.bit_count() for x in h) + (1 if t else 0)
        out = {}
        guess = remaining // 2
        kept = self._prune_trumps(hand, h, t)
        for tile in bits(kept):
            bit = 1 << tile
            h[mover] ^= bit
            t.append(tile)
            out[tile] = guess = self._mtdf(h, leader, t, remaining, guess)
            t.pop()
            h[mover] ^= bit
        if kept != hand:
            # A trump dropped as equivalent is worth what the trump just above it is.
            value = -1
            for tile in self.trump_order:
                if tile in out:
                    value = out[tile]
                elif hand >> tile & 1:
                    out[tile] = value
        return out

    def _mtdf(self, hands: list[int], leader: int, trick: list[int], top: int,
              guess: int) -> int:
        """The exact value by a series of null-window searches (MTD(f)): each one only
        asks "at least g?", which prunes far more than one wide search."""
        lo, hi = 0, top
        g = min(max(guess, lo), hi)
        while lo < hi:
            beta = g + 1 if g == lo else g
            g = self._within(hands, leader, trick, beta - 1, beta)
            if g < beta:
                hi = g
            else:
                lo = g
        return lo

    # -- search ---------------------------------------------------------------------------
    def _start(self, hands: list[int], leader: int, alpha: int, beta: int) -> int:
        """A trick boundary: look the position up, search it, store the bounds."""
        remaining = hands[leader].bit_count()
        if remaining == 0:
            return 0
        if remaining == 1:
            return self._last_trick(hands, leader)
        key = leader
        shift = 2
        for x in hands:
            key |= x << shift
            shift += 28
        entry = self.tt.get(key)
        if entry is not None:
            lo, hi = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        else:
            lo, hi = 0, remaining
        a0, b0 = alpha, beta
        value = self._within(hands, leader, [], alpha, beta)
        if value <= a0:
            hi = min(hi, value)
        elif value >= b0:
            lo = max(lo, value)
        else:
            lo = hi = value
        self.tt[key] = (lo, hi)
        return value

    def _last_trick(self, hands: list[int], leader: int) -> int:
        n = self.n
        first = hands[leader].bit_length() - 1
        ranks = self.win_rank[self.lead_suit[first]]
        best_seat, best_rank = leader, ranks[first]
        for i in range(1, n):
            s = (leader + i) % n
            r = ranks[hands[s].bit_length() - 1]
            if r > best_rank:
                best_seat, best_rank = s, r
        return 1 if self.side[best_seat] else 0

    def _within(self, hands: list[int], leader: int, trick: list[int],
                alpha: int, beta: int) -> int:
        """Inside a trick: the seat to move tries its ordered, pruned candidates."""
        self.nodes += 1
        if not self.nodes & 1023 and self.deadline is not None \
                and self.clock() > self.deadline:
            raise SearchTimeout
        n = self.n
        k = len(trick)
        side = self.side
        if k == n:  # only from `move_values`, when its move ends the trick
            ranks = self.win_rank[self.lead_suit[trick[0]]]
            best_i = max(range(n), key=lambda i: ranks[trick[i]])
            winner = (leader + best_i) % n
            won = 1 if side[winner] else 0
            return won + self._start(hands, winner, alpha - won, beta - won)
        mover = (leader + k) % n
        maximise = side[mover]
        hand = hands[mover]
        if k == 0:
            cands = hand
            if (cands & self.trump_mask).bit_count() > 1:
                cands = self._prune_trumps(cands, hands, trick)
            moves = sorted(bits(cands), key=self.lead_key)
            best_rank = -1
            holder = -1
            ranks = self.win_rank[0]
        else:
            led = self.lead_suit[trick[0]]
            f = hand & self.follow[led]
            cands = f if f else hand
            if (cands & self.trump_mask).bit_count() > 1:
                cands = self._prune_trumps(cands, hands, trick)
            ranks = self.win_rank[led]
            best_i, best_rank = 0, ranks[trick[0]]
            for i in range(1, k):
                r = ranks[trick[i]]
                if r > best_rank:
                    best_i, best_rank = i, r
            holder = (leader + best_i) % n
            if side[holder] == maximise:
                # The trick is already ours: cheapest tiles first.
                moves = sorted(bits(cands), key=self.cheap_key)
            else:
                tiles = bits(cands)
                moves = sorted([t for t in tiles if ranks[t] > best_rank],
                               key=self.follow_key[led])
                if len(moves) < len(tiles):
                    moves += sorted([t for t in tiles if ranks[t] <= best_rank],
                                    key=self.cheap_key)
        best = -1 if maximise else 99
        last = k == n - 1
        for tile in moves:
            hands[mover] = hand ^ (1 << tile)
            if last:
                winner = mover if ranks[tile] > best_rank else holder
                won = 1 if side[winner] else 0
                value = won + self._start(hands, winner, alpha - won, beta - won)
            else:
                trick.append(tile)
                value = self._within(hands, leader, trick, alpha, beta)
                trick.pop()
            if maximise:
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            break
            else:
                if value < best:
                    best = value
                    if value < beta:
                        beta = value
                        if alpha >= beta:
                            break
        hands[mover] = hand
        return best

    def _prune_trumps(self, cands: int, hands: list[int], trick: list[int]) -> int:
        """Keep one trump of each run of the mover's trumps with no live trump between."""
        if (cands & self.trump_mask).bit_count() < 2:
            return cands
        live = 0
        for x in hands:
            live |= x
        for t in trick:
            live |= 1 << t
        prev_mine = False
        for t in self.trump_order:
            if live >> t & 1:
                if cands >> t & 1:
                    if prev_mine:
                        cands ^= 1 << t
                    prev_mine = True
                else:
                    prev_mine = False
        return cands


def describe(hands: Sequence[int]) -> str:
    """Hands as text, for logs and failing tests."""
    return " | ".join(" ".join(str(TILES[t]) for t in reversed(bits(h))) for h in hands)


def _compiled() -> type[_dds.Solver] | None:
    """The compiled solver, given the rule tables, or None where it was not built."""
    try:
        from . import _dds
    except ImportError:
        return None
    tables = [(FOLLOW[tr], LEAD_SUIT[tr], WIN_RANK[tr], IS_TRUMP[tr], TRUMP_ORDER[tr],
               *MOVE_ORDERS[tr]) for tr in range(9)]
    try:
        _dds.configure(tables, SearchTimeout, _TT_LIMIT)
    except (TypeError, ValueError) as error:
        # A build older than _dds.c (an in-place build not redone after an update).
        log.warning("the compiled solver does not fit this code (%s): rebuild it with "
                    "`python hatch_build.py`; using the pure-Python solver", error)
        return None
    return _dds.Solver


#: The compiled solver, or None where no C compiler built it at install time.
COMPILED: Final = _compiled()
#: Set (to anything but "0") to use the pure-Python solver even where the compiled one exists.
PURE_ENV: Final = "MOON_PURE_SOLVER"

if TYPE_CHECKING:
    # Both classes have one interface (`_dds.pyi` states the compiled one's).
    Solver = PySolver
elif COMPILED is None or os.environ.get(PURE_ENV, "0") not in ("", "0"):
    Solver = PySolver
else:
    Solver = COMPILED
"""The double-dummy solver to use: the compiled one when it was built, else `PySolver`."""
