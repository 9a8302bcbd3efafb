"""What one seat knows about the hidden tiles, read from its `SeatView` only.

The expert samples the hidden hands from this; the heuristic reads the counts (which trumps
are still out, who is void in what). Everything here is derived from the view, so a bot
built on it cannot learn a tile its seat may not see.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules import Phase, SeatView, tile_set
from ..rules.tiles import IS_TRUMP, mask_of


class SampleError(RuntimeError):
    """No deal of the hidden tiles fits what the seat has seen (should never happen)."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The seat's picture of the hand: its tiles, the tiles still hidden, and the limits on
    where each hidden tile may be.

    `hidden` are the tiles the seat cannot see that are still in play or in the widow /
    discard; `counts[s]` is how many of them seat `s` holds now (0 for this seat) and
    `out_count` how many lie out of play (the widow, or the declarer's discard).
    `void[s]` is a mask of tiles seat `s` cannot hold: it failed to follow a suit they
    belong to (a trump only ever belongs to the trump suit).
    """

    seat: int
    players: int
    trump: int | None
    mine: int
    played: int
    hidden: int
    counts: tuple[int, ...]
    out_count: int
    void: tuple[int, ...]

    @classmethod
    def of(cls, view: SeatView) -> Knowledge:
        if view.seat is None:
            raise ValueError("a spectator has no hand to play")
        seat = view.seat
        n = view.rules.players
        mine = mask_of(view.hand)
        played = mask_of(view.played_tiles())
        known_out = 0
        if view.discard is not None:
            known_out |= 1 << view.discard.index
        everything = mask_of(tile_set(view.rules.set))
        hidden = everything & ~mine & ~played & ~known_out
        counts = [0 if s == seat else view.hand_sizes[s] for s in range(n)]
        if view.phase is Phase.OVER or view.phase is Phase.DEAL:
            counts = [0] * n
        out_count = hidden.bit_count() - sum(counts)
        if out_count < 0:
            raise SampleError(f"seat {seat}: more tiles in hands than hidden tiles")
        return cls(seat, n, view.trump, mine, played, hidden, tuple(counts), out_count,
                   view.voids())

    def allowed(self, seat: int) -> int:
        """The hidden tiles `seat` may hold."""
        return self.hidden & ~self.void[seat]

    def sample(self, rng: random.Random, tries: int = 200) -> tuple[list[int], int]:
        """A random deal of the hidden tiles that fits every void: (hands by seat, out mask).

        This seat's own hand is filled in; the out mask is the widow or the discard.
        Tiles with the fewest possible places are placed first; a dead end restarts.
        """
        n = self.players
        tiles = [t for t in range(28) if self.hidden >> t & 1]
        out_seat = n  # a pseudo-seat for the widow / discard, which has no void
        caps = list(self.counts) + [self.out_count]
        places = []
        for t in tiles:
            bit = 1 << t
            seats = [s for s in range(n) if caps[s] and not self.void[s] & bit]
            if self.out_count:
                seats.append(out_seat)
            places.append((len(seats), t, seats))
        places.sort(key=lambda p: p[0])
        for _ in range(tries):
            left = list(caps)
            hands = [0] * (n + 1)
            ok = True
            for _, t, seats in places:
                total = sum(left[s] for s in seats)
                if total == 0:
                    ok = False
                    break
                pick = rng.randrange(total)
                for s in seats:
                    if pick < left[s]:
                        break
                    pick -= left[s]
                left[s] -= 1
                hands[s] |= 1 << t
            if ok:
                out = hands.pop()
                hands[self.seat] = self.mine
                return hands, out
        raise SampleError(f"seat {self.seat}: no deal fits the voids after {tries} tries")

    def trumps_out(self) -> int:
        """Trumps some other seat may still hold (0 before trump is named)."""
        if self.trump is None:
            return 0
        return self.hidden & IS_TRUMP[self.trump]
