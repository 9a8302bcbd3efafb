"""One-line bars drawn as a single widget: the keys of the screen, and clickable choices.

Textual's Footer and a row of Buttons rebuild many widgets whenever they change; with
hundreds of sessions in one process that is most of the CPU. These bars redraw one line
of text and map a click's column back to the item under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from .base import MoonParts
from .panel import DRAWN_KEPT, KeepsDrawn, keep, recall

KEY_NAMES = {"question_mark": "?", "escape": "esc", "enter": "⏎", "left": "←",
             "right": "→", "ctrl+s": "^s", "ctrl+q": "^q", "space": "space", "colon": ":"}



def key_display(key: str) -> str:
    return KEY_NAMES.get(key, key)


@dataclass(frozen=True, slots=True)
class Item:
    """One clickable piece of a bar: `key` (shown bold) and `label`."""

    ident: str
    key: str
    label: str


class ClickBar(KeepsDrawn, Widget):
    """A line of items; a click posts `Chosen` with the item's ident. The lines drawn
    for each set of items are kept (`KeepsDrawn`): the bars go back and forth between a
    few."""

    DEFAULT_CSS = """
    ClickBar { height: 1; width: 1fr; }
    """

    @dataclass
    class Chosen(Message):
        bar: ClickBar
        ident: str

        @property
        def control(self) -> ClickBar:
            return self.bar

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._items: tuple[Item, ...] = ()
        self._spans: list[tuple[int, int, str]] = []
        self._text = Text()
        self._cursor: int | None = None
        self._layouts: dict[tuple[tuple[Item, ...], int | None, int],
                            tuple[Text, list[tuple[int, int, str]]]] = {}
        """Each set of items laid out at a width, as it was shown, the most recent last
        (the bars go back and forth between a few: laying them out again was ~1% of a
        table update's CPU, measured)."""

    @property
    def items(self) -> tuple[Item, ...]:
        return self._items

    def set_items(self, items: Sequence[Item], cursor: int | None = None) -> None:
        """Show `items`; `cursor`: the index of the item ←→ and Enter act on (None: no
        cursor), marked `▸` and underlined so it reads without colour."""
        items = tuple(items)
        if cursor is not None and not 0 <= cursor < len(items):
            cursor = None
        if items == self._items and cursor == self._cursor:
            return
        self._items = items
        self._cursor = cursor
        self._lay_out()

    def _lay_out(self) -> None:
        width = self.size.width
        key = (self._items, self._cursor, width)
        layout = recall(self._layouts, key)
        if layout is None:
            layout = self.layout_items(*self.fitted(self._items, width))
            keep(self._layouts, key, layout, DRAWN_KEPT)
        self._text, self._spans = layout
        self.refresh()

    def on_resize(self) -> None:
        if self._items:
            self._lay_out()

    def fitted(self, items: tuple[Item, ...], width: int) -> tuple[tuple[Item, ...], bool]:
        """The items shown in `width` columns, and whether they are laid out compact (all
        of them, two spaces apart: a row of choices is short)."""
        return items, False

    @property
    def cursor(self) -> int | None:
        return self._cursor

    @staticmethod
    def width_of(items: Sequence[Item], compact: bool = False) -> int:
        """Columns `layout_items` takes for `items`, two spaces apart or (`compact`) one."""
        return sum(cell_len(item.key) + bool(item.key and item.label)
                   + cell_len(item.label) + (1 if compact else 2) for item in items)

    def layout_items(self, items: tuple[Item, ...], compact: bool = False
                     ) -> tuple[Text, list[tuple[int, int, str]]]:
        """`items` as a line, two spaces apart or (`compact`, a footer short of room) one,
        and the columns each one takes."""
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        spans = []
        for index, item in enumerate(items):
            start = text.cell_len
            if index == self._cursor:
                text.append("▸", style="bold")
                item_start = text.cell_len
            else:
                text.append(" ")
                item_start = -1
            if item.key:
                text.append(item.key, style="bold reverse")
            if item.key and item.label:
                text.append(" ")
            text.append(item.label)
            if item_start >= 0:
                text.stylize("underline", item_start, text.cell_len)
            if not compact:
                text.append(" ")
            spans.append((start, text.cell_len, item.ident))
        return text, spans

    def render(self) -> Text:
        return self._text

    def drawn_content(self) -> Text:
        return self._text

    def on_click(self, event: events.Click) -> None:
        for start, end, ident in self._spans:
            if start <= event.x < end:
                event.stop()
                self.chosen(ident)
                return

    def chosen(self, ident: str) -> None:
        self.post_message(self.Chosen(self, ident))


KEPT_KEYS = frozenset({"?", "q", "esc"})
"""Keys a narrow footer shows whatever it leaves out: help, and the way out."""
STATES_KEPT = 32
"""Sets of items a `KeyBar` keeps, by the screen's `bindings_state` (a game has a few
dozen: phase, turn, tiles in hand...)."""


class KeyBar(ClickBar):
    """The footer: the screen's active, shown bindings; a click runs the binding."""

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $footer-background; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._items_by_state: dict[tuple[object, ...], tuple[Item, ...]] = {}
        """The items shown in each state of the screen (and focus)."""

    def on_mount(self) -> None:
        # Called as the screen publishes its bindings: posted to the bar instead, each
        # change went through a message and a new `partial` whose parameters Textual
        # counted with `inspect.signature` (~1% of a table update's CPU, measured).
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed,
                                                      immediate=True)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        state = screen.bindings_state if isinstance(screen, MoonParts) else None
        if state is None:
            self.set_items(self._active_items(screen))
            return
        # Working out the active bindings runs every check_action: ~3% of a table
        # update's CPU, for a few states that come back every hand (measured).
        key = (state, screen.focused)
        items = recall(self._items_by_state, key)
        if items is None:
            items = self._active_items(screen)
            keep(self._items_by_state, key, items, STATES_KEPT)
        self.set_items(items)

    def _active_items(self, screen: Screen[object]) -> tuple[Item, ...]:
        """The screen's active, shown bindings as items."""
        shown: list[Binding] = []
        seen_actions: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if binding.show and active.enabled and binding.action not in seen_actions:
                seen_actions.add(binding.action)
                shown.append(binding)
        items: list[Item] = []
        for group, members in groupby(shown, key=lambda b: b.group):
            bindings = list(members)
            if group is not None and len(bindings) == 1:
                # One choice left in a group (`1 choose tile`, not `1 tile 1`).
                only = bindings[0]
                items.append(Item(only.action, key_display(only.key), group.description))
            elif group is not None:
                keys = "".join(key_display(b.key) for b in bindings)
                items.append(Item("", keys, group.description))
            else:
                items.extend(Item(b.action, b.key_display or key_display(b.key),
                                  b.description) for b in bindings)
        return tuple(items)

    def fitted(self, items: tuple[Item, ...], width: int) -> tuple[tuple[Item, ...], bool]:
        """What fits in `width` columns: all the keys two spaces apart, or one; else, one
        apart, the other keys from the first while they fit, `…` (a click opens the help,
        which lists them all), then help and the way out (`KEPT_KEYS`). Cut at the end,
        an 80-column lobby lost "? help  q quit"."""
        if not width or self.width_of(items) <= width:
            return items, False
        if self.width_of(items, compact=True) <= width:
            return items, True
        kept = [item for item in items if item.key in KEPT_KEYS]
        more = Item(next((item.ident for item in kept if item.key == "?"), ""), "", "…")
        room = width - self.width_of([*kept, more], compact=True)
        shown: list[Item] = []
        for item in items:
            if item.key in KEPT_KEYS:
                continue
            if self.width_of([item], compact=True) > room:
                break
            room -= self.width_of([item], compact=True)
            shown.append(item)
        return (*shown, more, *kept), True

    def chosen(self, ident: str) -> None:
        if ident:
            self.call_later(self.app.run_action, ident, self.screen)
