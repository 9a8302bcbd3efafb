"""What the screens need from the app that shows them, so `ui/` never imports the app.

`MoonApp` (`moon_tui/app.py`) implements it; a screen reaches it as `self.moon`.
"""

from __future__ import annotations

from typing import Protocol

from ..bots.analysis import Analyst
from ..lobby.messages import Command
from ..services import GameArchive, KeyManager, ServerHealth
from .model import Model


class ScreenContext(Protocol):
    player_name: str
    operator: bool
    guest: bool
    """Logged in without a key: a name for this visit only, no keys to manage."""
    solo: bool
    """A game played alone in one's own terminal (`moon`): no lobby, nobody to chat with."""
    chat_max_chars: int
    """The longest chat line the lobby takes."""
    keys: KeyManager | None
    health: ServerHealth | None
    games: GameArchive | None
    """The club's saved games (None: none kept, e.g. a game played alone)."""
    analyst: Analyst | None
    """Weighs a saved game's decisions in the bot workers (None: no analysis here)."""
    model: Model
    """What this player was told so far: a screen draws from it when it opens, then from
    the events the app hands it (`MoonParts.table_event`, `MoonParts.lobby_event`)."""

    def send(self, command: Command) -> None:
        """Send a command to the lobby, or straight to the table it names."""
        ...
