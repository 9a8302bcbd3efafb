"""Tiles, tile sets, and the suit/rank tables the engine's inner loop reads.

A tile is a small int 0..27 inside the engine (`index = high*(high+1)//2 + low`) so that
hands are bitmasks and every suit or rank question is one table lookup. `Tile` is the
readable face of that int: it parses and prints itself (`Tile.parse("4-6")` -> `6-4`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

from ..shown import brief

SetName = Literal["moon22", "moon21", "full28"]
SET_NAMES: Final[tuple[SetName, ...]] = ("moon22", "moon21", "full28")

#: Trump choices are ints inside the engine: 0..6 a number, then these two.
TRUMP_DOUBLES: Final = 7
TRUMP_NONE: Final = 8
TRUMP_NAMES: Final[tuple[str, ...]] = ("0", "1", "2", "3", "4", "5", "6", "doubles", "none")

#: The suit led is a number 0..6, or this for "trumps were led".
SUIT_TRUMP: Final = 7


class TileError(ValueError):
    """Raised for text that is not a tile of the double-six set."""


class Tile:
    """One domino of the double-six set, written high end first (`6-4`, `5-5`).

    There are exactly 28 instances (`Tile.ALL`); compare with `==` or `is`.
    """

    __slots__ = ("index", "high", "low")
    ALL: tuple[Tile, ...]

    index: int
    high: int
    low: int

    def __init__(self, high: int, low: int) -> None:
        if not (0 <= low <= high <= 6):
            raise TileError(f"not a double-six tile: {high}-{low}")
        self.high = high
        self.low = low
        self.index = high * (high + 1) // 2 + low

    @classmethod
    def of(cls, a: int, b: int) -> Tile:
        """The tile with ends `a` and `b`, in either order."""
        if not (0 <= a <= 6 and 0 <= b <= 6):
            raise TileError(f"not a double-six tile: {a}-{b}")
        high, low = (a, b) if a >= b else (b, a)
        return TILES[high * (high + 1) // 2 + low]

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Parse `"6-4"` or `"4-6"` (also `"64"`, `"6:4"`, `"6|4"`) into a tile.

        Each end is one ASCII digit: a record is hostile input, and a tile written with
        thousands of digits once escaped as a traceback from `int()` (issue 31).
        """
        if not isinstance(text, str):
            raise TileError(f"not a tile: {brief(text)} (write it like 6-4)")
        known = _SPELLINGS.get(text)
        if known is not None:  # the usual case: one lookup
            return known
        cleaned = text.strip().replace(":", "-").replace("|", "-") \
            if len(text) <= TILE_TEXT_MAX else ""
        if "-" in cleaned:
            parts = [p.strip() for p in cleaned.split("-")]
        elif len(cleaned) == 2:
            parts = [cleaned[0], cleaned[1]]
        else:
            parts = []
        if len(parts) != 2 or not all(len(p) == 1 and p in "0123456789" for p in parts):
            raise TileError(f"not a tile: {brief(text)} (write it like 6-4)")
        a, b = int(parts[0]), int(parts[1])
        if a > 6 or b > 6:
            raise TileError(f"not a double-six tile: {brief(text)}")
        return cls.of(a, b)

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    def has(self, number: int) -> bool:
        """True when one of the tile's ends shows `number`."""
        return self.high == number or self.low == number

    def other_end(self, number: int) -> int:
        """The end that is not `number` (the number itself for a double)."""
        return self.low if self.high == number else self.high

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        return (Tile.of, (self.high, self.low))


TILES: Final[tuple[Tile, ...]] = tuple(Tile(h, lo) for h in range(7) for lo in range(h + 1))
Tile.ALL = TILES

TILE_TEXT_MAX: Final = 16
"""Longest text `Tile.parse` looks into ("6 - 4" with room for spaces); longer is no tile."""
_SPELLINGS: Final[dict[str, Tile]] = {
    spelling: t
    for t in TILES
    for a, b in ((t.high, t.low), (t.low, t.high))
    for spelling in (f"{a}-{b}", f"{a}{b}", f"{a}:{b}", f"{a}|{b}")
}
"""Every plain spelling of every tile: a record of 250,000 hands has 10 million of them."""
assert [t.index for t in TILES] == list(range(28))


