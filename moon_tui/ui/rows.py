"""A list of rows with a cursor: the lobby's tables, the waiting room's seats.

Every player's lobby has one and every arrow key in the lobby redraws it, so it is kept
lighter than a DataTable (no cell caches, scrollbars or component-style nodes: measured,
those made up much of a lobby's start-up cost on a server of many sessions): it draws
its lines itself and redraws only the lines that change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from .plain import printable

Row = tuple[str, tuple[str, ...]]
"""A row's key and its cells."""

HEADER = Style(bold=True)
CURSOR = Style(reverse=True)
CURSOR_UNFOCUSED = Style(bold=True, underline=True)


class RowList(Widget, can_focus=True):
    """Rows under a header line; ↑↓ (and Home, End, Page keys) move the cursor, Enter or
    a click on the highlighted row posts `Selected`."""

    DEFAULT_CSS = """
    RowList { height: 1fr; }
    """

    BINDINGS = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "move(-1000000)", "first", show=False),
        Binding("end", "move(1000000)", "last", show=False),
        Binding("enter", "select", "select", show=False),
    ]

    @dataclass
    class Selected(Message):
        row_list: RowList
        key: str

        @property
        def control(self) -> RowList:
            return self.row_list

    def __init__(self, columns: Sequence[tuple[str, int]], *, flex: Sequence[int] = (),
                 id: str | None = None) -> None:  # noqa: A002
        """`columns`: (title, width) pairs; each cell gets a space on either side. The
        columns `flex` share the room the others leave (see `column_width`)."""
        super().__init__(id=id)
        self._titles = tuple(title for title, _ in columns)
        self._least = tuple(width for _, width in columns)
        self._widths = self._least
        self._flex = flex
        self._header = self._line(self._titles)
        self._rows: tuple[Row, ...] = ()
        self._lines: tuple[str, ...] = ()
        self.cursor = 0
        self._top = 0

    # -- the rows --------------------------------------------------------------------------
    @property
    def selected(self) -> str | None:
        """The key of the row under the cursor (None when there is no row)."""
        return self._rows[self.cursor][0] if self._rows else None

    def set_rows(self, rows: Sequence[Row]) -> bool:
        """Show `rows`; the cursor stays on the same key when it is still there. False
        (and nothing redrawn) when they are the rows already shown."""
        shown = tuple(rows)
        if shown == self._rows:
            return False
        selected, on_screen = self.selected, self._on_screen()
        made = {cells: line for (_, cells), line in zip(self._rows, self._lines, strict=True)}
        grown = len(shown) != len(self._rows)
        self._rows = shown
        # A row is laid out again only when its cells changed (a club lists a hundred
        # tables and one changes at a time).
        self._lines = tuple(made.get(cells) or self._line(cells) for _, cells in shown)
        keys = [key for key, _ in self._rows]
        self.cursor = keys.index(selected) if selected in keys else \
            min(self.cursor, max(0, len(keys) - 1))
        self._scroll_to_cursor()
        # Only the lines on screen that now look different are drawn again: most changes
        # in a long list are out of sight.
        height = self.styles.height
        if grown and height is not None and height.is_auto:
            # As tall as its rows: a new count lays it out again (the keys dialog's rows,
            # arriving after its first layout, were never shown: it stayed one line high).
            self.refresh(layout=True)
            return True
        for y, (old, new) in enumerate(zip(on_screen, self._on_screen(), strict=True)):
            if old != new:
                self.refresh(Region(0, 1 + y, self.size.width, 1))
        return True

    def select(self, key: str) -> None:
        """Put the cursor on the row of `key` (if shown)."""
        keys = [k for k, _ in self._rows]
        if key in keys:
            self._move_to(keys.index(key))

    def _on_screen(self) -> list[tuple[str | None, bool]]:
        """What each row line on screen shows: its text (None: blank) and whether it is
        the cursor's."""
        shown = []
        for index in range(self._top, self._top + self._visible):
            line = self._lines[index] if index < len(self._lines) else None
            shown.append((line, index == self.cursor and line is not None))
        return shown

    def _line(self, cells: tuple[str, ...]) -> str:
        """Cells are data (names, table names): drawn as segments, never read as markup,
        and with no control character left to reach the terminal."""
        return "".join(" " + set_cell_size(printable(cell, lines=False), width) + " "
                       for cell, width in zip(cells, self._widths, strict=False))

    # -- moving ----------------------------------------------------------------------------
    @property
    def _visible(self) -> int:
        return max(1, self.size.height - 1)

    def _scroll_to_cursor(self) -> bool:
        top = min(self._top, self.cursor, max(0, len(self._rows) - self._visible))
        top = max(top, self.cursor - self._visible + 1)
        changed = top != self._top
        self._top = top
        return changed

    def _move_to(self, index: int) -> None:
        if not self._rows:
            return
        index = max(0, min(len(self._rows) - 1, index))
        if index == self.cursor:
            return
        old, self.cursor = self.cursor, index
        if self._scroll_to_cursor():
            self.refresh()
        else:
            self._refresh_row(old)
            self._refresh_row(index)

    def _refresh_row(self, index: int) -> None:
        self.refresh(Region(0, 1 + index - self._top, self.size.width, 1))

    def action_move(self, step: int) -> None:
        self._move_to(self.cursor + step)

    def action_page(self, direction: int) -> None:
        self._move_to(self.cursor + direction * self._visible)

    def action_select(self) -> None:
        if self._rows:
            self.post_message(self.Selected(self, self._rows[self.cursor][0]))

    def on_click(self, event: events.Click) -> None:
        index = self._top + event.y - 1
        if event.y < 1 or index >= len(self._rows):
            return
        if index == self.cursor:
            self.action_select()
        else:
            self._move_to(index)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1 + len(self._rows)  # with `height: auto`: the header and every row

    def column_width(self, index: int) -> int:
        """How wide column `index` is now (the rows' cells are cut to it)."""
        return self._widths[index]

    def on_resize(self) -> None:
        if self._flex:
            room = max(0, self.size.width - sum(width + 2 for width in self._least))
            widths = list(self._least)
            for place, column in enumerate(self._flex):
                widths[column] += room // len(self._flex) + (place < room % len(self._flex))
            if tuple(widths) != self._widths:
                self._widths = tuple(widths)
                self._header = self._line(self._titles)
                self._lines = tuple(self._line(cells) for _, cells in self._rows)
        self._scroll_to_cursor()
        # Rows set before the first size drew no line (`set_rows` redraws only the lines
        # it sees on screen): a new size draws them all.
        self.refresh()

    def on_focus(self) -> None:
        self._refresh_row(self.cursor)

    def on_blur(self) -> None:
        self._refresh_row(self.cursor)

    # -- drawing ---------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            return Strip([Segment(set_cell_size(self._header, width), HEADER)], width)
        index = self._top + y - 1
        if index >= len(self._lines):
            return Strip.blank(width)
        style = None
        if index == self.cursor:
            style = CURSOR if self.has_focus else CURSOR_UNFOCUSED
        return Strip([Segment(set_cell_size(self._lines[index], width), style)], width)
