"""Computer players. They see one seat's view only; no textual, no asyncssh."""

from .base import Bot, RandomBot

__all__ = ["Bot", "RandomBot"]
