"""The `normal` level: a club player's rules of thumb (the `easy` level slips on them).

Bids from the estimate of `strength` (with the widow's chance), names the trump that
estimate likes best, discards the tile that costs least, and plays by the usual maxims:
pull trumps when strong, cash bosses, win with the lowest tile that surely wins, follow
cheaply when the trick is lost, never overtake a partner's sure winner.
"""

from __future__ import annotations

import random

from ..rules import MOON, Action, Phase, SeatView
from ..rules.actions import BIDS, DISCARDS, PASS, PLAYS
from ..rules.tiles import (
    FOLLOW,
    IS_TRUMP,
    LEAD_SUIT,
    TRUMP_DOUBLES,
    TRUMP_NONE,
    WIN_RANK,
    mask_of,
    tile_set,
)
from .knowledge import Knowledge
from .solver import LEAD_STRENGTH, bits
from .strength import HIGHER_IN_SUIT, expected_tricks, sure_tricks, weakest

#: How far above its expected tricks the heuristic dares to bid.
BID_BOLDNESS = 1.1
#: Sure tricks needed to shoot the moon.
MOON_SURE = 7


def allowed_trumps(view: SeatView) -> list[int]:
    trumps = list(range(7))
    if view.rules.doubles_trump:
        trumps.append(TRUMP_DOUBLES)
    if view.rules.no_trump:
        trumps.append(TRUMP_NONE)
    return trumps


def unseen_mask(view: SeatView) -> int:
    """Tiles this seat cannot see (other hands, the widow or the discard, unplayed)."""
    seen = mask_of(view.hand) | mask_of(view.played_tiles())
    if view.discard is not None:
        seen |= 1 << view.discard.index
    return mask_of(tile_set(view.rules.set)) & ~seen


def best_trump(hand: int, trumps: list[int], unseen: int, players: int) -> tuple[int, float]:
    """The trump with the most expected tricks for this hand, and that estimate."""
    keep = min(hand.bit_count(), 7)
    scored = [(expected_tricks(hand, t, unseen, players, keep), -t, t) for t in trumps]
    value, _, trump = max(scored)
    return trump, value


def bid_estimate(view: SeatView) -> tuple[float, int]:
    """(expected tricks with the best trump, sure tricks) for the seat about to bid.

    With a widow the estimate averages over every tile the widow could be, the declarer
    keeping its best seven of eight.
    """
    hand = mask_of(view.hand)
    unseen = unseen_mask(view)
    trumps = allowed_trumps(view)
    players = view.rules.players
    if not view.rules.has_widow:
        trump, value = best_trump(hand, trumps, unseen, players)
        return value, sure_tricks(hand, trump, unseen)
    total = 0.0
    candidates = bits(unseen)
    for w in candidates:
        trump, value = best_trump(hand | 1 << w, trumps, unseen & ~(1 << w), players)
        total += value
    trump, _ = best_trump(hand, trumps, unseen, players)
    return total / len(candidates), sure_tricks(hand, trump, unseen)


def choose_bid(view: SeatView, boldness: float = BID_BOLDNESS, allow_moon: bool = True) -> Action:
    legal = view.legal
    bids = sorted(a.bid for a in legal if a.bid is not None)
    must_bid = PASS not in legal
    expected, sure = bid_estimate(view)
    if allow_moon and sure >= MOON_SURE and MOON in bids:
        return BIDS[MOON]
    plain = [b for b in bids if b != MOON]
    target = int(expected + boldness)
    affordable = [b for b in plain if b <= target]
    if affordable:
        return BIDS[affordable[-1] if _bid_scores(view) else affordable[0]]
    if must_bid:
        return BIDS[bids[0]]
    return PASS


def _bid_scores(view: SeatView) -> bool:
    """True when a made contract scores its bid (so bidding high pays), false when it
    scores tricks or a mark (so the lowest winning bid is as good and safer)."""
    rules = view.rules
    if rules.scoring == "marks":
        return False
    return rules.players == 3 or rules.team_scoring == "bid"


def choose_trump(view: SeatView) -> Action:
    hand = mask_of(view.hand)
    trump, _ = best_trump(hand, [a.trump for a in view.legal if a.trump is not None],
                          unseen_mask(view), view.rules.players)
    return Action.make_trump(trump)


def choose_discard(view: SeatView) -> Action:
    """Discard the tile whose loss costs least (with the trump to come if not yet named)."""
    hand = mask_of(view.hand)
    unseen = unseen_mask(view)
    trumps = [view.trump] if view.trump is not None else allowed_trumps(view)
    players = view.rules.players
    best: tuple[float, int] | None = None
    choice = -1
    tr = TRUMP_NONE if view.trump is None else view.trump
    for t in bits(hand):
        _, value = best_trump(hand & ~(1 << t), trumps, unseen, players)
        key = (value, -LEAD_STRENGTH[tr][t])
        if best is None or key > best:
            best, choice = key, t
    return DISCARDS[choice]


