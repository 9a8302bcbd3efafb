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


class WelcomeScreen(MoonScreen):
    BINDINGS = [
        Binding("enter", "lobby", "go to the lobby"),
        Binding("question_mark", "help", "help"),
        Binding("q", "app.quit", "quit"),
    ]

    def compose_body(self) -> ComposeResult:
        text = Text(justify="center")
        text.append(_block(BANNER), style="bold")
        text.append("\n\nthe domino game, in your terminal\n\n")
        text.append("Welcome, ")
        text.append(self.moon.player_name, style="bold")
        text.append("!\n\n")
        if self.moon.motd:
            text.append(self.moon.motd.strip() + "\n\n", style="italic")
        text.append("Press Enter to go to the lobby, ? for help.")
        with Middle():
            with Center():
                yield Static(text, id="welcome")
        yield KeyBar()

    def action_lobby(self) -> None:
        from .lobby_screen import LobbyScreen

        self.app.switch_screen(LobbyScreen())

