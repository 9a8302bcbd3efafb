"""Text a person typed, made safe to show: characters only, never markup or control codes.

Textual reads a `str` handed to `Static`, `Label`, `update()`, `notify()` or a DataTable
cell as content markup. A broadcast holding `[/]` raised `MarkupError` in every session
that drew it, `[b]x[/b]` came out bold and `[bring snacks]` vanished (read as a style).
Names, table names, chat, the message of the day, invite codes, reasons and error
messages are data: widgets get them as a `Content` or `Text` built here, where a bracket
is only a bracket. Markup stays in constant strings written in this package, nowhere else.

Control and format characters are dropped as well: an escape sequence would reach the
player's terminal as a command, and a lone surrogate cannot be encoded for the wire.
"""

from __future__ import annotations

import unicodedata

from rich.text import Text
from textual.content import Content

_DROPPED = ("Cc", "Cf", "Cs")
"""Control characters (ESC, BEL…), format characters (bidi overrides…), lone surrogates."""


def printable(text: str, *, lines: bool = True) -> str:
    """`text` with nothing a terminal would act on: control and format characters go,
    a tab becomes a space; newlines stay when `lines` (else they become spaces too)."""
    if text.isprintable():
        return text  # the usual case, checked in C
    kept = []
    for ch in text:
        if ch == "\n" and lines:
            kept.append(ch)
        elif ch in "\t\n\r\v\f":
            kept.append(" ")
        elif unicodedata.category(ch) not in _DROPPED:
            kept.append(ch)
    return "".join(kept)


QUOTED_MAX = 40
"""Characters of a name (or a value from elsewhere) a sentence quotes."""


def quoted(text: str, limit: int = QUOTED_MAX) -> str:
    """Text from elsewhere (a name, a system's error) as a sentence quotes it: one line
    of `printable` text, cut to `limit` characters."""
    return printable(text, lines=False)[:limit]


def plain(text: str) -> Content:
    """A widget's whole content from data: shown exactly as written (`Static.update`)."""
    return Content(printable(text))


def cell(text: str) -> Text:
    """A DataTable cell or column title from data (DataTable reads a `str` as markup)."""
    return Text(printable(text, lines=False), end="")
