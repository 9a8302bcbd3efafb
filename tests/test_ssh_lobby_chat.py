"""The lobby chat's recent lines outlive a restart, as a table chat's do (issue 30, item
11): kept in the tables' journal, bounded to the lines the lobby keeps in memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ssh_game import FAST

from moon_tui.lobby.chat import CHAT_KEPT
from tools.probe import ScreenClient, cursor_on, enter_lobby, new_key, running_server

pytestmark = pytest.mark.ssh


async def test_lobby_chat_lines_come_back_after_a_restart(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await enter_lobby(ann)
        await ann.press("c")
        await ann.wait_for(lambda _: cursor_on(ann, "c: chat with everyone"))
        ann.send("see you all at eight")
        await ann.press("enter")
        await ann.wait_for("see you all at eight")
        await ann.close()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        bob = await ScreenClient.connect(server.port, "bob", key=new_key())
        lobby = await enter_lobby(bob)
        if "see you all at eight" not in lobby:
            lobby = await bob.wait_for("see you all at eight")
        assert "ann" in lobby
        await bob.close()
        kept = await server.lobby.journal.lobby_chat()
        assert [line["text"] for line in kept] == ["see you all at eight"]
        assert len(kept) <= CHAT_KEPT
