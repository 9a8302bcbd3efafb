"""The player's hand: dominoes side by side, chosen by arrows, digits or a click; where
there is no hand, the words that stand in its place (a hand's result, a watcher's note)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Static

from ..rules import Tile
from .base import set_text
from .dominoes import (
    TILE_GAP,
    TILE_HEIGHT,
    TILE_WIDTH,
    HandTile,
    Mark,
    tile_at,
    tile_rows,
)

MAX_TILES = 8
"""Seven tiles, and the widow while the declarer discards."""
HAND_WIDTH = MAX_TILES * TILE_WIDTH + (MAX_TILES - 1) * TILE_GAP
PADDING = 2
"""Columns kept blank on each side of the words shown in place of the hand."""


class HandView(Static, can_focus=True):
    """Draws `HandTile`s; posts `Picked` when the player clicks one (the screen's keys
    use `select`). With `show_text`, it draws words instead (the hand's result, a
    watcher's note), centred as a block.

    One widget of a fixed size for both: showing one of two widgets in turn, and words of
    their own width, re-laid out the whole screen at every hand's end and deal (about a
    tenth of a table's drawing, measured), and left frames wrong when a panel beside it
    repainted only its changed lines (the hand's old rows were in no dirty region).

    It holds no game state: the screen gives it the tiles and marks of the latest view.
    """

    DEFAULT_CSS = f"""
    HandView {{ width: 100%; height: {TILE_HEIGHT}; padding: 0 {PADDING};
                content-align: center middle; }}
    """

    @dataclass
    class Picked(Message):
        """The player chose `tile` (Enter, a digit or a click). The tile, not its place:
        the hand may have changed by the time the message is handled."""

        hand: HandView
        tile: Tile

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._text: Text | Content | None = None
        """The words shown instead of the tiles (None: the tiles)."""
        self._tiles: tuple[HandTile, ...] = ()
        self._cursor: int | None = None
        self._show_cursor = True
        self._strips: list[Strip] | None = None
        self._strips_key: tuple[object, ...] = ()
        self._pieces: dict[tuple[HandTile, bool], tuple[Segment, ...]] = {}
        """Each tile's segments, row by row, in the style `_pieces_base`."""
        self._pieces_base: Style | None = None

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

    def show_text(self, text: Text | Content | None) -> None:
        """Show `text` in place of the tiles (None: the tiles again). Words are plain
        data here: give a `str` to `plain()` first."""
        if text == self._text:
            return
        self._text = text
        self._strips = None
        set_text(self, "" if text is None else text)

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

    def select(self, index: int | None) -> Tile | None:
        """Put the cursor on tile `index` and give its tile (None: no such tile). The
        screen's keys choose through this, not through a `Picked` message: on a busy
        server each message is a turn at the back of the event loop's queue.

        A dashed tile is given (the table says why it may not be played) but the cursor
        stays on a tile that may: Enter after the refusal plays that one, not the
        refused tile again."""
        if index is None or not 0 <= index < len(self._tiles):
            return None
        if self._cursor != index and self._tiles[index].mark is not Mark.ILLEGAL:
            self._cursor = index
            self._strips = None
            self.refresh()
        return self._tiles[index].tile

    def pick(self, index: int) -> None:
        """Put the cursor on tile `index` and choose it (posts `Picked`)."""
        tile = self.select(index)
        if tile is not None:
            self.post_message(self.Picked(self, tile))

    def tile_x(self, index: int) -> int:
        """The column of the middle of tile `index` (where a click chooses it)."""
        return self._offset() + index * (TILE_WIDTH + TILE_GAP) + TILE_WIDTH // 2

    def _hand_x(self) -> int:
        """The column (of the whole widget) where the `HAND_WIDTH` of the tiles starts:
        in the middle, where a widget of that width stood before."""
        return max(0, (self.size.width + 2 * PADDING - HAND_WIDTH) // 2)

    def _offset(self) -> int:
        """The column of the first tile: the hand sits in the middle of `HAND_WIDTH`."""
        n = len(self._tiles)
        used = n * TILE_WIDTH + max(0, n - 1) * TILE_GAP
        return self._hand_x() + max(0, (HAND_WIDTH - used) // 2)

    def render_lines(self, crop: Region) -> list[Strip]:
        # The lines are made here, once a frame (their style walks up the screen's tree).
        key = (self.size.width, self.rich_style)
        if self._strips is None or key != self._strips_key:
            self._make_strips(key)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Lines straight from cached segments: the hand redraws on most of the player's
        moves, and going through Textual's content layer cost several ms each time."""
        if self._strips is None:  # (drawn without a frame: made here)
            self._make_strips((self.size.width, self.rich_style))
        assert self._strips is not None
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width, self.rich_style)

    def _make_strips(self, key: tuple[int, Style]) -> None:
        """The lines for this width and style: the words, or the tiles."""
        self._strips_key = key
        self._strips = self._text_lines() if self._text is not None else self._hand_lines()

    def _hand_lines(self) -> list[Strip]:
        base, width = self.rich_style, self.size.width
        # Outside the hand's width only the background, as around a widget of that width.
        blank = Style.from_color(bgcolor=base.bgcolor)
        cursor = self._cursor if self._show_cursor else None
        left = Segment(" " * max(0, self._hand_x() - PADDING), blank)
        pad = Segment(" " * (self._offset() - self._hand_x()), base)
        gap = Segment(" " * TILE_GAP, base)
        # Each tile's segments, row by row, as drawn last time (a hand changes a tile or
        # two's marks at a time; the segments of the others are kept until the next).
        pieces = self._pieces if self._pieces_base == base else {}
        self._pieces_base = base
        kept: dict[tuple[HandTile, bool], tuple[Segment, ...]] = {}
        columns = []
        for i, tile in enumerate(self._tiles):
            key = (tile, i == cursor)
            column = pieces.get(key)
            if column is None:
                column = tuple(Segment(text, base + style)
                               for text, style in tile_rows(tile, cursor=i == cursor))
            kept[key] = column
            columns.append(column)
        self._pieces = kept
        # Each row laid out once at its known length (every tile row is TILE_WIDTH cells):
        # the hand's width filled in the widget's style, the rest of the line in `blank`.
        used = self._offset() - self._hand_x() + len(columns) * (TILE_WIDTH + TILE_GAP) \
            - (TILE_GAP if columns else 0)
        ends = [Segment(" " * (HAND_WIDTH - used), base)] if used < HAND_WIDTH else []
        length = left.cell_length + HAND_WIDTH
        if length < width:
            ends.append(Segment(" " * (width - length), blank))
        lines = []
        for row in range(TILE_HEIGHT):
            segments = [left, pad]
            for i, column in enumerate(columns):
                if i:
                    segments.append(gap)
                segments.append(column[row])
            segments.extend(ends)
            line = Strip(segments, max(length, width))
            lines.append(line.adjust_cell_length(width))  # (cut, when the widget is narrower)
        return lines

    def _text_lines(self) -> list[Strip]:
        """The words as a box of their own width (padding included) in the middle of the
        widget, the words centred in it: as a `width: auto` Static there drew them."""
        width, height = self.size
        outer = width + 2 * PADDING
        visual = self.visual
        # As Textual sizes a `width: auto` widget (Widget.get_content_width).
        natural = visual.get_optimal_width(self.styles, outer)  # type: ignore[arg-type]
        box = min(natural + 2 * PADDING, outer)
        lines = Visual.to_strips(self, visual, box - 2 * PADDING, height, self.visual_style)
        blank = Style.from_color(bgcolor=self.rich_style.bgcolor)
        left = Segment(" " * ((outer - box) // 2), blank)
        return [Strip([left, *line]).adjust_cell_length(width, blank) for line in lines]

    def on_click(self, event: events.Click) -> None:
        if self._text is not None:
            return
        index = tile_at(event.x - self._offset(), len(self._tiles))
        if index is not None:
            event.stop()
            self.pick(index)
