"""Shared helpers for the interface tests: a real in-process lobby, waiting on the app."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.pilot import Pilot

from moon_tui.app import MoonApp
from moon_tui.lobby import LobbyConfig
from moon_tui.rules import SeatView

FAST = LobbyConfig(bot_delay=0.0, hand_pause=0.0, bot_time_budget=0.05)


def screen_text(app: MoonApp) -> str:
    """What the terminal shows now, as plain text lines."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


def current_view(app: MoonApp) -> SeatView | None:
    table_id = app.current_table
    if table_id is None:
        return None
    update = app.model.tables.get(table_id)
    return None if update is None else update.view


async def wait_for(pilot: Pilot[None], check: Callable[[], bool], what: str,
                   limit: float = 20.0) -> None:
    """Let the app and the lobby run until `check()` holds (fails after `limit` s)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting for {what}\n{screen_text(pilot.app)}")
        await pilot.pause(0.01)
    await pilot.pause()
