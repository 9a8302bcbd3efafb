"""Computer players. They see one seat's view only; no textual, no asyncssh."""

from .base import Bot, RandomBot
from .registry import LEVELS, make_bot

__all__ = ["LEVELS", "Bot", "RandomBot", "make_bot"]
