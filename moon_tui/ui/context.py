"""What the screens need from the app that shows them, so `ui/` never imports the app.

`MoonApp` (`moon_tui/app.py`) implements it; a screen reaches it as `self.moon`.
"""

from __future__ import annotations

from typing import Protocol

from ..bots.analysis import Analyst
from ..lobby.messages import Command
from ..services import GameArchive, KeyManager, RatingBook, ServerHealth
from .model import Model


class ScreenContext(Protocol):
    player_name: str
    operator: bool
    guest: bool
    """Logged in without a key: a name for this visit only, no keys to manage."""
    solo: bool
    """A game played alone in one's own terminal (`moon`): no lobby, nobody to chat with."""
    lesson: str | None
    """The first lesson is on (`moon_tui/lesson.py`): what its last step offers, else None."""
    chat_max_chars: int
    """The longest chat line the lobby takes."""
    keys: KeyManager | None
    health: ServerHealth | None
    games: GameArchive | None
    """The club's saved games (None: none kept, e.g. a game played alone)."""
    analyst: Analyst | None
    """Weighs a saved game's decisions in the bot workers (None: no analysis here)."""
    ratings: RatingBook | None
    """The leaderboard and player cards (None: no club, e.g. playing alone)."""
    model: Model
    """What this player was told so far: a screen draws from it when it opens, then from
    the events the app hands it (`MoonParts.table_event`, `MoonParts.lobby_event`)."""

    @property
    def may_start_lesson(self) -> bool:
        """The first lesson can start now (at a club, at no table)."""
        ...

    def start_lesson(self) -> None:
        """Play the first lesson at a table of the player's own."""
        ...

    def send(self, command: Command) -> None:
        """Send a command to the lobby, or straight to the table it names."""
        ...
