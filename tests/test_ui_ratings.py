"""The leaderboard and player cards on screen, over a real database of rated games."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_ui_support import FAST, screen_text, wait_for
from textual.widgets import Sparkline

from moon_tui.app import MoonApp
from moon_tui.lobby import Lobby
from moon_tui.ui.card import AskPlayerScreen, PlayerCardScreen
from moon_tui.ui.leaderboard import LeaderboardScreen
from server.ratings import DatabaseRatings
from server.store import Database
from tests.support.games import fill_ratings, finished_record

CLUB = [f"p{i:02}" for i in range(30)]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(tmp_path / "moon.sqlite3")
    await database.open()
    rng = random.Random(3)
    for n in range(150):
        names = [*rng.sample(CLUB, 2), "expert bot"]
        await database.save_record(finished_record(names, n), finished=True)
    await database.save_record(finished_record(["ann", "p01", "p02"], 999), finished=True)
    yield database
    await database.close()


@pytest.fixture
async def big(tmp_path: Path) -> AsyncIterator[Database]:
    """A club of 300 with ratings but no records (`fill_ratings`), and ann's one game."""
    database = Database(tmp_path / "big.sqlite3")
    await database.open()
    conn = database.connection()
    await database.run(lambda: fill_ratings(conn, 300, 4000, first_id=1000))
    await database.save_record(finished_record(["ann", "p01", "p02"], 999), finished=True)
    yield database
    await database.close()


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_board_pages_on_and_keeps_your_own_row_in_view(
    big: Database, size: tuple[int, int]
) -> None:
    async with Lobby(FAST, seed=1) as lobby:
        app = MoonApp(lobby, "ann", ratings=DatabaseRatings(big))
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: "lobby" in screen_text(app), "the lobby")
            await pilot.press("L")
            await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen)
                           and "player0" in screen_text(app), "the board")
            text = screen_text(app)
            assert "You: not placed yet (1 of 5 rated games)" in text
            assert " 1 " in text.splitlines()[2]
            for row in (101, 201):  # past each page read (100 rows): the next is read
                for _ in range(30):
                    await pilot.press("pagedown")
                    await pilot.pause()
                    if f"\n {row} " in screen_text(app):
                        break
                assert f"\n {row} " in screen_text(app), screen_text(app)
            assert "You: not placed yet" in screen_text(app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, PlayerCardScreen)
                           and "Last rated games" in screen_text(app), "a card")
            card = app.screen
            assert isinstance(card, PlayerCardScreen) and card.player.startswith("player")
            assert card.query(Sparkline)  # the rating over time
            await pilot.press("escape")
            await pilot.press("t")
            await wait_for(pilot, lambda: "You: no rated game at 4 players yet."
                           in screen_text(app), "the board of four")


async def test_any_name_opens_its_card_from_the_lobby(db: Database) -> None:
    async with Lobby(FAST, seed=1) as lobby:
        app = MoonApp(lobby, "ann", ratings=DatabaseRatings(db))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "lobby" in screen_text(app), "the lobby")
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, AskPlayerScreen), "asked")
            await pilot.press("enter")  # your own, by default
            await wait_for(pilot, lambda: "with p01, p02" in screen_text(app), "ann's card")
            assert "3 players · rating" in screen_text(app)
            await pilot.press("escape", "p", *["backspace"] * 3, *"[/]", "enter")
            await wait_for(pilot, lambda: "[/] has played no rated game yet." in
                           screen_text(app), "nobody's card, the name shown as typed")


async def test_without_ratings_the_keys_are_not_offered() -> None:
    async with Lobby(FAST, seed=1) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "lobby" in screen_text(app), "the lobby")
            assert "ratings" not in screen_text(app).splitlines()[-1]
            await pilot.press("L")
            assert not isinstance(app.screen, LeaderboardScreen)


