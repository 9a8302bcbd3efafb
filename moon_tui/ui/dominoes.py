"""Dominoes drawn with text: both halves as pips, readable in any terminal at 80x24.

A tile in hand is 7 columns by 9 rows. Whether it may be played is never shown by colour
alone: a playable tile has a solid border with its key digit, a tile that may not be
played a dashed border and no digit, the cursor a heavy border.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rich.style import Style

from ..rules import Tile

TILE_WIDTH = 7
TILE_GAP = 1
TILE_HEIGHT = 9
PIP = "●"

#: Which cells of a 3x3 grid (row-major) hold a pip, for each number 0..6.
PIP_CELLS: tuple[frozenset[int], ...] = (
    frozenset(),
    frozenset({4}),
    frozenset({0, 8}),
    frozenset({0, 4, 8}),
    frozenset({0, 2, 6, 8}),
    frozenset({0, 2, 4, 6, 8}),
    frozenset({0, 2, 3, 5, 6, 8}),
)


def pip_rows(number: int) -> tuple[str, str, str]:
    """The three 5-column rows of one half (`● ● ●` style spacing)."""
    cells = PIP_CELLS[number]
    rows = []
    for r in range(3):
        rows.append(" ".join(PIP if r * 3 + c in cells else " " for c in range(3)))
    return rows[0], rows[1], rows[2]


class Mark(Enum):
    """How a tile in hand is drawn."""

    PLAIN = "plain"          # not our turn: nothing to choose
    LEGAL = "legal"          # may be chosen now
    ILLEGAL = "illegal"      # may not be chosen now (dashed, dimmed)


@dataclass(frozen=True, slots=True)
class Frame:
    top_left: str
    top_right: str
    bottom_left: str
    bottom_right: str
    horizontal: str
    vertical: str
    divider_left: str
    divider_right: str


SOLID = Frame("╭", "╮", "╰", "╯", "─", "│", "├", "┤")
DASHED = Frame("┌", "┐", "└", "┘", "┄", "┆", "┆", "┆")
HEAVY = Frame("┏", "┓", "┗", "┛", "━", "┃", "┣", "┫")


def _centre(label: str, fill: str, width: int = TILE_WIDTH - 2) -> str:
    label = label[:width]
    left = (width - len(label)) // 2
    return fill * left + label + fill * (width - len(label) - left)


def tile_lines(tile: Tile, *, label: str = "", mark: Mark = Mark.PLAIN,
               cursor: bool = False) -> list[str]:
    """The 9 rows of one upright tile, high half on top, `6-4` written in the bottom edge."""
    frame = HEAVY if cursor else DASHED if mark is Mark.ILLEGAL else SOLID
    h = frame.horizontal
    v = frame.vertical
    lines = [frame.top_left + _centre(label, h) + frame.top_right]
    lines += [v + row + v for row in pip_rows(tile.high)]
    lines.append(frame.divider_left + h * (TILE_WIDTH - 2) + frame.divider_right)
    lines += [v + row + v for row in pip_rows(tile.low)]
    lines.append(frame.bottom_left + _centre(str(tile), h) + frame.bottom_right)
    return lines


@dataclass(frozen=True, slots=True)
class HandTile:
    tile: Tile
    mark: Mark
    label: str


def tile_rows(tile: HandTile, *, cursor: bool) -> list[tuple[str, Style]]:
    """One tile of a hand as the hand draws it: `TILE_HEIGHT` rows of (text, style)."""
    style = tile_style(tile.mark, cursor)
    return [(line, style) for line in tile_lines(tile.tile, label=tile.label, mark=tile.mark,
                                                 cursor=cursor)]


_STYLES = {
    (Mark.PLAIN, False): Style(),
    (Mark.LEGAL, False): Style(bold=True),
    (Mark.ILLEGAL, False): Style(dim=True),
    (Mark.PLAIN, True): Style(bold=True, reverse=True),
    (Mark.LEGAL, True): Style(bold=True, reverse=True),
    (Mark.ILLEGAL, True): Style(dim=True, reverse=True),
}


def tile_style(mark: Mark, cursor: bool) -> Style:
    return _STYLES[(mark, cursor)]


def tile_at(x: int, count: int) -> int | None:
    """Which tile of a drawn hand the column `x` falls on (for mouse clicks)."""
    if x < 0:
        return None
    index, offset = divmod(x, TILE_WIDTH + TILE_GAP)
    if index >= count or offset >= TILE_WIDTH:
        return None
    return index


def small_tile(tile: Tile) -> str:
    """A played tile in one line: `[6|4]`."""
    return f"[{tile.high}|{tile.low}]"
