"""The player's hand: dominoes side by side, chosen by arrows, digits or a click."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from .dominoes import TILE_GAP, TILE_HEIGHT, TILE_WIDTH, HandTile, hand_text, tile_at


class HandView(Widget, can_focus=True):
    """Draws `HandTile`s; posts `Picked` when the player chooses one.

    It holds no game state: the screen gives it the tiles and marks of the latest view.
    """

    DEFAULT_CSS = """
    HandView { width: auto; height: 9; }
    """

    @dataclass
    class Picked(Message):
        """The player chose the tile at `index` (Enter, a digit or a click)."""

        hand: HandView
        index: int

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._tiles: tuple[HandTile, ...] = ()
        self._cursor: int | None = None
        self._show_cursor = True
        self._text: Text | None = None

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
        width_changed = len(tiles) != len(self._tiles)
        self._tiles = tiles
        if not tiles:
            self._cursor = None
        elif self._cursor is None or self._cursor >= len(tiles):
            self._cursor = 0
        self._text = None
        self.refresh(layout=width_changed)

    def place_cursor(self, index: int) -> None:
        """Put the cursor on tile `index` without choosing it."""
        if 0 <= index < len(self._tiles) and index != self._cursor:
            self._cursor = index
            self._text = None
            self.refresh()

    def move(self, step: int) -> None:
        if not self._tiles:
            return
        start = 0 if self._cursor is None else self._cursor
        self._cursor = (start + step) % len(self._tiles)
        self._text = None
        self.refresh()

    def pick(self, index: int) -> None:
        """Put the cursor on tile `index` and choose it."""
        if 0 <= index < len(self._tiles):
            if self._cursor != index:
                self._cursor = index
                self._text = None
                self.refresh()
            self.post_message(self.Picked(self, index))

    def pick_cursor(self) -> None:
        if self._cursor is not None:
            self.pick(self._cursor)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        n = len(self._tiles)
        return max(1, n * TILE_WIDTH + max(0, n - 1) * TILE_GAP)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return TILE_HEIGHT

    def render(self) -> Text:
        if self._text is None:
            self._text = hand_text(self._tiles, self._cursor if self._show_cursor else None)
        return self._text

    def on_click(self, event: events.Click) -> None:
        index = tile_at(event.x, len(self._tiles))
        if index is not None:
            event.stop()
            self.pick(index)
