"""How many tricks a hand should take as declarer: the arithmetic behind bids, trump and
discard for the heuristic and easy levels (and the expert's short list of trumps).

Each tile gets a share of a trick: trumps by how many outstanding trumps outrank them,
plain tiles by whether they are the boss of the suit they lead. The estimate is crude on
purpose: it is fast enough to evaluate every trump for every possible widow.
"""

from __future__ import annotations

from typing import Final

from ..rules.tiles import IS_TRUMP, LEAD_SUIT, TRUMP_NONE, WIN_RANK
from .solver import LEAD_STRENGTH, TRUMP_ORDER, bits

#: PARTNER_SHARE: what an unseen partner adds to a 4-player declarer's tricks.
PARTNER_SHARE: Final = 1.2

#: HIGHER_IN_SUIT[trump][tile]: the tiles that beat `tile` in the suit it leads.
HIGHER_IN_SUIT: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(
        sum(1 << u for u in range(28)
            if WIN_RANK[tr][LEAD_SUIT[tr][t]][u] > WIN_RANK[tr][LEAD_SUIT[tr][t]][t])
        for t in range(28)
    )
    for tr in range(9)
)


def shares(hand: int, trump: int, unseen: int) -> dict[int, float]:
    """Each tile's expected share of a trick when this hand declares with this trump.

    `unseen` are the tiles the other seats (or the widow) may hold.
    """
    tmask = IS_TRUMP[trump]
    mine_t = hand & tmask
    out_t = unseen & tmask
    n_mine, n_out = mine_t.bit_count(), out_t.bit_count()
    control = n_mine >= n_out
    result: dict[int, float] = {}
    i = 0
    higher_out = 0
    for t in TRUMP_ORDER[trump]:
        if mine_t >> t & 1:
            if higher_out == 0:
                result[t] = 1.0
            elif higher_out <= i:
                result[t] = 0.75
            else:
                result[t] = 0.35 if n_mine >= 3 else 0.12
            i += 1
        elif out_t >> t & 1:
            higher_out += 1
    higher = HIGHER_IN_SUIT[trump]
    for t in bits(hand & ~tmask):
        above = higher[t] & ~tmask
        out_above = (above & unseen).bit_count()
        mine_above = (above & hand).bit_count()
        if out_above == 0:
            if trump == TRUMP_NONE or n_out == 0:
                share = 0.95
            else:
                share = 0.8 if control else 0.55
            share -= 0.1 * mine_above
        elif out_above == 1 and mine_above:
            share = 0.3
        elif out_above == 1:
            share = 0.15
        else:
            share = 0.0
        result[t] = max(share, 0.0)
    return result


def expected_tricks(hand: int, trump: int, unseen: int, players: int,
                    keep: int = 7) -> float:
    """Expected tricks as declarer, keeping the `keep` best tiles (8 in hand: discard one)."""
    values = sorted(shares(hand, trump, unseen).values(), reverse=True)[:keep]
    total = sum(values)
    if players == 4:
        total += PARTNER_SHARE
    return min(total, 7.0)


def sure_tricks(hand: int, trump: int, unseen: int) -> int:
    """Tiles that win for certain when led from the top: the base of a moon bid."""
    return sum(1 for v in shares(hand, trump, unseen).values() if v >= 0.95)


def weakest(hand: int, trump: int | None) -> int:
    """The tile worth least: the one to discard or to throw away on a lost trick."""
    tr = TRUMP_NONE if trump is None else trump
    strength = LEAD_STRENGTH[tr]
    return min(bits(hand), key=lambda t: (strength[t], t))


def discard_for(hand: int, trump: int, unseen: int) -> int:
    """The tile an eight-tile hand gives up for this trump: the smallest share of a trick,
    the weakest of those."""
    share = shares(hand, trump, unseen)
    strength = LEAD_STRENGTH[trump]
    return min(bits(hand), key=lambda t: (share[t], strength[t], t))
