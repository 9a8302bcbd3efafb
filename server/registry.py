"""Who is playing: every running game session, by player name, and the idle rule.

A name may have more than one game session for a moment (a takeover: the lobby drops
the older handle, whose app then ends); the name is online while any of them runs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator

from moon_tui.ui.door_words import idle_words

from .game_session import GameSession
from .logtext import shown

log = logging.getLogger(__name__)

IDLE_CHECK_SECONDS = 20.0


class SessionRegistry:
    """The game sessions running now; `started`/`ended` are called by each one."""

    def __init__(self, *, idle_minutes: float,
                 on_ended: Callable[[GameSession], None] | None = None) -> None:
        self._by_name: dict[str, list[GameSession]] = {}
        self._idle_minutes = idle_minutes
        self._idle_seconds = idle_minutes * 60
        self._on_ended = on_ended
        self._emptied: asyncio.Event | None = None
        """Made by `wait_empty`, set when the last game session ends."""

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[GameSession]:
        return iter(self.all())

    @property
    def count(self) -> int:
        return sum(len(group) for group in self._by_name.values())

    def all(self) -> list[GameSession]:
        return [session for group in self._by_name.values() for session in group]

    def of(self, name: str) -> list[GameSession]:
        return list(self._by_name.get(name, ()))

    def names(self) -> frozenset[str]:
        """The names online (for guest names: never give out one in use)."""
        return frozenset(self._by_name)

    async def wait_empty(self, seconds: float) -> None:
        """Until no game session runs, or `seconds` have passed."""
        if not self._by_name or seconds <= 0:
            return
        self._emptied = asyncio.Event()
        try:
            async with asyncio.timeout(seconds):
                await self._emptied.wait()
        except TimeoutError:
            pass
        finally:
            self._emptied = None

    def end_all(self, farewell: str) -> None:
        for session in self.all():
            session.end(farewell)

    def started(self, session: GameSession) -> None:
        self._by_name.setdefault(session.player.name, []).append(session)
        profile = session.terminal.profile
        log.info("session start %s (%s, %dx%d)", session.player.name, shown(profile.term),
                 profile.width, profile.height)

    def ended(self, session: GameSession) -> None:
        if self._on_ended is not None:
            self._on_ended(session)
        group = self._by_name.get(session.player.name)
        if group is not None and session in group:
            group.remove(session)
            if not group:
                del self._by_name[session.player.name]
        if not self._by_name and self._emptied is not None:
            self._emptied.set()
        terminal = session.terminal
        log.info("session end %s (%d frames, %d KB out, %d frames skipped)",
                 session.player.name, terminal.frames, terminal.bytes_out // 1024,
                 terminal.skipped_frames)

    # --- the idle rule ------------------------------------------------------------------

    @property
    def idle_message(self) -> str:
        return idle_words(self._idle_minutes)

    async def watch_idle(self) -> None:
        """End game sessions with nothing done for `idle_minutes`: no key the app acted
        on (`driver.acts_on`; bytes it ignores do not count). Runs until cancelled."""
        while True:
            await asyncio.sleep(min(IDLE_CHECK_SECONDS, self._idle_seconds / 4))
            # In a function of its own: a loop variable left in this coroutine's frame
            # kept the last session (and its whole App) alive (measured).
            self.end_idle(time.monotonic())

    def end_idle(self, now: float) -> None:
        for session in self.all():
            if now - session.terminal.last_active > self._idle_seconds:
                log.info("idle timeout %s", session.player.name)
                session.end(self.idle_message)