async def test_a_seat_of_the_waiting_room_opens_its_players_card(db: Database) -> None:
    from moon_tui.lobby import AddBot, CreateTable
    from moon_tui.ui.waiting import WaitingScreen

    async with Lobby(FAST, seed=1) as lobby:
        app = MoonApp(lobby, "ann", ratings=DatabaseRatings(db))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "lobby" in screen_text(app), "the lobby")
            app.send(CreateTable("ann's table"))
            await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "seated")
            assert "not rated" in screen_text(app)
            await pilot.press("p")  # the cursor is on ann's own seat
            await wait_for(pilot, lambda: "with p01, p02" in screen_text(app), "ann's card")
            await pilot.press("escape")
            table_id = app.current_table
            assert table_id is not None
            app.send(AddBot(table_id, 1, "expert"))
            await wait_for(pilot, lambda: "expert" in screen_text(app), "a computer seated")
            await pilot.press("down", "p")
            await wait_for(pilot, lambda: "expert bot (computer)" in screen_text(app),
                           "the expert's card")


async def test_a_game_on_a_card_opens_in_the_replay_viewer(db: Database) -> None:
    from moon_tui.bots.analysis import Analyst
    from moon_tui.ui.replay import ReplayScreen
    from server.archive import ClubGames
    from server.identity import Player

    async with Lobby(FAST, seed=1) as lobby:
        app = MoonApp(lobby, "ann", ratings=DatabaseRatings(db),
                      games=ClubGames(db, Player("ann")), analyst=Analyst(lobby.bots))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "lobby" in screen_text(app), "the lobby")
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, AskPlayerScreen), "asked")
            await pilot.press("enter")
            await wait_for(pilot, lambda: "Enter watches it" in screen_text(app), "ann's card")
            (code,) = db.reader().execute(
                "SELECT code FROM records WHERE record LIKE '%\"ann\"%'").fetchone()
            assert code in screen_text(app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen)
                           and "All hands open" in screen_text(app), "the game's replay")
            assert app.screen.opened.entry.code == code
            # What only the viewer does is in an 80-column footer (Home and End are not).
            footer = screen_text(app).splitlines()[-1]
            assert footer.startswith(" ←→ move ↑↓ trick PgUp/Dn hand v view a analysis p "
                                     "play on …"), footer
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, PlayerCardScreen), "the card")


async def test_a_narrow_footer_keeps_help_and_the_way_out(db: Database) -> None:
    # An operator's lobby with a table listed, keys, games and ratings has more keys
    # than fit in 80 columns even one space apart: the footer was cut at its end, and
    # "? help  q quit" were the keys it lost. Now the others are cut, and "…" (which
    # opens the help) stands for them.
    from moon_tui.lobby import CreateTable
    from moon_tui.rules import Rules
    from moon_tui.ui.lobby_screen import LobbyScreen
    from server.archive import ClubGames
    from server.identity import Player
    from server.link_codes import LinkCodes
    from server.members import AccountKeys

    async with Lobby(FAST, seed=1) as lobby:
        bob = await lobby.connect("bob")
        bob.send(CreateTable("bob's table", Rules.make()))
        app = MoonApp(lobby, "ann", operator=True, ratings=DatabaseRatings(db),
                      keys=AccountKeys(db, Player("ann"), LinkCodes(), 2222),
                      games=ClubGames(db, Player("ann")))
        async with app.run_test(size=(160, 24)) as pilot:
            await wait_for(pilot, lambda: "w watch" in screen_text(app), "bob's table")
            wide = screen_text(app).splitlines()[-1]
            assert "…" not in wide and "L ratings  o operator" in wide, wide
            await pilot.resize_terminal(80, 24)
            await wait_for(pilot, lambda: "…" in screen_text(app).splitlines()[-1],
                           "the footer cut")
            narrow = screen_text(app).splitlines()[-1]
            assert narrow.startswith(" n new table j join w watch i by code c chat k keys"
                                     " g games …"), narrow
            assert narrow.rstrip().endswith(" … ? help q quit"), narrow
            await pilot.click(offset=(narrow.index("…"), 23))
            await wait_for(pilot, lambda: not isinstance(app.screen, LobbyScreen)
                           and "Learn to play" in screen_text(app), "the help")
        await bob.close()
