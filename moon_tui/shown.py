"""Text from outside made safe for one line of a log or a terminal: escaped like `repr`,
cut to a bound.

A TERM of "xterm\\nlogin olga (operator)" written raw forged a whole log line; escape
bytes reached the operator's terminal; a 32 KB TERM was logged whole; an ESC[2J in a game
record's rule key cleared the terminal of whoever checked it, and a lone surrogate in it
could not even be printed. Everything a client sent, and every name or key read from a
file, goes through `shown` before it is logged or printed.
"""

from __future__ import annotations

ELLIPSIS = "…"
_NAMED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    if char.isprintable():
        return char
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(value: object, limit: int = 80) -> str:
    """`value` as one line of at most `limit` characters: control and other
    non-printable characters escaped as `repr` does, the rest cut with an ellipsis."""
    text = value if isinstance(value, str) else str(value)
    parts: list[str] = []
    length = 0
    for char in text[:limit]:  # each char escapes to at least one: never need more
        piece = _escaped(char)
        if length + len(piece) > limit:
            break
        parts.append(piece)
        length += len(piece)
    else:
        if len(text) <= limit:
            return "".join(parts)
    while parts and length + len(ELLIPSIS) > limit:
        length -= len(parts.pop())
    return "".join(parts) + ELLIPSIS


def brief(value: object, limit: int = 40) -> str:
    """`repr(value)` (quoted, with what a terminal would act on escaped) of at most `limit`
    characters: a value quoted in a message, however long it was."""
    cut = value[:limit] if isinstance(value, str | bytes) else value
    text = repr(cut)
    if len(text) > limit or cut is not value:
        return text[:limit - 1] + ELLIPSIS
    return text


def one_line(text: str, limit: int = 300) -> str:
    """A message as one printable line of at most `limit` characters: as it is when it is
    printable already (values in it quoted with `brief`), else escaped with `shown`."""
    if text.isprintable() and len(text) <= limit:
        return text
    return shown(text, limit)
