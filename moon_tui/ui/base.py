"""What every screen of the app shares: the too-small notice and being told of events.

The app hands each event only to the screens it concerns: a table's events (its
`TableUpdate`s, `GameFinished`, its chat, refusals of commands about it) to the screens
showing that table (`table_id`), the lobby's to the lobby screen. A screen draws from the
event it is given; when it opens, it draws from the model (`ScreenContext.model`).
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable
from typing import Any, cast

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from ..lobby.messages import ChatPosted, Event, LobbyUpdate
from .context import ScreenContext
from .plain import plain

MIN_WIDTH = 80
MIN_HEIGHT = 24

#: Breakpoints add `-narrow` below 80 columns or `-short` below 24 rows (the stylesheet
#: then hides the screen's content and shows only the `TooSmall` notice); `-roomy` from
#: 100 columns (names shown whole) and `-xwide` from 120 give panels more room.
HORIZONTAL = [(0, "-narrow"), (MIN_WIDTH, "-wide"), (100, "-roomy"), (120, "-xwide")]
VERTICAL = [(0, "-short"), (MIN_HEIGHT, "-tall")]


def breakpoint_class(size: int, breakpoints: list[tuple[int, str]]) -> str:
    """The class of the last of `breakpoints` (ascending) that `size` reaches, as Textual
    chooses it when a screen is resized."""
    return next(name for edge, name in reversed(breakpoints) if size >= edge)


class TooSmall(Static):
    """Shown instead of a layout that would not fit."""

    def __init__(self) -> None:
        super().__init__(
            f"This window is too small for Moon.\n\nPlease make it at least "
            f"{MIN_WIDTH} columns wide and {MIN_HEIGHT} rows high.\n\n(Ctrl+Q quits.)",
            classes="too-small",
        )


def heading(words: str) -> Text:
    """A text that begins with `words` in bold; what is appended to it stays plain (a
    Text's own style, `Text(words, style="bold")`, would make all of it bold)."""
    return Text.assemble((words, "bold"))


_SHOWN: weakref.WeakKeyDictionary[Static, object] = weakref.WeakKeyDictionary()
"""What `set_text` last gave each widget (gone with the widget)."""


def set_text(widget: Static, text: str | Text | Content, *, layout: bool = False) -> None:
    """Update a Static only when its content changed, without a re-layout by default.

    A `str` is shown as plain text (see `plain`): what a screen draws holds names, chat,
    reasons, error messages, and Textual would read it as markup (`[/]` raised). Style
    is given as `Text`/`Content` spans, never as markup in the string."""
    if _SHOWN.get(widget) == text:
        return
    _SHOWN[widget] = text
    widget.update(plain(text) if isinstance(text, str) else text, layout=layout)


class MoonParts:
    """What screens and dialogs share: the app, the too-small notice, the help key.

    Opening a screen is one of the costliest things a session does over SSH, and much
    of it is styling every widget again: once when the first Resize adds the breakpoint
    classes, once more when the screen is first shown. Here the classes are set before
    the widgets are styled, and the first showing skips the second pass.

    For the same reason each screen names the widget that takes the focus in
    `AUTO_FOCUS` rather than focusing it in `on_mount`: Textual would first focus the
    first focusable widget (restyling it, and a container with all it holds), then move.
    """

    table_id: str | None = None
    """The table this screen shows, if any: it gets that table's events."""
    bindings_state: Hashable | None = None
    """All that the screen's `check_action` reads, when the screen can say: the key bar
    keeps its items for each (None: worked out again at each change)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown_once = False
        screen: Screen[object] = self  # type: ignore[assignment]  # a mixin of Screen
        try:
            width, height = screen.app.size
        except RuntimeError:  # (Textual's NoActiveAppError: built outside an app)
            return
        if width and height:
            screen.add_class(breakpoint_class(width, HORIZONTAL),
                             breakpoint_class(height, VERTICAL), update=False)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Mount) and not self.is_attached:  # type: ignore[attr-defined]
            # The app is ending (its player left, e.g. right after pressing Enter) while
            # this screen was being built: Textual mounted none of its widgets, so its
            # `on_mount` would query widgets that are not there. Nothing to set up.
            return
        await super().on_event(event)  # type: ignore[misc]

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Screen's own handler: a screen shown for the first time was styled
        # as it mounted, a moment ago.
        if not self._shown_once:
            self._shown_once = True
            event.refresh_styles = False

    @property
    def moon(self) -> ScreenContext:
        return cast(ScreenContext, self.app)  # type: ignore[attr-defined]

    def table_event(self, event: Event) -> None:
        """An event of the table this screen shows (`table_id`); the model has it too."""

    def lobby_event(self, event: LobbyUpdate | ChatPosted) -> None:
        """The list of tables and who is online, or a line of the lobby chat."""

    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield from self.compose_body()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def action_help(self) -> None:
        from .help import HelpScreen

        self.app.push_screen(HelpScreen())  # type: ignore[attr-defined]


class FirstScreen(Screen[None]):
    """The app's default screen, under every other: blank until the player's first screen
    goes over it (the lobby; for a player coming back to a table, that table's screen,
    and the lobby only when they first leave it). The server counts an app as started
    at its first frame of another screen (`server/driver.py`)."""


class MoonScreen(MoonParts, Screen[None]):
    """A full screen of the app."""

    HORIZONTAL_BREAKPOINTS = HORIZONTAL
    VERTICAL_BREAKPOINTS = VERTICAL


class ComingBackScreen(MoonScreen):
    """A player came back to a table that nobody runs for the moment (the club's server
    that ran it stopped): they wait here, in plain words, and the app takes them to
    their seat as soon as a server has taken the table up (`MoonApp._show_table`)."""

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words

    def compose_body(self) -> ComposeResult:
        yield Static(plain(self.words), id="coming-back")


class MoonModal(MoonParts, ModalScreen[None]):
    """A dialog over another screen; Escape closes it."""

    HORIZONTAL_BREAKPOINTS = HORIZONTAL
    VERTICAL_BREAKPOINTS = VERTICAL

    BINDINGS = [("escape", "close", "Close")]

    def action_close(self) -> None:
        self.dismiss(None)


def steady_input(kind: type[Input] = Input, **options: Any) -> Input:
    """A one-line input (`kind`: Input or a subclass) whose cursor does not blink: a
    blinking cursor redraws twice a second for every session on the server, and makes
    screenshots differ."""
    field = kind(compact=True, **options)
    field.cursor_blink = False
    return field