def spelled_tiles(texts: Iterable[Any]) -> tuple[Tile, ...] | None:
    """The tiles of texts that are each a plain spelling of one ("6-4", "46"...), one
    lookup each; None when one is anything else (then `Tile.parse` says why)."""
    try:
        return tuple(map(_SPELLINGS.__getitem__, texts))
    except (KeyError, TypeError):  # not a spelling, or not even hashable
        return None


def tile_set(name: SetName) -> tuple[Tile, ...]:
    """The tiles of a named set, highest first."""
    if name == "full28":
        chosen = TILES
    elif name == "moon22":
        chosen = tuple(t for t in TILES if t.low != 0 or t.high == 0)
    elif name == "moon21":
        chosen = tuple(t for t in TILES if t.low != 0)
    else:
        raise ValueError(f"unknown tile set: {name!r} (one of {', '.join(SET_NAMES)})")
    return tuple(sorted(chosen, key=lambda t: -t.index))


def mask_of(tiles: Iterable[Tile]) -> int:
    """The bitmask of an iterable of tiles."""
    mask = 0
    for t in tiles:
        mask |= 1 << t.index
    return mask


def tiles_of(mask: int) -> tuple[Tile, ...]:
    """The tiles of a bitmask, highest first (the order hands are shown in)."""
    out = []
    i = 27
    while mask:
        if mask >> i & 1:
            out.append(TILES[i])
            mask &= ~(1 << i)
        i -= 1
    return tuple(out)


def parse_trump(text: str) -> int:
    """`"5"`, `"doubles"`, `"none"` (also `"follow-me"`, `"notrump"`) -> trump id."""
    t = text.strip().lower()
    aliases = {"follow-me": "none", "followme": "none", "notrump": "none", "no-trump": "none",
               "nt": "none", "double": "doubles"}
    t = aliases.get(t, t)
    if t.endswith("s") and t[:-1].isdigit():
        t = t[:-1]
    if t in TRUMP_NAMES:
        return TRUMP_NAMES.index(t)
    raise ValueError(f"not a trump: {brief(text)} (0-6, doubles or none)")


# --- The tables ---------------------------------------------------------------------------
# Indexed [trump][...]; built once at import. "Belongs to suit" follows RULES.md section 7.

def _is_trump(t: Tile, trump: int) -> bool:
    if trump == TRUMP_NONE:
        return False
    if trump == TRUMP_DOUBLES:
        return t.is_double
    return t.has(trump)


def _lead_suit(t: Tile, trump: int) -> int:
    return SUIT_TRUMP if _is_trump(t, trump) else t.high


def _belongs(t: Tile, trump: int, suit: int) -> bool:
    if _is_trump(t, trump):
        return suit == SUIT_TRUMP
    if suit == SUIT_TRUMP:
        return False
    return t.has(suit)


def _trump_rank(t: Tile, trump: int) -> int:
    """Rank inside the trump suit, higher wins (only meaningful for trumps)."""
    if trump == TRUMP_DOUBLES:
        return t.high
    return 10 if t.is_double else t.other_end(trump)


def _suit_rank(t: Tile, suit: int) -> int:
    return 10 if t.is_double else t.other_end(suit)


#: IS_TRUMP[trump] -> bitmask of trump tiles.
IS_TRUMP: Final[tuple[int, ...]] = tuple(
    mask_of(t for t in TILES if _is_trump(t, tr)) for tr in range(9)
)
#: LEAD_SUIT[trump][tile] -> the suit that tile calls for when led.
LEAD_SUIT: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_lead_suit(t, tr) for t in TILES) for tr in range(9)
)
#: FOLLOW[trump][suit] -> bitmask of the tiles that belong to that suit.
FOLLOW: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(mask_of(t for t in TILES if _belongs(t, tr, s)) for s in range(8)) for tr in range(9)
)
#: WIN_RANK[trump][suit led][tile] -> the strength of a tile in a trick with that suit led;
#: trumps beat the suit led, which beats everything else (0: can never win).
WIN_RANK: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(
        tuple(
            (100 + _trump_rank(t, tr)) if _is_trump(t, tr)
            else (1 + _suit_rank(t, s)) if (s != SUIT_TRUMP and t.has(s))
            else 0
            for t in TILES
        )
        for s in range(8)
    )
    for tr in range(9)
)
