"""A seat is never lost for good, over real SSH: bob, away past the grace, comes back,
is told his game goes on, takes his seat back with Enter and reads what the computer
chose for him."""

from __future__ import annotations

from pathlib import Path

import pytest

from moon_tui.lobby import LobbyConfig
from tools.probe import (
    ScreenClient,
    changed,
    decide_once,
    enter_lobby,
    eventually,
    new_key,
    running_server,
)

pytestmark = pytest.mark.ssh

QUICK_GRACE = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                          bot_time_budget=0.05, grace_seconds=1.0,
                          reconnect_wait_seconds=0.5)


async def test_bob_away_past_the_grace_takes_his_seat_back_and_hears_what_was_chosen(
    tmp_path: Path,
) -> None:
    ann_key, bob_key = new_key(), new_key()
    async with running_server(tmp_path, lobby_config=QUICK_GRACE) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=ann_key)
        bob = await ScreenClient.connect(server.port, "bob", key=bob_key)
        await enter_lobby(ann)
        await enter_lobby(bob)
        await ann.press("n")
        await ann.wait_for("Create (ctrl+s)")
        await ann.press("\x13")
        await ann.wait_for("waiting room")
        await bob.wait_for("ann's table")
        await bob.press("j")
        await bob.wait_for("waiting room")
        before = ann.text()
        await ann.press("b")
        await changed(ann, before)
        await ann.wait_for("Every seat is taken")
        await ann.press("s")
        await bob.wait_for("hand 1")
        bob.conn.abort()  # no goodbye: the connection just goes
        await bob.wait_closed()
        await decide_once(ann)  # bob's seat speaks by then: a computer passes for him

        def held() -> bool:
            return any(s.held_for == "bob" for t in server.lobby.tables() for s in t.seats)

        await eventually(held, "bob's seat held for him past the grace")
        bob = await ScreenClient.connect(server.port, "bob", key=bob_key, width=100, height=30)
        lobby = await bob.wait_for("goes on")
        assert "Your game at ann's table goes on: Enter takes your seat back" in lobby
        await bob.press("enter")
        back = await bob.wait_for("While you were away")
        assert "the computer passed" in back
        assert "hand" in back and "bob (you)" in back
        await ann.close()
        await bob.close()
