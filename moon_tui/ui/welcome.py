"""The first screen: who you are and the message of the day."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.widgets import Static

from .bars import KeyBar
from .base import MoonScreen

BANNER = r"""
 __  __
|  \/  | ___   ___  _ __
| |\/| |/ _ \ / _ \| '_ \
| |  | | (_) | (_) | | | |
|_|  |_|\___/ \___/|_| |_|
"""


def _block(art: str) -> str:
    """Pad every line of `art` to one width, so centring the text keeps the letters aligned."""
    lines = art.strip("\n").splitlines()
    width = max(len(line) for line in lines)
    return "\n".join(line.ljust(width) for line in lines)


def welcome_lines(name: str, motd: str) -> list[tuple[str, str]]:
    """(line, style) pairs: the banner, a greeting, the message of the day, the keys.

    Shown by the welcome screen, and drawn by the SSH server before the app starts
    (server/banner.py)."""
    lines = [(line, "bold") for line in _block(BANNER).splitlines()]
    lines += [("", ""), ("the domino game, in your terminal", ""), ("", ""),
              (f"Welcome, {name}!", "bold"), ("", "")]
    if motd:
        lines += [(line, "italic") for line in motd.strip().splitlines()] + [("", "")]
    lines.append(("Press Enter to go to the lobby, ? for help.", ""))
    return lines


def welcome_text(name: str, motd: str) -> Text:
    text = Text(justify="center")
    for index, (line, style) in enumerate(welcome_lines(name, motd)):
        text.append(("\n" if index else "") + line, style=style)
    return text


class WelcomeScreen(MoonScreen):
    BINDINGS = [
        Binding("enter", "lobby", "go to the lobby"),
        Binding("question_mark", "help", "help"),
        Binding("q", "app.quit", "quit"),
    ]

    def compose_body(self) -> ComposeResult:
        text = welcome_text(self.moon.player_name, self.moon.motd)
        with Middle():
            with Center():
                yield Static(text, id="welcome")
        yield KeyBar()

    def action_lobby(self) -> None:
        from .lobby_screen import LobbyScreen

        self.app.switch_screen(LobbyScreen())

