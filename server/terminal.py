"""What the player's terminal can show, decided from what their SSH client told us.

Textual builds its Rich console from the *server's* environment; over SSH every app needs
its own console built from the client's `TERM` (and `COLORTERM`/`NO_COLOR` if sent), or a
16-colour terminal gets escape codes it cannot show.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import textual.app as textual_app
from rich.console import Console
from textual.app import App, _NullFile
from textual.filter import NoColor

from .internals import Internal

OVERRIDDEN = (
    Internal("textual", textual_app, "_NullFile", "an app's console writes nowhere"),
    Internal("textual", App, "__init__", "fit_app_to_terminal adds to app._filters"),
    Internal("textual", App, "_handle_exception", "a crash read from app._exception"),
)
"""Textual's private code a session's console and its crash report rely on (internals.py)."""

ColorSystem = Literal["standard", "256", "truecolor"]

_MONOCHROME_TERMS = ("dumb", "vt52", "vt100", "vt102", "vt220", "vt320", "vt420")


@dataclass(frozen=True, slots=True)
class TerminalProfile:
    """The client's terminal: its type, size and how many colours it can show."""

    term: str
    width: int
    height: int
    color_system: ColorSystem
    no_color: bool

    @classmethod
    def from_client(
        cls, term: str | None, size: tuple[int, int], env: Mapping[str, str]
    ) -> TerminalProfile:
        """Decide colours from TERM, COLORTERM and NO_COLOR as the client sent them."""
        term = (term or "dumb").lower()
        width, height = size
        colorterm = env.get("COLORTERM", "").lower()
        no_color = "NO_COLOR" in env or term.startswith(_MONOCHROME_TERMS)
        color_system: ColorSystem
        if colorterm in ("truecolor", "24bit"):
            color_system = "truecolor"
        elif "256color" in term:
            color_system = "256"
        else:
            color_system = "standard"
        return cls(term, max(width, 1) or 80, max(height, 1) or 24, color_system, no_color)


def exit_message(app: App[Any]) -> str:
    """What the app printed on exit (`App.exit(message=...)`), as plain text."""
    file = app.error_console.file
    return file.getvalue().strip() if isinstance(file, io.StringIO) else ""


def fit_app_to_terminal(app: App[Any], profile: TerminalProfile) -> None:
    """Give `app` a console of its own for this client, and keep its errors off the server.

    Must run before `app.run_async()`; replaces what `App.__init__` built from os.environ.
    Without colour, attributes (bold, reverse) stay so the focus is still visible.
    """
    app.console = Console(
        color_system=profile.color_system,
        file=_NullFile(),  # type: ignore[arg-type]
        markup=True,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        _environ={"TERM": profile.term},
        force_terminal=True,
        safe_box=False,
        soft_wrap=False,
        width=profile.width,
        height=profile.height,
    )
    # The exit message and a crash's traceback go to error_console, the server's stderr
    # by default: keep them per app; the session shows the message and logs the crash.
    app.error_console = Console(
        file=io.StringIO(), width=profile.width, markup=False, highlight=False,
        color_system=None,
    )
    if profile.no_color:
        app.no_color = True
        app._filters.append(NoColor())
