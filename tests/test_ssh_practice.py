"""Play on from a replay, and hints at a practice table, over a real SSH connection
(issue 34, items 4 and 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ssh_games import unfinished_record

from moon_tui.rules import Phase
from moon_tui.rules.record import as_record
from moon_tui.rules.timeline import Timeline
from moon_tui.ui.analysis_text import choice_words
from tests.support.settings import FAST
from tools.probe import ScreenClient, eventually, new_key, running_server

pytestmark = pytest.mark.ssh


async def test_play_on_from_an_unfinished_game_then_a_hint(tmp_path: Path) -> None:
    key = new_key()
    record = unfinished_record(("ann", "bob", "cy"), 5, decisions=16)
    line = Timeline(as_record(record), frozenset({0}))
    # The last position where ann decides next, in the play if it got there.
    mine = [i for i in range(line.last + 1) if (s := line.next_step(i)) is not None
            and s.seat == 0]
    index = max(mine, key=lambda i: (line.view(i, 0).phase is Phase.PLAY, i))
    view = line.view(index, 0)
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await server.db.save_record(record, finished=False)
        code = server.db.reader().execute("SELECT code FROM records").fetchone()[0]
        client = await ScreenClient.connect(server.port, "ann", key=key, width=100,
                                            height=30, command=f"replay {code}")
        await client.wait_for("ann's view (what this seat knew)")
        await client.press(*["right"] * index)
        await client.wait_for(lambda s: f"Move {index} of" in s and "p: play on as ann" in s)
        await client.press("p")
        table = await client.wait_for(lambda s: f"practice from {code}" in s
                                      and "(computer, expert)" in s and "Your " in s)
        for tile in view.hand:  # her tiles at that moment, in her hand at the table
            assert f"{tile.high}-{tile.low}" in table, (tile, table)
        await client.press("h")
        hinted = await client.wait_for("the expert's choice", timeout=60)
        assert any(choice_words(a) in hinted for a in view.legal)
        await client.press("h")  # closes it (a lone Esc then q would read as Alt+q)
        await client.wait_for(lambda s: "the expert's choice" not in s)
        await client.press("q", "q")
        await client.wait_for("ann's view (what this seat knew)")  # back in the viewer
        await eventually(lambda: server.lobby.tables() == (),
                         "her practice table closed when she left")
        await client.close()
