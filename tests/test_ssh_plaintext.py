"""Over real SSH: what people typed reaches other players as written, and crashes no one.

An operator's broadcast holding `[/]` raised `MarkupError` in every connected session,
a message of the day with `[/]` in each session entering the lobby, an invite code
`[/]` in its own session, a kick's reason in the kicked session; `[bring snacks]`
vanished and `[b]x[/b]` came out bold.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest

from moon_tui.lobby.messages import Kick
from moon_tui.ui.door_words import CRASHED
from server.service import MoonServer
from tools.probe import (
    ScreenClient,
    cursor_on,
    enter_lobby,
    eventually,
    new_key,
    operator_club,
    operator_command_line,
)

pytestmark = pytest.mark.ssh

MOTD = "[/] [bring snacks]"
CHAT_PLACEHOLDER = "c: chat with everyone"


@contextlib.asynccontextmanager
async def club(tmp_path: Path, olga_key: asyncssh.SSHKey, *,
               motd: str = "") -> AsyncIterator[MoonServer]:
    """A server where olga (with `olga_key`) is an operator."""
    async with operator_club(tmp_path, olga_key, motd=motd) as server:
        yield server


async def still_playing(server: MoonServer, *clients: ScreenClient) -> None:
    """Every session is alive, in its lobby; then they leave."""
    try:
        for client in clients:
            await client.wait_for("new table")
            assert not client.closed.is_set()
            assert CRASHED not in client.text()
        assert server.sessions.count == len(clients)
    finally:
        for client in clients:
            await client.close()
    await eventually(lambda: server.sessions.count == 0, "every session ended")


async def test_the_message_of_the_day_is_shown_as_written(tmp_path: Path) -> None:
    async with club(tmp_path, new_key(), motd=MOTD) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await ann.wait_for(MOTD)  # on the banner
        await enter_lobby(ann)
        await ann.wait_for(MOTD)  # and in the lobby
        await still_playing(server, ann)


async def test_a_broadcast_and_a_chat_line_reach_another_player_as_written(
    tmp_path: Path,
) -> None:
    olga_key = new_key()
    async with club(tmp_path, olga_key) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        olga = await ScreenClient.connect(server.port, "olga", key=olga_key)
        await enter_lobby(ann)
        await enter_lobby(olga)

        await operator_command_line(olga)
        await olga.press(*"say [/] tea at 8", "enter")
        await olga.wait_for("Sent: say [/] tea at 8")
        await ann.wait_for("[/] tea at 8")
        await ann.wait_for("From an operator (olga)")
        await olga.press("escape")

        await ann.press("c")
        await ann.wait_for(lambda _: cursor_on(ann, CHAT_PLACEHOLDER))
        await ann.press(*"[b]x[/b]", "enter")
        await olga.wait_for("ann: [b]x[/b]")
        await still_playing(server, ann, olga)


async def test_a_wrong_invite_code_is_quoted_as_typed(tmp_path: Path) -> None:
    async with club(tmp_path, new_key()) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(ann)
        await ann.press("i")
        await ann.wait_for("Join by invite code")
        await ann.press(*"[/]", "enter")
        await ann.wait_for("no table has the invite code '[/]'")
        await still_playing(server, ann)


async def test_a_kick_reason_is_shown_as_written_and_sends_no_escape_sequence(
    tmp_path: Path,
) -> None:
    async with club(tmp_path, new_key()) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        ann.keep_raw = True
        await enter_lobby(ann)
        olga = await server.lobby.connect("olga", operator=True)
        olga.send(Kick("ann", "[/] bye \x1b]0;pwned\x07"))
        await ann.wait_for("removed by an operator (olga) for 10 minutes:")  # last screen

        await ann.press("enter")
        await ann.wait_closed()
        await olga.close()
        # The reason is on the last screen and the farewell line, its escape sequence
        # (which would retitle the player's terminal) on neither.
        assert CRASHED not in ann.text()
        assert bytes(ann.raw).rstrip().endswith(b"(olga) for 10 minutes: [/] bye ]0;pwned")

        assert b"\x1b]0;pwned" not in ann.raw
