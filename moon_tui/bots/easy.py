"""The `easy` level: a beginner's game, with a beginner's mistakes rather than random ones.

It knows the rules of thumb of `normal` but slips the way new players do:
- it **overbids with a long suit** (four or more tiles of one number feel like a contract),
  and names that long suit as trump even when another would take more tricks;
- it **forgets the trumps still out**: it never draws them, and cashes its high tiles while
  the opponents can still trump them;
- it **leads its doubles early**, biggest first, because a double "is a winner";
- when it can win a trick it **wins with its biggest tile**, wasting the tiles that would
  have taken a later trick.
Each slip happens with a chance (`SLIP`), so it sometimes plays a good hand well.
"""

from __future__ import annotations

import random
from typing import Final

from ..rules import Action, Phase, SeatView
from ..rules.actions import PASS, PLAYS
from ..rules.tiles import IS_TRUMP, TRUMP_DOUBLES, WIN_RANK, mask_of
from . import heuristic
from .knowledge import Knowledge
from .solver import LEAD_STRENGTH, bits

#: The chance that a given slip shows in a decision where it can.
SLIP: Final = 0.9
#: Tiles of one number that make a beginner feel strong, and the tricks that feeling adds.
LONG_SUIT: Final = 4
LONG_SUIT_BOLDNESS: Final = 1.2
#: The highest bid a beginner dares.
HIGHEST_BID: Final = 6
#: A beginner's boldness otherwise, by players: cautious alone, the heuristic's with a
#: partner (measured: with the heuristic's, three-player easy made a quarter of its bids).
BOLDNESS: Final = {3: 0.3, 4: heuristic.BID_BOLDNESS}


def longest_suit(hand: int) -> tuple[int, int]:
    """(number, tiles showing it) of the number this hand holds most of, the higher first."""
    counts = [sum(1 for t in bits(hand) if IS_TRUMP[n] >> t & 1) for n in range(7)]
    best = max(range(7), key=lambda n: (counts[n], n))
    return best, counts[best]


def easy_bid(view: SeatView, rng: random.Random) -> Action:
    _, length = longest_suit(mask_of(view.hand))
    bold = BOLDNESS[view.rules.players]
    if length >= LONG_SUIT and rng.random() < SLIP:
        bold += LONG_SUIT_BOLDNESS
    action = heuristic.choose_bid(view, boldness=bold, allow_moon=False)
    if action.bid is not None and action.bid > HIGHEST_BID:
        # Never all seven: bidding seven and failing every hand, a table of beginners
        # would never reach the target.
        lower = [a for a in view.legal if a.bid is not None and a.bid <= HIGHEST_BID]
        action = lower[-1] if lower else (PASS if PASS in view.legal else action)
    return action


def easy_trump(view: SeatView, rng: random.Random) -> Action:
    number, length = longest_suit(mask_of(view.hand))
    legal = {a.trump for a in view.legal}
    if length >= 3 and number in legal and rng.random() < SLIP:
        return Action.make_trump(number)
    return heuristic.choose_trump(view)


def easy_play(view: SeatView, rng: random.Random) -> Action:
    assert view.trump is not None
    trump = view.trump
    ctx = heuristic.PlayContext(view, Knowledge.of(view))
    legal = ctx.legal
    if not ctx.plays:
        doubles = bits(legal & IS_TRUMP[TRUMP_DOUBLES] & ~IS_TRUMP[trump])
        if doubles and rng.random() < SLIP:
            return PLAYS[max(doubles, key=lambda t: LEAD_STRENGTH[trump][t])]
        plain = legal & ~IS_TRUMP[trump]
        if plain and rng.random() < SLIP:
            # Forgets the trumps out: cashes its best plain tile, never draws trumps.
            return PLAYS[max(bits(plain), key=lambda t: LEAD_STRENGTH[trump][t])]
        return heuristic.choose_play(view, rng)
    ranks = WIN_RANK[trump][ctx.led]
    best = max(ranks[t] for t in ctx.plays)
    winners = [t for t in bits(legal) if ranks[t] > best]
    partner_wins = ctx.n == 4 and ctx.partners(ctx.winning, ctx.seat)
    if winners and not partner_wins and rng.random() < SLIP:
        return PLAYS[max(winners, key=lambda t: ranks[t])]
    return heuristic.choose_play(view, rng)


class EasyBot:
    """The `easy` level: plays like a beginner (see the module's list of slips)."""

    name = "easy"

    def choose(self, view: SeatView, rng: random.Random) -> Action:
        if not view.legal:
            raise ValueError(f"seat {view.seat} has nothing to do: it is not its turn")
        phase = view.phase
        if phase is Phase.BID:
            return easy_bid(view, rng)
        if phase is Phase.TRUMP:
            return easy_trump(view, rng)
        if phase is Phase.DISCARD:
            return heuristic.choose_discard(view)
        return easy_play(view, rng)
