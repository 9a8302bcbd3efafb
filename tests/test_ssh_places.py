"""Nobody fills the server for everyone: places per address, per name, kept for members
and operators; the idle rule counts only what the app acts on (issue 36, item 2).

Before, 300 guests from one address (or one name with 300 connections) reached the
welcome screen in 11 s, and everyone else, the operator included, read "The server is
full"; and any byte kept a session from the idle rule.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from moon_tui.lobby import LobbyConfig
from server.config import Limits
from server.identity import openssh_line
from tools.probe import (
    ScreenClient,
    enter_lobby,
    eventually,
    new_key,
    running_server,
)

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                   operators=frozenset({"olga"}))
HOME, AWAY, THIRD = "127.0.0.1", "127.0.0.2", "127.0.0.3"


async def closed_within(client: ScreenClient, seconds: float) -> None:
    """Wait until the client is closed, or `seconds` (the pace of what it sends)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(client.closed.wait(), seconds)


def said(client: ScreenClient) -> str:
    """Everything on the screen as one line of words (a long refusal wraps)."""
    client.text()
    return " ".join("".join(client.screen.display).split())


async def welcomed(port: int, username: str, address: str = HOME,
                   **options: object) -> ScreenClient:
    client = await ScreenClient.connect(port, username, local_addr=(address, 0), **options)
    await client.wait_for("Welcome")
    return client


async def turned_away(port: int, username: str, address: str = HOME,
                      **options: object) -> str:
    client = await ScreenClient.connect(port, username, local_addr=(address, 0), **options)
    await client.wait_closed()
    words = said(client)
    await client.close()
    assert "Welcome" not in words
    return words


async def test_one_address_one_name_or_the_guests_cannot_fill_the_server(
    tmp_path: Path,
) -> None:
    limits = Limits(max_sessions=7, sessions_per_address_max=4,
                    guest_sessions_per_address_max=2, sessions_per_name_max=2,
                    places_kept_for_members=3)
    olga_key, ann_key = new_key(), new_key()
    operators = {"olga": (openssh_line(olga_key),)}
    async with running_server(tmp_path, lobby_config=FAST, limits=limits,
                              operators=operators) as server:
        port = server.port
        clients = [await welcomed(port, "visitor") for _ in range(2)]
        assert "2 guests playing" in await turned_away(port, "visitor")
        # A member at the same address still gets in; one name has two sessions at most.
        clients += [await welcomed(port, "ann", key=ann_key) for _ in range(2)]
        assert "already has 2 sessions open" in await turned_away(port, "ann", key=ann_key)
        assert "already has 4 sessions open" in await turned_away(port, "bob", key=new_key())
        # Guests from elsewhere, up to the places kept for members (7 - 3 = 4 guests).
        clients += [await welcomed(port, "visitor", AWAY) for _ in range(2)]
        assert "full for guests" in await turned_away(port, "visitor", THIRD)
        clients.append(await welcomed(port, "cat", THIRD, key=new_key()))
        assert "server is full (7 players)" in await turned_away(port, "dan", THIRD,
                                                               key=new_key())
        # The operator gets in, from a full address to a full server.
        olga = await welcomed(port, "olga", key=olga_key)
        await enter_lobby(olga)
        await olga.close()
        for client in clients:
            await client.close()
        await eventually(lambda: server.gate.sessions == 0, "every place given back")
        assert not (server.gate.by_address or server.gate.by_name
                    or server.gate.guests_by_address or server.gate.guests)
        back = await welcomed(port, "visitor")  # the places came back
        await back.close()


async def test_input_the_app_ignores_does_not_hold_a_session(tmp_path: Path) -> None:
    # Garbage bytes, mouse motion, a click on nothing and a key nothing is bound to,
    # sent again and again: the session ends as idle all the same.
    limits = Limits(idle_minutes=0.05)  # 3 s
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        client = await ScreenClient.connect(server.port, "visitor")
        await enter_lobby(client)
        noise = ["\x00\x01\x02", "\x1b[<35;10;5M", "\x1b[<0;10;5m", "\x1b[<64;10;5M",
                 "%", "\x1b[24;5~"]
        async with asyncio.timeout(30):
            index = 0
            while not client.closed.is_set():
                client.send(noise[index % len(noise)])
                index += 1
                await closed_within(client, 0.2)
        assert "without a key press" in said(client)
        await client.close()


async def test_keys_the_app_acts_on_keep_a_session(tmp_path: Path) -> None:
    limits = Limits(idle_minutes=0.05)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        client = await ScreenClient.connect(server.port, "visitor")
        await enter_lobby(client)
        (session,) = server.sessions.all()
        before = session.terminal.last_active
        # The help, opened and closed: keys the app acts on (the idle rule looks at most
        # every 0.3 s here, so the first may come too soon after the session started).
        while session.terminal.last_active == before:
            shown = "The rules in short" not in client.text()
            await client.press("?")
            await client.wait_for(lambda s, want=shown: ("The rules in short" in s) == want)
        await client.close()


async def test_bytes_at_the_welcome_screen_do_not_hold_it(tmp_path: Path) -> None:
    limits = Limits(idle_minutes=0.05)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        client = await ScreenClient.connect(server.port, "visitor")
        await client.wait_for("go to the lobby")
        async with asyncio.timeout(30):
            while not client.closed.is_set():
                client.send("x")
                await closed_within(client, 0.2)
        assert "without a key press" in said(client)
        await client.close()
