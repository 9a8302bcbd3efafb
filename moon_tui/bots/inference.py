"""What the auction says about the hidden hands: a bid promises strength, a pass denies it,
and the declarer names the trump its hand likes best.

The expert samples deals uniformly among those that fit the tiles seen, then keeps each
one with the probability that the other seats would have spoken as they did holding those
tiles (judged by the `strength` estimate, which is roughly how people and the heuristic
bid). Without this, a defender would think the declarer's trumps as likely anywhere.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..rules import MOON, SeatView, tile_set
from ..rules.tiles import mask_of
from .knowledge import Knowledge
from .strength import expected_tricks

#: How far a hand may fall short of a bid, or exceed a pass, before it is doubted.
SLACK_BID = 1.8
SLACK_PASS = 0.8
SLACK_TRUMP = 1.0
#: With four players a seat's estimate is exactly what the `normal` level bids on (no
#: widow): it bids its estimate plus 1.1, passes below it, names the trump it estimates
#: best. Measured reading the auction that tightly for four players (`bench/team_duel.py`,
#: 400 deals, seed 11; bid 1.2, pass -1.0, trump 0.3): expert team minus normal team
#: +1.00 points a hand against +1.15 with these (it declared 280 hands of 800, not 296, and
#: netted -0.26 on the normal team's contracts, not 0): the expert partner does not bid so.
#: The weight kept by a hand that contradicts one thing its seat did.
DOUBT = 0.25
#: Draws tried for one consistent deal before taking the last one drawn.
MAX_DRAWS = 8


def _trumps(view: SeatView) -> list[int]:
    trumps = list(range(7))
    if view.rules.doubles_trump:
        trumps.append(7)
    if view.rules.no_trump:
        trumps.append(8)
    return trumps


def _played_by(view: SeatView) -> dict[int, int]:
    played: dict[int, int] = {}
    tricks = list(view.tricks)
    if view.current_trick is not None:
        tricks.append(view.current_trick)
    for trick in tricks:
        for seat, tile in trick.plays:
            played[seat] = played.get(seat, 0) | 1 << tile.index
    return played


def plausibility(view: SeatView) -> Callable[[list[int]], float]:
    """A function giving, for sampled hands by seat, the chance the other seats would have
    bid (and the declarer named trump) as they did."""
    assert view.seat is not None
    me = view.seat
    rules = view.rules
    everything = mask_of(tile_set(rules.set))
    played = _played_by(view)
    trumps = _trumps(view)
    spoken = []
    high = 0
    for seat, action in view.bids:
        low = max(rules.min_bid, high + 1)
        if seat != me:
            spoken.append((seat, action.bid, low))
        if action.bid is not None:
            high = action.bid
    declarer, trump = view.declarer, view.trump
    judge_trump = declarer is not None and declarer != me and trump is not None

    def weight(hands: list[int]) -> float:
        w = 1.0
        cache: dict[int, list[float]] = {}

        def estimates(seat: int) -> list[float]:
            if seat not in cache:
                hand = hands[seat] | played.get(seat, 0)
                unseen = everything & ~hand
                cache[seat] = [expected_tricks(hand, t, unseen, rules.players)
                               for t in trumps]
            return cache[seat]

        for seat, bid, low in spoken:
            best = max(estimates(seat))
            if bid is None:
                if best > low + SLACK_PASS:
                    w *= DOUBT
            elif bid != MOON and best < bid - SLACK_BID:
                w *= DOUBT
        if judge_trump:
            assert declarer is not None and trump is not None
            est = estimates(declarer)
            if trump in trumps and est[trumps.index(trump)] < max(est) - SLACK_TRUMP:
                w *= DOUBT
        return w

    return weight


def sample_consistent(know: Knowledge, rng: random.Random,
                      weight: Callable[[list[int]], float]) -> tuple[list[int], int]:
    """A deal that fits the tiles seen, kept with the probability `weight` gives it."""
    hands, out = know.sample(rng)
    for _ in range(MAX_DRAWS - 1):
        if rng.random() < weight(hands):
            break
        hands, out = know.sample(rng)
    return hands, out
