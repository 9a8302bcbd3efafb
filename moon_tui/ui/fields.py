"""One-line form fields: `Choice` (`‹ value ›`, ← → step through) and `Flag` (`[x] label`).

Used instead of Textual's `Select` and `Checkbox` for the table options. A `Select` is
five widgets and a drop-down overlay, a `Checkbox` carries two component-style nodes;
the new-table dialog had seven of each, and opening it cost about three times as much
server CPU as opening the lobby (measured). A few players opening tables at once held up
everyone else's screens on a shared server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

ValueT = TypeVar("ValueT")


class Field(Widget, can_focus=True):
    """A one-line form field, highlighted like Textual's own fields when it has the focus."""

    DEFAULT_CSS = """
    Field { height: 1; width: auto; }
    Field:focus {
        color: $block-cursor-foreground;
        background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    """


LABEL_WIDTH = 16
"""Columns of a `Choice`'s own label, before a space and the choice (a form's grid of
labels and fields)."""


class Choice(Field, Generic[ValueT]):
    """Picks one of `options` ((label, value) pairs); `value` is the one shown.

    With a `label`, the field draws it in front (`LABEL_WIDTH` columns and a space),
    highlighted only on the choice: one widget where a form had a `Label` and the field
    (opening the new-table form styles, lays out and draws each widget it has: issue 36).
    """

    COMPONENT_CLASSES = {"choice--value"}
    DEFAULT_CSS = """
    Choice.-labelled:focus { color: initial; background: initial; text-style: initial; }
    Choice.-labelled:focus > .choice--value {
        color: $block-cursor-foreground;
        background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    """
    BINDINGS = [
        Binding("left", "step(-1)", "previous", show=False),
        Binding("right,space", "step(1)", "next", show=False),
    ]

    class Changed(Message):
        """The choice shown changed (the form hides the options that no longer apply)."""

        def __init__(self, choice: Choice[object]) -> None:
            super().__init__()
            self.choice = choice

        @property
        def control(self) -> Choice[object]:
            return self.choice

    def __init__(self, options: Sequence[tuple[str, ValueT]], value: ValueT, *,
                 label: str | None = None,
                 id: str | None = None) -> None:  # noqa: A002 - as in Textual
        super().__init__(id=id, classes="" if label is None else "-labelled")
        self.options = list(options)
        self._index = [v for _, v in self.options].index(value)
        self.label = label

    @property
    def value(self) -> ValueT:
        return self.options[self._index][1]

    def action_step(self, by: int) -> None:
        self._index = (self._index + by) % len(self.options)
        self.refresh()
        self.post_message(self.Changed(self))  # type: ignore[arg-type]

    def _indent(self) -> int:
        """Columns before the choice: its label's."""
        return 0 if self.label is None else LABEL_WIDTH + 1

    def focus_on_click(self) -> bool:
        # A click on the label leaves the focus where it was, as on a form's `Label`.
        return self.app.mouse_position.x >= self.region.x + self._indent()

    def on_click(self, event: events.Click) -> None:
        x = event.x - self._indent()
        if x >= 0:
            self.action_step(-1 if x < 2 else 1)  # the ‹ steps back, the rest forward

    def on_focus(self) -> None:
        if self.label is not None:  # highlighted only on its choice: drawn in `render`
            self.refresh()

    def on_blur(self) -> None:
        if self.label is not None:
            self.refresh()

    def render(self) -> Content:
        shown = f"‹ {self.options[self._index][0]} ›"
        if self.label is None:
            return Content(shown)
        # The label as a `Label` beside the field would be drawn: in its container's style.
        plain = self.parent.get_visual_style() if isinstance(self.parent, Widget) \
            else self.get_visual_style()
        pad = " " * (LABEL_WIDTH + 1 - len(self.label))
        if not self.has_focus:
            return Content.assemble((self.label, plain), (pad, plain), shown)
        # Focused, the field's width beyond the choice shown is highlighted too.
        value = self.get_visual_style("choice--value")
        rest = " " * (self._widest_option() + 4 - len(shown))
        return Content.assemble((self.label, plain), (pad, plain), (shown, value),
                                (rest, value))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        # As wide as the longest option: nothing beside it jumps.
        return self._indent() + self._widest_option() + 4

    def _widest_option(self) -> int:
        return max(len(label) for label, _ in self.options)


class Flag(Field):
    """An option that is on or off, `[x] label`: space, Enter or a click toggles it (the
    mark reads without colour)."""

    BINDINGS = [Binding("space,enter", "flip", "toggle", show=False)]

    class Changed(Message):
        """The box was ticked or cleared."""

        def __init__(self, flag: Flag) -> None:
            super().__init__()
            self.flag = flag

        @property
        def control(self) -> Flag:
            return self.flag

    def __init__(self, label: str, value: bool, *,
                 id: str | None = None) -> None:  # noqa: A002 - as in Textual
        super().__init__(id=id)
        self.label = label
        self._value = value

    @property
    def value(self) -> bool:
        return self._value

    def action_flip(self) -> None:
        self._value = not self._value
        self.refresh()
        self.post_message(self.Changed(self))

    def on_click(self) -> None:
        self.action_flip()

    def render(self) -> Content:
        return Content(f"[{'x' if self._value else ' '}] {self.label}")
