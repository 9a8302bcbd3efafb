"""Apps start a few at a time: side by side within `starts_at_once`, the others waiting
their turn until one of them has drawn its first screen (server/door.py).

After a restart every seated player comes back at once, straight to their app (no
banner). The start slots were given back as soon as an app set its terminal's modes,
before it had composed anything, so all of them started at once and shared the CPU to
the end: 150 returning players waited 13 s at the median for their table.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from moon_tui.ui.base import FirstScreen
from server.config import Limits
from server.identity import Player
from tests.support.settings import FAST
from tools.probe import ScreenClient, eventually, new_key, running_server

pytestmark = pytest.mark.ssh


class HeldApp(App[None]):
    """Says it has mounted, then draws nothing until the test lets it go on."""

    def __init__(self, name: str, mounted: dict[str, asyncio.Event],
                 go_on: asyncio.Event) -> None:
        super().__init__()
        self.who = name
        self._mounted = mounted
        self._go_on = go_on

    def compose(self) -> ComposeResult:
        yield Static(f"{self.who} is in")

    async def on_mount(self) -> None:
        self._mounted.setdefault(self.who, asyncio.Event()).set()
        await self._go_on.wait()


async def test_apps_start_side_by_side_up_to_the_limit_and_the_rest_wait(
    tmp_path: Path,
) -> None:
    mounted: dict[str, asyncio.Event] = {}
    go_on = asyncio.Event()

    def factory(player: Player) -> App[Any]:
        return HeldApp(player.name, mounted, go_on)

    async with running_server(tmp_path, lobby_config=FAST, app_factory=factory,
                              limits=Limits(starts_at_once=2)) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        bob = await ScreenClient.connect(server.port, "bob", key=new_key())
        # Both start while neither has drawn anything: their starts overlap.
        await eventually(lambda: {"ann", "bob"} <= set(mounted), "ann's and bob's apps start")
        # The two slots are taken until a first screen: carol waits her turn, and is told.
        carol = await ScreenClient.connect(server.port, "carol", key=new_key())
        await carol.wait_for("Starting your game, one moment")
        assert "carol" not in mounted
        go_on.set()
        for client, name in ((ann, "ann"), (bob, "bob"), (carol, "carol")):
            await client.wait_for(f"{name} is in")
        for client in (ann, bob, carol):
            await client.close()


class BlankFirstApp(App[None]):
    """A returning player's app as `MoonApp` starts it: the blank first screen drawn, the
    table's screen over it only once the test lets the table come."""

    def __init__(self, name: str, mounted: dict[str, asyncio.Event],
                 table_comes: asyncio.Event) -> None:
        super().__init__()
        self.who = name
        self._mounted = mounted
        self._table_comes = table_comes

    def get_default_screen(self) -> Screen[Any]:
        return FirstScreen()

    def on_mount(self) -> None:
        self._mounted.setdefault(self.who, asyncio.Event()).set()
        self.run_worker(self._table())

    async def _table(self) -> None:
        await self._table_comes.wait()
        await self.push_screen(Table(self.who))


class Table(Screen[None]):
    def __init__(self, who: str) -> None:
        super().__init__()
        self.who = who

    def compose(self) -> ComposeResult:
        yield Static(f"{self.who} is at the table")


async def test_a_blank_first_screen_keeps_the_start_slot_until_the_table_is_drawn(
    tmp_path: Path,
) -> None:
    mounted: dict[str, asyncio.Event] = {}
    table_comes = asyncio.Event()

    def factory(player: Player) -> App[Any]:
        return BlankFirstApp(player.name, mounted, table_comes)

    async with running_server(tmp_path, lobby_config=FAST, app_factory=factory,
                              limits=Limits(starts_at_once=1)) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await eventually(lambda: "ann" in mounted and ann.updates > 0, "ann's blank frame")
        bob = await ScreenClient.connect(server.port, "bob", key=new_key())
        await bob.wait_for("Starting your game, one moment")
        assert "bob" not in mounted  # ann's start is not done before her table is drawn
        table_comes.set()
        for client, name in ((ann, "ann"), (bob, "bob")):
            await client.wait_for(f"{name} is at the table")
        for client in (ann, bob):
            await client.close()
