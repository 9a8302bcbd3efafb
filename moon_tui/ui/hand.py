"""The player's hand: dominoes side by side, chosen by arrows, digits or a click."""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from ..rules import Tile
from .dominoes import TILE_GAP, TILE_HEIGHT, TILE_WIDTH, HandTile, hand_rows, tile_at

MAX_TILES = 8
"""Seven tiles, and the widow while the declarer discards."""
HAND_WIDTH = MAX_TILES * TILE_WIDTH + (MAX_TILES - 1) * TILE_GAP


class HandView(Widget, can_focus=True):
    """Draws `HandTile`s; posts `Picked` when the player chooses one.

    It holds no game state: the screen gives it the tiles and marks of the latest view.
    """

    DEFAULT_CSS = f"""
    HandView {{ width: {HAND_WIDTH}; height: {TILE_HEIGHT}; }}
    """

    @dataclass
    class Picked(Message):
        """The player chose `tile` (Enter, a digit or a click). The tile, not its place:
        the hand may have changed by the time the message is handled."""

        hand: HandView
        tile: Tile

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._tiles: tuple[HandTile, ...] = ()
        self._cursor: int | None = None
        self._show_cursor = True
        self._strips: list[Strip] | None = None
        self._strips_key: tuple[object, ...] = ()

    @property
    def tiles(self) -> tuple[HandTile, ...]:
        return self._tiles

    @property
    def cursor(self) -> int | None:
        return self._cursor

    def set_tiles(self, tiles: tuple[HandTile, ...], *, show_cursor: bool = True) -> None:
        """Show a new hand; keeps the cursor on the same position when it still exists.

        The cursor is drawn only while the player has a tile to choose."""
        if tiles == self._tiles and show_cursor == self._show_cursor:
            return
        self._show_cursor = show_cursor
        self._tiles = tiles
        if not tiles:
            self._cursor = None
        elif self._cursor is None or self._cursor >= len(tiles):
            self._cursor = 0
        self._strips = None
        self.refresh()  # a fixed size: a smaller hand never re-lays out the screen

    def place_cursor(self, index: int) -> None:
        """Put the cursor on tile `index` without choosing it."""
        if 0 <= index < len(self._tiles) and index != self._cursor:
            self._cursor = index
            self._strips = None
            self.refresh()

    def move(self, step: int) -> None:
        if not self._tiles:
            return
        start = 0 if self._cursor is None else self._cursor
        self._cursor = (start + step) % len(self._tiles)
        self._strips = None
        self.refresh()

    def pick(self, index: int) -> None:
        """Put the cursor on tile `index` and choose it."""
        if 0 <= index < len(self._tiles):
            if self._cursor != index:
                self._cursor = index
                self._strips = None
                self.refresh()
            self.post_message(self.Picked(self, self._tiles[index].tile))

    def pick_cursor(self) -> None:
        if self._cursor is not None:
            self.pick(self._cursor)

    def tile_x(self, index: int) -> int:
        """The column of the middle of tile `index` (where a click chooses it)."""
        return self._offset() + index * (TILE_WIDTH + TILE_GAP) + TILE_WIDTH // 2

    def _offset(self) -> int:
        """Columns left blank so the hand sits in the middle of its fixed width."""
        n = len(self._tiles)
        used = n * TILE_WIDTH + max(0, n - 1) * TILE_GAP
        return max(0, (HAND_WIDTH - used) // 2)

    def render_line(self, y: int) -> Strip:
        """Lines straight from cached segments: the hand redraws on most of the player's
        moves, and going through Textual's content layer cost several ms each time."""
        base = self.rich_style
        width = self.size.width
        key = (width, base)
        if self._strips is None or key != self._strips_key:
            self._strips_key = key
            cursor = self._cursor if self._show_cursor else None
            pad = Segment(" " * self._offset(), base)
            self._strips = [
                Strip([pad, *(Segment(text, base + style) for text, style in row)])
                .adjust_cell_length(width, base)
                for row in hand_rows(self._tiles, cursor)
            ]
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(width, base)

    def on_click(self, event: events.Click) -> None:
        index = tile_at(event.x - self._offset(), len(self._tiles))
        if index is not None:
            event.stop()
            self.pick(index)
