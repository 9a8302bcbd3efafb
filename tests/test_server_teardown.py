"""Dismantling an ended app (server/teardown.py) without holding the server's loop."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from server import teardown


class ManyWidgets(App[None]):
    """An app holding as many nodes as a guest who cycled tables left (their screens)."""

    def compose(self) -> ComposeResult:
        for group in range(20):
            with Vertical():
                for line in range(20):
                    yield Static(f"{group}.{line}")


async def test_dismantling_a_big_ended_app_lets_the_loop_turn_and_empties_every_node(
) -> None:
    # A guest who had cycled tables kept every screen they left in reference cycles:
    # dismantling their app at the end took ~150 ms in one loop pass, and four ending at
    # once held every player for 250 ms (bench/attacks.py 4).
    teardown.install()
    try:
        app = ManyWidgets()
        async with app.run_test():
            pass
        nodes = list(app.__dict__["_moon_nodes"])
        assert len(nodes) > 400
        turns = 0

        async def turning() -> None:
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        other = asyncio.create_task(turning())
        await asyncio.sleep(0)
        before = turns
        await teardown.dismantle(app, slice_seconds=0.0)
        other.cancel()
        assert turns > before + 2  # the loop went on with other work meanwhile
        assert all(not node.__dict__ for node in [app, *nodes])
    finally:
        teardown.uninstall()
