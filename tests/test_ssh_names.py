"""Names: how many may be claimed, which look like an operator's, and what a ban says to
whom (issue 36, items 6, 7 and 11)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import asyncssh
import pytest

from moon_tui.lobby import Ban, LobbyConfig
from server.config import Limits
from server.identity import openssh_line, skeleton
from tools.probe import (
    ScreenClient,
    cursor_on,
    enter_lobby,
    new_key,
    refused,
    running_server,
)

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                   operators=frozenset({"olga"}))
HOME, AWAY = "127.0.0.1", "127.0.0.2"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def claims(port: int, name: str, key: asyncssh.SSHKey, address: str = HOME) -> None:
    client = await ScreenClient.connect(port, name, key=key, local_addr=(address, 0))
    await client.wait_for(f"Welcome, {name}")
    await client.close()


async def test_new_names_are_bounded_per_address_and_on_the_server_per_hour(
    tmp_path: Path,
) -> None:
    # 3,000 names were claimed in 103 s from one address with fresh keys.
    limits = Limits(new_names_per_address_per_hour=2, new_names_per_hour=3)
    ann_key = new_key()
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        clock = Clock()
        server.gate.clock = clock
        port = server.port
        await claims(port, "ann", ann_key)
        await claims(port, "bob", new_key())
        assert "Too many new names from your address" in await refused(port, "cat", new_key())
        await claims(port, "dan", new_key(), AWAY)
        assert "no more new names this hour" in await refused(
            port, "eve", new_key(), local_addr=(AWAY, 0))
        assert await server.db.account("cat") is None
        await claims(port, "ann", ann_key)  # a name of one's own always gets in
        clock.now += 3600
        await claims(port, "cat", new_key())


def test_a_skeleton_makes_look_alike_names_one() -> None:
    assert {skeleton(n) for n in ("olga", "o1ga", "olga_", "oiga", "ol-ga", "0LGA")} == {"olga"}
    assert skeleton("rnoon") == skeleton("moon") and skeleton("olive") != skeleton("olga")


async def test_a_name_that_looks_like_an_operators_cannot_be_claimed(tmp_path: Path) -> None:
    operators = {"olga": (openssh_line(new_key()),)}
    async with running_server(tmp_path, lobby_config=FAST, operators=operators) as server:
        for name in ("o1ga", "olga_", "oiga", "ol-ga"):
            message = await refused(server.port, name, new_key())
            assert "looks too much like the name of an operator" in message, name
            assert await server.db.account(name) is None
        await claims(server.port, "olive", new_key())


def plain(text: str) -> bool:
    return not any(unicodedata.category(c) in ("Cc", "Cf") for c in " ".join(text.split()))


async def test_a_ban_reason_is_plain_text_and_only_the_banned_player_reads_it(
    tmp_path: Path,
) -> None:
    # Reasons were kept and shown raw (a clipboard write, a bidi override, a screen clear)
    # in the login banner of every guest at the banned player's addresses.
    reason = "cheat\x1b]52;c;cm0gLXJmIH4=\x07ing \u202eevil\x1b[2J"
    ann_key = new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=ann_key,
                                         local_addr=(AWAY, 0))
        await enter_lobby(ann)
        operator = await server.lobby.connect("olga", operator=True)
        operator.send(Ban("ann", reason))
        await ann.wait_closed(timeout=15)
        await operator.close()
        await ann.close()
        stored = await server.db.ban_reason("account", "ann")
        assert stored is not None and plain(stored) and "cheat" in stored
        # ann, known by her key, reads why, as plain text.
        told = await refused(server.port, "ann", ann_key, local_addr=(AWAY, 0))
        assert "cheat" in told and plain(told)
        # Anyone else only reads that there is a ban: a guest at her address, a stranger
        # typing her name.
        guest = await refused(server.port, "visitor", local_addr=(AWAY, 0))
        assert "ban" in guest and "cheat" not in guest
        stranger = await refused(server.port, "ann", new_key())
        assert "banned" in stranger and "cheat" not in stranger


async def test_an_operator_is_marked_in_the_online_list_in_chat_and_at_tables(
    tmp_path: Path,
) -> None:
    olga_key = new_key()
    operators = {"olga": (openssh_line(olga_key),)}
    async with running_server(tmp_path, lobby_config=FAST, operators=operators) as server:
        olga = await ScreenClient.connect(server.port, "olga", key=olga_key)
        await enter_lobby(olga)
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(ann)
        await ann.wait_for("• olga (op)")
        await olga.press("c")
        await olga.wait_for(lambda s: cursor_on(olga, "c: chat with everyone"))
        await olga.press(*"hello", "enter")
        await ann.wait_for("olga (op): hello")
        assert "ann (op)" not in ann.text()
        # At a table too: in the lobby's list of tables, the waiting room and the seats.
        await olga.press("escape", pause=0.3)  # a lone Esc, not the start of Alt+n
        await olga.press("n")
        await olga.wait_for("Create (ctrl+s)")
        await olga.press("\x13")
        await olga.wait_for("waiting room")
        await ann.wait_for(lambda s: "olga (op)" in s.split("Online")[0])  # the table list
        await ann.press("j")
        await ann.wait_for("Seat 1  olga (op)")
        await olga.press("b")
        await olga.wait_for("Every seat is taken")
        await olga.press("s")
        await ann.wait_for("hand 1")
        await ann.wait_for(lambda s: "olga (op)" in s.split("▏")[0])  # the seats panel
        await olga.close()
        await ann.close()
