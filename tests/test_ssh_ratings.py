"""The ratings over plain ssh: `leaderboard` and `stats`, with a real SSH client on
loopback, after games played at a rated table of the real server."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from moon_tui.bots import make_bot
from moon_tui.lobby import AddBot, CreateTable, GameFinished, JoinSeat, StartGame, TableUpdate
from moon_tui.rules import Rules
from server.ratings import rebuild
from server.service import MoonServer
from tests.support.games import finished_record
from tests.support.settings import FAST
from tools.client import Client, Policy
from tools.probe import eventually, new_key, open_connection, running_server

pytestmark = pytest.mark.ssh

KEYS: dict[str, Any] = {}


def playing_like(level: str, seed: int) -> Policy:
    bot = make_bot(level, time_budget=0.05)
    rng = random.Random(seed)
    return lambda view: bot.choose(view, rng)


async def rated_game(server: MoonServer, tg: asyncio.TaskGroup, *, rated: bool = True
                     ) -> None:
    """ann and bob play a short game with a normal computer, to its end, in the server."""
    ann = Client(await server.lobby.connect("ann"), playing_like("normal", 1))
    bob = Client(await server.lobby.connect("bob"), playing_like("easy", 2))
    for client in (ann, bob):
        tg.create_task(client.run())
    ann.handle.send(CreateTable("club night", Rules.make(target=5), rated=rated))
    made = await ann.wait_type(TableUpdate)
    assert made.table.rated is rated
    table_id = made.table.table_id
    bob.handle.send(JoinSeat(table_id, 1))
    await ann.wait_type(TableUpdate, lambda u: u.table.seats[1].name == "bob")
    ann.handle.send(AddBot(table_id, 2, "normal"))
    await ann.wait_type(TableUpdate, lambda u: u.table.seats[2].bot_level == "normal")
    ann.handle.send(StartGame(table_id))
    await ann.wait_type(GameFinished, timeout=120)
    await ann.handle.close()
    await bob.handle.close()


async def ask(port: int, line: str, name: str = "ann") -> Any:
    """`ssh NAME@host LINE` with NAME's key (the first login claims the name)."""
    conn = await open_connection(port, name, key=KEYS.setdefault(name, new_key()))
    try:
        return await conn.run(line, encoding="utf-8", timeout=20)
    finally:
        conn.close()


def ratings_of(server: MoonServer) -> list[Any]:
    return server.db.connection().execute(
        "SELECT * FROM ratings ORDER BY pool, name").fetchall()


async def test_a_rated_game_moves_the_ratings_and_the_commands_show_them(
    tmp_path: Path
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        async with asyncio.TaskGroup() as tg:
            await rated_game(server, tg)
        await eventually(lambda: len(ratings_of(server)) == 3, "the three ratings kept")
        board = await ask(server.port, "leaderboard --json")
        assert board.exit_status == 0, board.stderr
        page = json.loads(board.stdout)
        # Nobody is placed after one game, but your own row is always there.
        assert page["players"] == 3 and page["rows"] == [] and page["listed"] == 0
        me = page["me"]
        assert me["name"] == "ann" and me["place"] is None and me["games"] == 1
        card = await ask(server.port, "stats ann --json")
        assert card.exit_status == 0, card.stderr
        ann = json.loads(card.stdout)
        assert ann["name"] == "ann" and not ann["bot"]
        (pool,) = ann["pools"]
        assert pool["players"] == 3 and pool["games"] == 1 and pool["history"] == [
            pool["rating"]]
        (game,) = ann["last_games"]
        assert game["seats"] == ["ann", "bob", "normal bot"]
        bot = json.loads((await ask(server.port, "stats 'normal bot' --json")).stdout)
        assert bot["bot"] and bot["pools"][0]["games"] == 1
        assert (await ask(server.port, "stats normal bot")).exit_status == 0
        live = ratings_of(server)
        conn = server.db.connection()
        await server.db.run(lambda: rebuild(conn))
        assert ratings_of(server) == live


async def test_an_unrated_table_moves_nothing(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        async with asyncio.TaskGroup() as tg:
            await rated_game(server, tg, rated=False)
        await eventually(lambda: server.db.connection().execute(
            "SELECT COUNT(*) FROM records").fetchone()[0] == 1, "the record kept")
        assert ratings_of(server) == []
        missing = await ask(server.port, "stats ann")
        assert (missing.exit_status, missing.stdout) == (2, "")
        assert missing.stderr == "no rated game for 'ann'\n"


async def test_the_board_over_ssh_pages_and_shows_your_own_row(tmp_path: Path) -> None:
    key = new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        club = [f"p{i:02}" for i in range(30)]
        rng = random.Random(5)
        for n in range(120):
            names = rng.sample(club, 2) + ["expert bot"]
            await server.db.save_record(finished_record(names, n), finished=True)
        conn = await open_connection(server.port, "p00", key=key)
        first = json.loads((await conn.run("leaderboard --json", encoding="utf-8")).stdout)
        second = json.loads((await conn.run("leaderboard --page 2 --json",
                                            encoding="utf-8")).stdout)
        rows = first["rows"] + second["rows"]
        assert [row["place"] for row in rows] == list(range(1, first["listed"] + 1))
        ratings = [row["rating"] for row in rows]
        assert ratings == sorted(ratings, reverse=True) and len(first["rows"]) == 20
        assert first["me"]["name"] == "p00" and first["me"]["games"] >= 1
        text = await conn.run("leaderboard", encoding="utf-8")
        assert text.exit_status == 0 and "expert bot (computer)" in str(text.stdout)
        assert "p00" in str(text.stdout)
        four = json.loads((await conn.run("leaderboard --players 4 --json",
                                          encoding="utf-8")).stdout)
        assert four == {"players": 4, "listed": 0, "offset": 0, "rows": [], "me": None}
        for line, error in (
            ("leaderboard --players 5", "--players takes 3 or 4, not '5'"),
            ("leaderboard --page 0", "--page takes a number from 1 to 10000, not '0'"),
            ("leaderboard --players", "--players needs a value"),
            ("leaderboard --frob", "unknown option '--frob'"),
            ("leaderboard ann", "leaderboard takes no name: 'ann'"),
            ("stats", "stats needs a player's name: stats NAME"),
            ("stats nobody --json", "no rated game for 'nobody'"),
            ("stats '\x1b[2J'", "no rated game for '\\x1b[2J'"),
        ):
            result = await conn.run(line, encoding="utf-8", timeout=10)
            assert (result.exit_status, result.stderr, result.stdout) == (2, error + "\n", ""), \
                line
        conn.close()
