"""A chat pane: the lines said so far and a one-line input."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, RichLog

from ..lobby.messages import ChatLine
from .base import steady_input
from .model import CHAT_KEPT
from .words import named


class ChatInput(Input):
    """The chat's line, saying in the footer what Enter and Esc do while it has the keys
    (the screen's letter keys type into it, so the footer had nothing left to show)."""

    BINDINGS = [
        Binding("enter", "submit", "send"),
        Binding("escape", "screen.unfocus_chat", "leave the chat"),
    ]


class ChatPanel(Vertical):
    """Shows chat lines (appending only the new ones) and posts `Said` on Enter."""

    DEFAULT_CSS = """
    ChatPanel { height: 1fr; }
    ChatPanel RichLog { height: 1fr; background: $surface; scrollbar-size-vertical: 1; }
    ChatPanel Input { height: 1; }
    """

    @dataclass
    class Said(Message):
        text: str

    def __init__(self, *, max_length: int, placeholder: str = "c to chat",
                 id: str | None = None) -> None:  # noqa: A002
        """`max_length`: the longest line the lobby takes (its `chat_max_chars`)."""
        super().__init__(id=id)
        self._placeholder = placeholder
        self._max_length = max_length
        self._last: ChatLine | None = None
        self.operators: Collection[str] = ()

    def compose(self) -> ComposeResult:
        # min_width: RichLog draws each line at least 78 cells wide by default, so a
        # narrow pane (the table's) cut long lines off instead of wrapping them.
        # max_lines: as many as the model keeps of a chat (what `show` is given).
        yield RichLog(wrap=True, markup=False, auto_scroll=True, max_lines=CHAT_KEPT,
                      min_width=8)
        yield steady_input(ChatInput, placeholder=self._placeholder,
                           max_length=self._max_length)

    def show(self, lines: Sequence[ChatLine], operators: Collection[str] = ()) -> None:
        """Append the lines not shown yet (the model keeps the last few hundred); the
        senders among `operators` are marked as such."""
        self.operators = operators
        log = self.query_one(RichLog)
        new: Sequence[ChatLine]
        if self._last is not None and self._last in lines:
            index = len(lines) - 1 - list(reversed(lines)).index(self._last)
            new = lines[index + 1:]
        else:
            new = lines
        for line in new:
            self._write(log, line)

    def add(self, line: ChatLine, operators: Collection[str] = ()) -> None:
        """One new line."""
        self.operators = operators
        self._write(self.query_one(RichLog), line)

    def _write(self, log: RichLog, line: ChatLine) -> None:
        text = Text()
        text.append(named(line.sender, self.operators), style="bold")
        text.append(": " + line.text)
        log.write(text)
        self._last = line

    def focus_input(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        event.input.clear()
        if text:
            self.post_message(self.Said(text))
