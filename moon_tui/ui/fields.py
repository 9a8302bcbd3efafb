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


class Choice(Field, Generic[ValueT]):
    """Picks one of `options` ((label, value) pairs); `value` is the one shown."""

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
                 id: str | None = None) -> None:  # noqa: A002 - as in Textual
        super().__init__(id=id)
        self.options = list(options)
        self._index = [v for _, v in self.options].index(value)

    @property
    def value(self) -> ValueT:
        return self.options[self._index][1]

    def action_step(self, by: int) -> None:
        self._index = (self._index + by) % len(self.options)
        self.refresh()
        self.post_message(self.Changed(self))  # type: ignore[arg-type]

    def on_click(self, event: events.Click) -> None:
        self.action_step(-1 if event.x < 2 else 1)  # the ‹ steps back, the rest forward

    def render(self) -> Content:
        return Content(f"‹ {self.options[self._index][0]} ›")

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._label_width() + 4  # as wide as the longest option: nothing beside it jumps

    def _label_width(self) -> int:
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
