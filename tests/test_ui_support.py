"""Shared helpers for the interface tests: a real in-process lobby, waiting on the app."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.pilot import Pilot

from moon_tui.app import MoonApp
from moon_tui.rules import SeatView
from tests.support.settings import FAST as FAST  # the UI tests take it from here


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
        await asyncio.sleep(0.005)  # pilot.pause() would force a full redraw each time
    await pilot.pause()


def my_turn(app: MoonApp) -> bool:
    view = current_view(app)
    return view is not None and view.my_turn


def key_for_turn(view: SeatView, *, bid: int | None = 7) -> str:
    """The key a player would press now: a bid (`bid`, else pass), the first tile to
    discard, the trump that gives the most trumps, the first playable tile."""
    from moon_tui.rules import Action, Phase
    from moon_tui.ui.words import trump_counts

    if view.phase is Phase.BID:
        if bid is not None and Action.make_bid(bid) in view.legal:
            return "m" if bid == 21 else str(bid)
        if Action.make_pass() in view.legal:
            return "p"
        lowest = min(a.bid for a in view.legal if a.bid is not None)
        return "m" if lowest == 21 else str(lowest)
    if view.phase is Phase.DISCARD:
        return "1"
    if view.phase is Phase.TRUMP:
        trump, _ = max(trump_counts(view), key=lambda tc: tc[1])
        return {7: "d", 8: "n"}.get(trump, str(trump))
    playable = [a.tile for a in view.legal]
    return str(next(i for i, t in enumerate(view.hand) if t in playable) + 1)


async def take_turn(pilot: Pilot[None], app: MoonApp, *, bid: int | None = 7) -> str:
    """Press the key for one decision and wait until the lobby answered with a new view."""
    view = current_view(app)
    assert view is not None and view.my_turn
    key = key_for_turn(view, bid=bid)
    await pilot.press(key)
    await wait_for(pilot, lambda: current_view(app) is not view, f"an answer to {key}")
    return key
