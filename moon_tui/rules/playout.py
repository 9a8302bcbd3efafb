"""Random playouts on bitmasks: the compact path for bots' rollouts and for speed.

`GameState` is the readable, checked API; a rollout only needs the tricks, so here a hand is
a few ints in local variables and a uniformly random legal tile is picked straight from the
mask of legal tiles. The rules are the same tables (`tiles.py`) and the same scoring
(`scoring.py`) as the state, and the tests check that both agree.

- `random_tricks(...)`: finish a hand from any point of the play (for a bot that has
  guessed the hidden hands), returning the tricks each seat takes.
- `random_hand(...)`: a whole random hand, deal to score, as the benchmark measures it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .options import MOON, Rules
from .scoring import score_hand
from .state import _set_indexes, shuffled
from .tiles import FOLLOW, LEAD_SUIT, WIN_RANK


def random_tile(mask: int, rng: random.Random) -> int:
    """A uniformly random tile index among the set bits of `mask` (not empty)."""
    k = int(rng.random() * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def random_tricks(hands: Sequence[int], trump: int, leader: int, trick: Sequence[int],
                  rng: random.Random) -> list[int]:
    """Play the rest of a hand at random and return the tricks each seat takes from now on.

    `hands` are the tiles each seat still holds (bitmasks), `trick` the tiles already played
    to the open trick, led by `leader`. Every seat must hold the same number of tiles once
    the open trick is complete.
    """
    n = len(hands)
    hands = list(hands)
    rnd = rng.random
    follow_table = FOLLOW[trump]
    lead_table = LEAD_SUIT[trump]
    rank_table = WIN_RANK[trump]
    won = [0] * n
    played = list(trick)
    while True:
        if played:
            led = lead_table[played[0]]
            ranks = rank_table[led]
            follow = follow_table[led]
            best_seat = leader
            best = ranks[played[0]]
            for i in range(1, len(played)):
                if ranks[played[i]] > best:
                    best = ranks[played[i]]
                    best_seat = (leader + i) % n
            seat = (leader + len(played)) % n
            count = len(played)
        else:
            if not hands[leader]:
                return won
            m = hands[leader]
            k = int(rnd() * m.bit_count())
            while k:
                m &= m - 1
                k -= 1
            index = (m & -m).bit_length() - 1
            hands[leader] ^= 1 << index
            led = lead_table[index]
            ranks = rank_table[led]
            follow = follow_table[led]
            best_seat = leader
            best = ranks[index]
            seat = leader + 1 if leader + 1 < n else 0
            count = 1
        while count < n:
            hand = hands[seat]
            m = (hand & follow) or hand
            k = int(rnd() * m.bit_count())
            while k:
                m &= m - 1
                k -= 1
            bit = m & -m
            hands[seat] = hand ^ bit
            rank = ranks[bit.bit_length() - 1]
            if rank > best:
                best = rank
                best_seat = seat
            seat = seat + 1 if seat + 1 < n else 0
            count += 1
        won[best_seat] += 1
        leader = best_seat
        played = []


@dataclass(frozen=True, slots=True)
class PlayoutResult:
    """A random hand: None declarer when everyone passed (then no points)."""

    declarer: int | None
    bid: int | None
    trump: int | None
    tricks_won: tuple[int, ...]
    made: bool | None
    points: tuple[int, ...]


def random_hand(rules: Rules, rng: random.Random, first_bidder: int) -> PlayoutResult:
    """One whole hand of uniformly random legal decisions: deal, bids, widow and discard,
    trump, every play, and the score."""
    n = rules.players
    rnd = rng.random
    tiles = shuffled(_set_indexes(rules.set), rng)
    hands = []
    for start in range(0, 7 * n, 7):
        mask = 0
        for i in tiles[start:start + 7]:
            mask |= 1 << i
        hands.append(mask)

    high = 0
    declarer = -1
    seat = first_bidder
    force_last = rules.all_pass == "force_last"
    for spoken in range(n):
        low = max(rules.min_bid, high + 1)
        may_pass = not (force_last and spoken == n - 1 and high == 0)
        choices = (8 - low) + 1 + may_pass          # low..7, the moon, maybe pass
        pick = int(rnd() * choices)
        if may_pass:
            pick -= 1
        if pick >= 0:
            high = low + pick if low + pick < 8 else MOON
            declarer = seat
            if high == MOON:
                break
        seat = seat + 1 if seat + 1 < n else 0
    if declarer < 0:
        return PlayoutResult(None, None, None, (0,) * n, None, (0,) * rules.sides)

    trumps = rules.trumps
    trump = trumps[int(rnd() * len(trumps))] if rules.trump_before_widow else -1
    if rules.has_widow:
        hand = hands[declarer] | 1 << tiles[-1]
        hands[declarer] = hand ^ (1 << random_tile(hand, rng))
    if trump < 0:
        trump = trumps[int(rnd() * len(trumps))]

    won = random_tricks(hands, trump, declarer, (), rng)
    made, points = score_hand(rules, declarer, high, won)
    return PlayoutResult(declarer, high, trump, tuple(won), made, tuple(points))


__all__ = ["PlayoutResult", "random_hand", "random_tile", "random_tricks"]