class PlayContext:
    """The facts about the open trick the play maxims need."""

    def __init__(self, view: SeatView, know: Knowledge) -> None:
        assert view.seat is not None and view.trump is not None
        self.view = view
        self.know = know
        self.seat = view.seat
        self.trump = view.trump
        self.n = view.rules.players
        self.legal = mask_of(a.tile for a in view.legal if a.tile is not None)
        self.declarer = view.declarer if view.declarer is not None else -1
        trick = view.current_trick
        self.plays = [] if trick is None else [t.index for _, t in trick.plays]
        self.leader = self.seat if trick is None or not trick.plays else trick.leader
        self.led = -1 if trick is None or trick.suit_led is None else trick.suit_led
        self.winning = -1 if trick is None or trick.winning_seat is None \
            else trick.winning_seat
        """The seat winning the open trick so far (the engine's word), -1 before a lead."""

    def partners(self, a: int, b: int) -> bool:
        if self.n == 4:
            return a % 2 == b % 2
        return a == b

    def on_declarer_side(self, seat: int) -> bool:
        return self.partners(seat, self.declarer)

    def behind(self) -> list[int]:
        """Seats still to play after this one in the open trick."""
        done = len(self.plays) + 1
        return [(self.seat + i) % self.n for i in range(1, self.n - done + 1)]

    def beatable_by(self, rank: int, led: int, seats: list[int]) -> bool:
        """Could one of `seats` play a tile outranking `rank` (as far as this seat knows)?"""
        ranks = WIN_RANK[self.trump][led]
        for s in seats:
            for t in bits(self.know.allowed(s)):
                if ranks[t] > rank:
                    return True
        return False


def choose_play(view: SeatView, rng: random.Random) -> Action:
    know = Knowledge.of(view)
    ctx = PlayContext(view, know)
    tile = _lead(ctx) if not ctx.plays else _follow(ctx)
    return PLAYS[tile]


def cheapest(mask: int, trump: int) -> int:
    """The tile to give away: a plain tile before a trump, the weakest first."""
    tmask = IS_TRUMP[trump]
    plain = mask & ~tmask
    return weakest(plain if plain else mask, trump)


def _lead(ctx: PlayContext) -> int:
    trump, legal, know = ctx.trump, ctx.legal, ctx.know
    tmask = IS_TRUMP[trump]
    mine_t = legal & tmask
    out_t = know.trumps_out()
    declaring = ctx.on_declarer_side(ctx.seat)
    if mine_t and out_t:
        top = max(bits(mine_t), key=lambda t: WIN_RANK[trump][7][t])
        boss = not any(WIN_RANK[trump][7][u] > WIN_RANK[trump][7][top] for u in bits(out_t))
        if boss or (declaring and mine_t.bit_count() >= out_t.bit_count()):
            return top
    bosses = [t for t in bits(legal & ~tmask) if not HIGHER_IN_SUIT[trump][t] & know.hidden]
    if bosses and (not out_t or not declaring or _opponents_follow(ctx, bosses)):
        return max(bosses, key=lambda t: LEAD_STRENGTH[trump][t])
    if declaring and mine_t and not out_t and not (legal & ~tmask):
        return max(bits(mine_t), key=lambda t: WIN_RANK[trump][7][t])
    return cheapest(legal, trump)


def _opponents_follow(ctx: PlayContext, bosses: list[int]) -> bool:
    """True when no opponent is known to be void in the suit of the best boss."""
    return all(
        not ctx.know.void[s] & FOLLOW[ctx.trump][LEAD_SUIT[ctx.trump][bosses[0]]]
        for s in range(ctx.n) if not ctx.partners(s, ctx.seat)
    )


def _follow(ctx: PlayContext) -> int:
    trump, legal, led = ctx.trump, ctx.legal, ctx.led
    ranks = WIN_RANK[trump][led]
    winner = ctx.winning
    best_rank = ranks[ctx.plays[(winner - ctx.leader) % ctx.n]]
    behind = ctx.behind()
    opponents_behind = [s for s in behind if not ctx.partners(s, ctx.seat)]
    winners = sorted((t for t in bits(legal) if ranks[t] > best_rank), key=lambda t: ranks[t])
    sure = [t for t in winners if not ctx.beatable_by(ranks[t], led, opponents_behind)]
    if ctx.n == 4 and ctx.partners(winner, ctx.seat):
        partner_sure = not ctx.beatable_by(best_rank, led, opponents_behind)
        if partner_sure or not sure:
            return cheapest(legal, trump)
        return sure[0]
    if (ctx.n == 3 and winner != ctx.declarer and ctx.seat != ctx.declarer
            and not ctx.beatable_by(best_rank, led, opponents_behind)):
        # The other defender wins it anyway: take it only if it costs no trump.
        plain = [t for t in winners if not IS_TRUMP[trump] >> t & 1]
        return plain[0] if plain else cheapest(legal, trump)
    if sure:
        return sure[0]
    if winners and (not behind or IS_TRUMP[trump] >> winners[0] & 1):
        return winners[0]
    return cheapest(legal, trump)


class HeuristicBot:
    """The `normal` level: rules of thumb, instant decisions."""

    name = "normal"

    def choose(self, view: SeatView, rng: random.Random) -> Action:
        if not view.legal:
            raise ValueError(f"seat {view.seat} has nothing to do: it is not its turn")
        phase = view.phase
        if phase is Phase.BID:
            return choose_bid(view)
        if phase is Phase.TRUMP:
            return choose_trump(view)
        if phase is Phase.DISCARD:
            return choose_discard(view)
        return choose_play(view, rng)
