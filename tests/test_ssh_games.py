"""`games` and `record` over plain ssh (server/game_commands.py): the club's saved games
listed newest first, filtered and paged; a finished game's record as `moon-rules replay`
takes it; an unfinished one only to its players, each their own seat (issue 34)."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from moon_tui.rules import GameState, Rules, record_of
from moon_tui.rules.cli import random_game, replay_command
from moon_tui.services import GameQuery
from server.game_index import list_games
from server.store import Database
from tests.support.settings import FAST
from tools.probe import (
    ScreenClient,
    enter_lobby,
    lines,
    new_key,
    open_connection,
    running_server,
)

pytestmark = pytest.mark.ssh


def finished_record(seats: tuple[str, ...], seed: int) -> dict[str, Any]:
    rules = Rules.make(players=len(seats))
    state = random_game(rules, random.Random(seed))
    assert state.is_terminal()
    return record_of(state, seats)


def unfinished_record(seats: tuple[str, ...], seed: int, decisions: int = 12
                      ) -> dict[str, Any]:
    """A game stopped in its first hand after `decisions` decisions."""
    rng = random.Random(seed)
    state = GameState(Rules.make(players=len(seats)), 0)
    state.deal(rng)
    for _ in range(decisions):
        state.apply_action(rng.choice(state.legal_actions()))
    return record_of(state, seats)


async def run(conn: asyncssh.SSHClientConnection, line: str) -> asyncssh.SSHCompletedProcess:
    return await conn.run(line, encoding="utf-8", timeout=20)


async def codes(conn: asyncssh.SSHClientConnection, line: str) -> list[str]:
    result = await run(conn, line)
    assert result.exit_status == 0, result.stderr
    return [g["code"] for g in json.loads(str(result.stdout))["games"]]


async def test_games_lists_newest_first_filtered_and_paged(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        saved = [("ann", "bob", "expert bot"), ("bob", "cy", "dee"),
                 ("ann", "normal bot", "bob", "cy"), ("dee", "ann", "easy bot")]
        for i, seats in enumerate(saved):
            await server.db.save_record(finished_record(seats, i), finished=True)
        await server.db.save_record(unfinished_record(("cy", "dee", "normal bot"), 9),
                                    finished=False)
        conn = await open_connection(server.port, "ann", key=new_key())

        listed = await run(conn, "games --json")
        assert listed.exit_status == 0
        games = json.loads(str(listed.stdout))
        assert games["more"] is False
        assert [g["seats"] for g in games["games"]] == [
            ["cy", "dee", "normal bot"], *[list(s) for s in reversed(saved)]]
        newest, *_, first = games["games"]
        assert (newest["finished"], newest["winner"], newest["winners"]) == (False, None, [])
        assert first["finished"] and first["players"] == 3 and len(first["code"]) == 6
        assert first["winners"] == [first["seats"][first["winner"]]]
        assert first["rules"]["players"] == 3 and first["saved_at"].endswith("Z")

        every = [g["code"] for g in games["games"]]
        assert len(set(every)) == 5
        assert await codes(conn, "games --player ann --json") == [every[1], every[2], every[4]]
        assert await codes(conn, "games --player ann --players 4 --json") == [every[2]]
        assert await codes(conn, "games --players 3 --limit 2 --json") == every[:2] != every[:3]
        assert await codes(conn, f"games --before {every[1]} --limit 2 --json") == every[2:4]
        assert await codes(conn, "games --player nobody-here --json") == []

        text = str((await run(conn, "games --limit 3")).stdout)
        header, *rows, more = text.splitlines()
        assert header.split() == ["When", "Players", "Rules", "Result", "Code"]
        assert [row.split()[-1] for row in rows] == every[:3]
        assert "unfinished" in rows[0] and "won" in rows[1]
        assert more == f"(older games: games --before {every[2]})"
        conn.close()


@pytest.mark.parametrize(("line", "error"), [
    ("games --limit 0", "--limit takes a number from 1 to 200, not '0'"),
    ("games --limit ٣", "--limit takes a number from 1 to 200, not '٣'"),
    ("games --players 5", "--players takes a number from 3 to 4, not '5'"),
    ("games --player", "--player needs a value"),
    ("games --frob", "games: unknown argument '--frob'"),
    ("games --before ZZZZZZ", "--before: no game has the code 'ZZZZZZ'"),
    ("record", "record takes one game code, e.g. record K7Q2MD"),
    ("record NOPE22", "no game has the code 'NOPE22'"),
    ("record \x1b[2J", "no game has the code '\\x1b[2J'"),
])
async def test_a_wrong_argument_or_code_gets_one_line_and_status_2(
    tmp_path: Path, line: str, error: str
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        result = await run(conn, line)
        assert result.exit_status == 2 and result.stdout == ""
        assert str(result.stderr).startswith(error) and str(result.stderr).count("\n") == 1
        conn.close()


async def test_a_finished_games_record_is_what_moon_rules_replay_takes(
    tmp_path: Path
) -> None:
    record = finished_record(("ann", "bob", "expert bot"), 3)
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await server.db.save_record(record, finished=True)
        conn = await open_connection(server.port, "cy", key=new_key())
        (code,) = await codes(conn, "games --json")
        result = await run(conn, f"record {code.lower()}")  # any case
        conn.close()
    assert result.exit_status == 0
    assert json.loads(str(result.stdout)) == record
    path = tmp_path / "game.json"
    path.write_text(str(result.stdout))
    out, err = io.StringIO(), io.StringIO()
    assert replay_command(str(path), False, out, err) == 0, err.getvalue()
    assert "wins the game" in out.getvalue()


async def test_an_unfinished_game_is_shown_to_its_players_each_their_own_seat(
    tmp_path: Path
) -> None:
    record = unfinished_record(("ann", "bob", "normal bot"), 5, decisions=10)
    ann_key = new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await server.db.save_record(record, finished=False)
        ann = await open_connection(server.port, "ann", key=ann_key)
        (code,) = await codes(ann, "games --json")
        mine = await run(ann, f"record {code}")
        ann.close()
        cy = await open_connection(server.port, "cy", key=new_key())
        refused = await run(cy, f"record {code}")
        cy.close()
        guest = await open_connection(server.port, "ann-guest")  # no key: a guest
        as_guest = await run(guest, f"record {code}")
        guest.close()

    assert (refused.exit_status, refused.stderr) == (1, "")
    assert refused.stdout == f"Game {code} was not finished: only its players may open it.\n"
    assert as_guest.exit_status == 1 and "guest" in str(as_guest.stdout)

    assert mine.exit_status == 0
    seen = json.loads(str(mine.stdout))
    assert seen["format"] == "moon/1-seat" and seen["seat"] == 0
    (hand,) = seen["hands"]
    (dealt,) = record["hands"]
    assert hand["deal"] == [dealt["deal"][0], None, None]
    assert hand["bids"] == dealt["bids"] and hand.get("plays") == dealt.get("plays")
    assert "widow" not in hand or record["hands"][0]["bids"].count("pass") < 3
    for tile in (t for seat in (1, 2) for t in dealt["deal"][seat]):
        if tile not in dealt.get("plays", []):
            assert tile not in str(mine.stdout), tile  # nothing of the others' hands
    path = tmp_path / "seat.json"
    path.write_text(str(mine.stdout))
    out, err = io.StringIO(), io.StringIO()
    assert replay_command(str(path), False, out, err) == 2  # not a moon/1 record: says so
    assert "moon/1-seat" in err.getvalue()


async def test_records_of_an_older_database_get_codes_when_it_opens(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "moon.db"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE records (id INTEGER PRIMARY KEY AUTOINCREMENT, saved_at REAL "
                "NOT NULL, finished INTEGER NOT NULL, record TEXT NOT NULL, digest TEXT)")
    records = [finished_record(("ann", "bob", "cy"), 7), finished_record(("bob", "cy", "dee",
                                                                           "eve"), 8)]
    for i, record in enumerate(records):
        old.execute("INSERT INTO records (saved_at, finished, record) VALUES (?, 1, ?)",
                    (1000.0 + i, json.dumps(record)))
    old.commit()
    old.close()

    db = Database(path)
    await db.open()
    try:
        page = list_games(db.reader(), GameQuery())
        assert [e.seats for e in page.games] == [("bob", "cy", "dee", "eve"),
                                                  ("ann", "bob", "cy")]
        assert all(len(e.code) == 6 for e in page.games)
        assert [e.seats for e in list_games(db.reader(), GameQuery(player="ann")).games] \
            == [("ann", "bob", "cy")]
        plan = " ".join(str(row) for row in db.reader().execute(
            "EXPLAIN QUERY PLAN SELECT id FROM records r WHERE r.players = 3 AND "
            "r.code IS NOT NULL ORDER BY id DESC LIMIT 21"))
        assert "records_players" in plan and "TEMP B-TREE" not in plan
    finally:
        await db.close()


HOME, END = "\x1b[H", "\x1b[F"


async def test_the_games_screen_lists_filters_and_opens_the_replay_viewer(
    tmp_path: Path
) -> None:
    key = new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await server.db.save_record(finished_record(("ann", "bob", "cy"), 8), finished=True)
        await server.db.save_record(finished_record(("dee", "bob", "cy", "eve"), 7),
                                    finished=True)
        await server.db.save_record(unfinished_record(("bob", "cy", "dee"), 4),
                                    finished=False)
        client = await ScreenClient.connect(server.port, "ann", key=key, width=80, height=24)
        await enter_lobby(client)
        await client.press("g")
        listed = await client.wait_for("saved games · all games · page 1")
        rows = [line for line in lines(listed) if re.search(r" [A-Z2-9]{6}$", line.rstrip())]
        assert ["unfinished" in r for r in rows] == [True, False, False]
        seated = [re.sub(r"\*", "", r) for r in rows]  # * marks the winners
        assert "dee, bob, cy, eve" in seated[1] and "ann, bob, cy" in seated[2]
        await client.press("m")
        mine = await client.wait_for("my games · page 1")
        assert "ann" in mine and "eve" not in mine and "dee" not in mine
        await client.press("m", "4")
        four = await client.wait_for("all games · 4 players")
        assert "eve" in four and "ann" not in four
        await client.press("4")
        await client.wait_for("all games · page 1")
        await client.press(HOME, "enter")  # the newest, unfinished: not ann's
        await client.wait_for("only its players may open it")

        await client.press(END, "enter")  # the oldest: ann's finished game, all hands open
        viewer = await client.wait_for("All hands open")
        assert "Move 0 of" in viewer and "The tiles are dealt." in viewer
        assert all(name in viewer for name in ("ann ", "bob ", "cy "))
        await client.press("right")
        moved = await client.wait_for("Move 1 of")
        assert "next:" in moved
        await client.press(END)
        end = await client.wait_for(lambda s: "is over" in s and "Scores:" in s)
        assert "The game stopped here." not in end
        await client.press("v")
        ann_view = await client.wait_for("ann's view (what this seat knew)")
        assert "ann (you)" in ann_view
        await client.press("v")
        bob_view = await client.wait_for("bob's view")
        assert "(you)" not in bob_view  # ann watches bob's seat: bob is not "you"
        await client.press("escape")
        await client.wait_for("saved games")
        await client.close()


async def test_ssh_t_replay_opens_the_viewer_on_the_players_own_seat(tmp_path: Path) -> None:
    key = new_key()
    record = unfinished_record(("ann", "bob", "normal bot"), 5, decisions=10)
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await server.db.save_record(record, finished=False)
        conn = await open_connection(server.port, "ann", key=key)
        (code,) = await codes(conn, "games --json")
        conn.close()
        client = await ScreenClient.connect(server.port, "ann", key=key, command=f"replay {code}")
        viewer = await client.wait_for("ann's view (what this seat knew)")
        assert f"game {code}" in viewer and "v: another view" not in viewer
        assert " v view" not in viewer  # no other seat to look at
        await client.press(END)
        stopped = await client.wait_for("The game stopped here.")
        for tile in record["hands"][0]["deal"][0]:
            if tile not in record["hands"][0].get("plays", []):
                high, low = tile.split("-")
                assert f"{high}-{low}" in stopped  # her own tiles, drawn in her hand
        await client.close()

        # Without a terminal it says so; for someone not seated, or a code not there, the
        # same answers as `record`.
        bob = await open_connection(server.port, "bob", key=new_key())
        plain = await run(bob, f"replay {code}")
        assert plain.exit_status == 1 and "ssh -t" in str(plain.stdout)
        bob.close()
        for name, line, status in (("cy", f"replay {code}", 1), ("dee", "replay ABCDEF", 2)):
            other = await ScreenClient.connect(server.port, name, key=new_key(), command=line)
            await other.wait_closed()
            assert other.process is not None
            assert other.process.exit_status == status
            await other.close()
