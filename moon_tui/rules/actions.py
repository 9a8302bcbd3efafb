"""Actions: every decision a seat makes, as values that parse and print themselves.

`Action.parse("bid 5")`, `str(action) == "bid 5"`. Each action also has a small int `code`
(stable, sorted the way `legal_actions()` lists them) and there is exactly one instance per
code, so the engine compares and looks them up without building objects.
"""

from __future__ import annotations

from typing import Final, Literal

from .options import MOON
from .tiles import TILES, TRUMP_NAMES, Tile, parse_trump

ActionKind = Literal["pass", "bid", "discard", "trump", "play"]

PASS_CODE: Final = 0
DISCARD_BASE: Final = 32
TRUMP_BASE: Final = 64
PLAY_BASE: Final = 96


class ActionError(ValueError):
    """Text that is not an action."""


class Action:
    """One decision: `pass`, `bid N`, `discard T`, `trump X`, `play T`."""

    __slots__ = ("code", "kind", "bid", "tile", "trump")

    code: int
    kind: ActionKind
    bid: int | None
    tile: Tile | None
    trump: int | None

    def __init__(self, code: int, kind: ActionKind, *, bid: int | None = None,
                 tile: Tile | None = None, trump: int | None = None) -> None:
        self.code, self.kind, self.bid, self.tile, self.trump = code, kind, bid, tile, trump

    # -- constructors returning the one shared instance: `make_` and the action's kind --
    @staticmethod
    def make_pass() -> Action:
        return PASS

    @staticmethod
    def make_bid(amount: int) -> Action:
        if amount not in BIDS:
            raise ActionError(f"no such bid: {amount} (3 to 7, or 21 for the moon)")
        return BIDS[amount]

    @staticmethod
    def make_discard(tile: Tile) -> Action:
        return DISCARDS[tile.index]

    @staticmethod
    def make_trump(trump: int) -> Action:
        return TRUMPS[trump]

    @staticmethod
    def make_play(tile: Tile) -> Action:
        return PLAYS[tile.index]

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse `pass`, `bid 5`, `bid moon`, `discard 2-1`, `trump 3`, `trump doubles`,
        `play 5-3` (a bare tile such as `5-3` means `play 5-3`)."""
        hint = "pass, bid 5, discard 2-1, trump 3, play 5-3"
        if not isinstance(text, str):
            raise ActionError(f"not an action: {text!r} ({hint})")
        words = text.strip().lower().split()
        try:
            if words == ["pass"]:
                return PASS
            if len(words) == 2 and words[0] == "bid":
                if words[1] != "moon" and not (words[1].isdecimal() and words[1].isascii()):
                    raise ActionError(f"not an action: {text!r} (a bid is a number, or moon)")
                amount = MOON if words[1] == "moon" else int(words[1])
                return cls.make_bid(amount)
            if len(words) == 2 and words[0] == "discard":
                return cls.make_discard(Tile.parse(words[1]))
            if len(words) == 2 and words[0] == "trump":
                return cls.make_trump(parse_trump(words[1]))
            if len(words) == 2 and words[0] == "play":
                return cls.make_play(Tile.parse(words[1]))
            if len(words) == 1 and any(c.isdigit() for c in words[0]):
                return cls.make_play(Tile.parse(words[0]))
        except ActionError:
            raise
        except ValueError as exc:  # TileError, or a trump that is not one
            raise ActionError(f"not an action: {text!r} ({exc})") from None
        raise ActionError(f"not an action: {text!r} ({hint})")

    @classmethod
    def from_code(cls, code: int) -> Action:
        return BY_CODE[code]

    def __str__(self) -> str:
        if self.kind == "pass":
            return "pass"
        if self.kind == "bid":
            return f"bid {self.bid}"
        if self.kind == "trump":
            assert self.trump is not None
            return f"trump {TRUMP_NAMES[self.trump]}"
        return f"{self.kind} {self.tile}"

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and other.code == self.code

    def __hash__(self) -> int:
        return self.code

    def __lt__(self, other: Action) -> bool:
        return self.code < other.code

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Action.from_code, (self.code,))


PASS: Final = Action(PASS_CODE, "pass")
BIDS: Final[dict[int, Action]] = {b: Action(b, "bid", bid=b) for b in (3, 4, 5, 6, 7, MOON)}
DISCARDS: Final[tuple[Action, ...]] = tuple(
    Action(DISCARD_BASE + t.index, "discard", tile=t) for t in TILES
)
TRUMPS: Final[tuple[Action, ...]] = tuple(
    Action(TRUMP_BASE + i, "trump", trump=i) for i in range(len(TRUMP_NAMES))
)
PLAYS: Final[tuple[Action, ...]] = tuple(Action(PLAY_BASE + t.index, "play", tile=t) for t in TILES)
BY_CODE: Final[dict[int, Action]] = {
    a.code: a for a in (PASS, *BIDS.values(), *DISCARDS, *TRUMPS, *PLAYS)
}
