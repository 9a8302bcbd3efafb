"""The table screen over a real lobby on a clock the test moves: what it says while it waits
for a dropped player, the turn timer's warning."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from manual_clock import ManualClock
from test_ui_support import FAST, current_view, my_turn, screen_text, take_turn, wait_for
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets._toast import Toast

import moon_tui.app
from moon_tui.app import MoonApp
from moon_tui.lobby import (
    Act,
    AddBot,
    BotLevel,
    Broadcast,
    CreateTable,
    JoinSeat,
    LeaveTable,
    Lobby,
    StartGame,
    TableUpdate,
)
from moon_tui.rules import Action, Phase, Rules
from moon_tui.ui import frames
from moon_tui.ui.game import GameScreen
from moon_tui.ui.hand import HandView
from moon_tui.ui.lobby_screen import LobbyScreen, online_text
from moon_tui.ui.rows import RowList
from moon_tui.ui.waiting import WaitingScreen

WAITING = dataclasses.replace(FAST, reconnect_wait_seconds=30, grace_seconds=120)


async def ann_bob_and_a_bot_play(
    ann: MoonApp, pa: Pilot[None], bob: MoonApp, pb: Pilot[None], level: BotLevel
) -> str:
    """ann opens a table (to 60, no moon win), bob sits at seat 2, a computer at seat 3,
    and the game starts; returns the table's id once bob sees it."""
    ann.send(CreateTable("t", Rules.make(target=60, moon_wins_game=False)))
    await wait_for(pa, lambda: ann.current_table is not None, "ann's table")
    table_id = ann.current_table
    assert table_id is not None
    bob.send(JoinSeat(table_id, 1))
    ann.send(AddBot(table_id, 2, level))
    await wait_for(pa, lambda: ann.model.tables[table_id].table.seats[2].is_bot
                   and ann.model.tables[table_id].table.seats[1].name == "bob",
                   "bob and the bot")
    ann.send(StartGame(table_id))
    await wait_for(pb, lambda: isinstance(bob.screen, GameScreen), "bob's table")
    return table_id


@asynccontextmanager
async def ann_and_bob_at_a_table(
    seed: int, level: BotLevel
) -> AsyncIterator[tuple[MoonApp, Pilot[None], MoonApp, Pilot[None], str]]:
    """ann and bob at 100x30, playing at ann's table with a computer (see
    `ann_bob_and_a_bot_play`): the apps, their pilots and the table's id."""
    async with Lobby(FAST, seed=seed) as lobby, AsyncExitStack() as stack:
        ann, bob = MoonApp(lobby, "ann"), MoonApp(lobby, "bob")
        pa = await stack.enter_async_context(ann.run_test(size=(100, 30)))
        pb = await stack.enter_async_context(bob.run_test(size=(100, 30)))
        yield ann, pa, bob, pb, await ann_bob_and_a_bot_play(ann, pa, bob, pb, level)


async def test_the_table_says_it_waits_for_a_dropped_player() -> None:
    clock = ManualClock()
    async with Lobby(WAITING, seed=5, clock=clock) as lobby, AsyncExitStack() as stack:
        ann, bob = MoonApp(lobby, "ann"), MoonApp(lobby, "bob")
        pa = await stack.enter_async_context(ann.run_test(size=(100, 30)))
        async with AsyncExitStack() as bob_stack:
            pb = await bob_stack.enter_async_context(bob.run_test(size=(100, 30)))
            await ann_bob_and_a_bot_play(ann, pa, bob, pb, "random")
            for _ in range(20):
                await wait_for(pa, lambda: (v := current_view(ann)) is not None
                               and v.to_move in (0, 1), "a human's turn")
                view = current_view(ann)
                assert view is not None
                if view.to_move == 1:
                    break
                await take_turn(pa, ann, bid=None)
        # bob's terminal closed on his turn
        await wait_for(pa, lambda: "to reconnect" in screen_text(ann), "the waiting")
        shown = re.search(r"Waiting for bob to reconnect… (\d+) s", screen_text(ann))
        assert shown is not None and 25 <= int(shown.group(1)) <= 30, screen_text(ann)
        assert "bob (away)" in screen_text(ann), "no computer plays for bob yet"


class Warned(MoonApp):
    """Keeps the turn warnings the table screen sends (the app may ring the bell)."""

    CSS_PATH = str(Path(moon_tui.app.__file__).parent / MoonApp.CSS_PATH)

    def __init__(self, lobby: Lobby, name: str) -> None:
        super().__init__(lobby, name)
        self.warnings: list[int] = []

    def on_game_screen_time_running_out(self, message: GameScreen.TimeRunningOut) -> None:
        self.warnings.append(message.seconds_left)


async def alone_with_two_bots(app: MoonApp, pilot: Pilot[None],
                              seconds: int | None = None) -> None:
    """ann opens a table (to 60, no moon win, turn timer `seconds`) with two random
    computers and starts it."""
    app.send(CreateTable("t", Rules.make(target=60, moon_wins_game=False), seconds))
    await wait_for(pilot, lambda: app.current_table is not None, "the table")
    table_id = app.current_table
    assert table_id is not None
    for seat in (1, 2):
        app.send(AddBot(table_id, seat, "random"))
    await wait_for(pilot, lambda: app.model.tables[table_id].table.seats[2].is_bot, "the bots")
    app.send(StartGame(table_id))



async def test_the_answer_to_a_move_is_drawn_in_the_step_that_takes_it_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Not a pass of the event loop later by the screen's update timer: the player waits on
    # it. What nobody typed for (the computers' moves) is left to the timer.
    drawn: list[bool] = []

    def draw_now(screen: Screen[Any]) -> bool:
        drawn.append(frames.draw_now(screen))
        return drawn[-1]

    monkeypatch.setattr(moon_tui.app, "draw_now", draw_now)
    async with Lobby(FAST, seed=5) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await alone_with_two_bots(app, pilot)
            await wait_for(pilot, lambda: my_turn(app), "my turn")
            drawn.clear()
            view = current_view(app)
            key = await take_turn(pilot, app, bid=5)
            # The answer's frame was drawn as the answer was taken in.
            assert drawn.count(True) == 1, (key, drawn)
            await wait_for(pilot, lambda: my_turn(app) and current_view(app) is not view,
                           "my next turn")
            assert drawn.count(True) == 1, drawn

async def my_timed_turn(seconds: int) -> tuple[str, list[int]]:
    async with Lobby(FAST, seed=5, clock=ManualClock()) as lobby:
        app = Warned(lobby, "ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await alone_with_two_bots(app, pilot, seconds)
            await wait_for(pilot, lambda: (v := current_view(app)) is not None and v.my_turn,
                           "my turn")
            return screen_text(app), app.warnings


async def test_the_last_ten_seconds_of_your_turn_are_highlighted_and_announced() -> None:
    text, warnings = await my_timed_turn(10)
    assert re.search(r"\b(10|9) s left! ", text), text
    assert len(warnings) == 1 and warnings[0] in (9, 10)
    text, warnings = await my_timed_turn(60)
    assert "s left!" not in text and not warnings


async def test_the_score_sheet_keeps_the_names_of_those_who_played() -> None:
    async with ann_and_bob_at_a_table(8, "easy") as (ann, pa, bob, pb, table_id):

        def hand_over() -> bool:
            view = current_view(ann)
            return view is not None and bool(view.results)

        while not hand_over():
            await wait_for(pa, lambda: hand_over() or any(
                (v := current_view(app)) is not None and v.my_turn for app in (ann, bob)),
                "a human's turn")
            for app, pilot in ((ann, pa), (bob, pb)):
                view = current_view(app)
                if not hand_over() and view is not None and view.my_turn:
                    await take_turn(pilot, app, bid=7 if app is bob else None)
        bob.send(LeaveTable(table_id))
        await wait_for(pa, lambda: ann.model.tables[table_id].table.seats[1].is_bot,
                       "the computer in bob's seat")
        left = ann.model.tables[table_id].table.seats[1]
        assert left.bot_level == "easy", "the stand-in plays at the table's level"
        await pa.press("s")
        await wait_for(pa, lambda: "Score sheet" in screen_text(ann), "the score sheet")
        sheet = screen_text(ann)
        assert "bob 7" in sheet, sheet  # bob's bid, not "Bot 2 7"
        assert "│ Bot 2" not in sheet and "Bot 2 7" not in sheet
        assert "Last hand:" in sheet and "bob bid 7" in sheet


def notes(app: MoonApp) -> str:
    """The notifications the app shows now, one a line."""
    return "\n".join(str(n.message) for n in app._notifications)


async def test_seats_are_numbered_from_one_in_the_room_and_in_its_answers() -> None:
    async with Lobby(FAST, seed=8) as lobby, AsyncExitStack() as stack:
        ann, bob = MoonApp(lobby, "ann"), MoonApp(lobby, "bob")
        pa = await stack.enter_async_context(ann.run_test(size=(100, 30)))
        pb = await stack.enter_async_context(bob.run_test(size=(100, 30)))
        ann.send(CreateTable("t"))
        await wait_for(pa, lambda: ann.current_table is not None, "ann's table")
        table_id = ann.current_table
        assert table_id is not None
        bob.send(JoinSeat(table_id, 1))
        await wait_for(pb, lambda: isinstance(bob.screen, WaitingScreen), "bob's room")
        assert "Seat 2  bob (you)" in screen_text(bob)
        await pb.press("down", "t")
        await wait_for(pb, lambda: "you already sit at seat 2" in notes(bob),
                       "the answer to t")
        await pb.press("up", "t")
        await wait_for(pb, lambda: "seat 1 is taken by ann" in notes(bob),
                       "the answer to t on ann's seat")
        ann.send(AddBot(table_id, 2, "easy"))
        await wait_for(pa, lambda: ann.model.tables[table_id].table.seats[2].is_bot, "the bot")
        ann.send(StartGame(table_id))
        await wait_for(pb, lambda: isinstance(bob.screen, GameScreen), "bob's table")
        bob.send(LeaveTable(table_id))
        await wait_for(pa, lambda: "bob left" in notes(ann), "the notice")
        assert "bob left the table: a computer plays seat 2" in notes(ann)


async def test_a_bid_keeps_its_bidders_name_when_a_computer_takes_the_seat() -> None:
    # bob bids the moon and leaves: the computer plays his seat, but the contract is
    # still his (as the hand's result will be), and the seats show who plays now.
    async with ann_and_bob_at_a_table(5, "random") as (ann, pa, bob, pb, table_id):

        def bobs_turn_to_bid() -> bool:
            view = current_view(bob)
            return view is not None and view.phase is Phase.BID and view.my_turn

        for _ in range(30):
            await wait_for(pa, lambda: bobs_turn_to_bid() or my_turn(ann), "a turn")
            if bobs_turn_to_bid():
                break
            await take_turn(pa, ann, bid=None)
        assert bobs_turn_to_bid()
        bob.send(Act(table_id, Action.make_bid(21)))
        await wait_for(pa, lambda: (v := current_view(ann)) is not None
                       and any(seat == 1 for seat, _ in v.bids), "bob's bid")
        bob.send(LeaveTable(table_id))
        await wait_for(pa, lambda: "bob left the table" in notes(ann), "the notice")
        await wait_for(pa, lambda: re.search(r"Bot 2 (★ )?\(computer", screen_text(ann))
                       is not None, "the computer in bob's seat")
        text = screen_text(ann)
        assert "bob bid the moon" in text.splitlines()[0], text
        assert "Bot 2 bid" not in text, text


async def test_the_auction_in_order_and_the_hands_result_until_you_read_it() -> None:
    config = dataclasses.replace(FAST, hand_result_seconds=600)
    async with Lobby(config, seed=5) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await alone_with_two_bots(app, pilot)

            def over() -> bool:
                view = current_view(app)
                return view is not None and view.phase is Phase.DEAL

            auctions = set()
            while not over():
                await wait_for(pilot, lambda: over() or (
                    (v := current_view(app)) is not None and v.my_turn), "my turn")
                view = current_view(app)
                assert view is not None
                if view.phase is Phase.BID and view.my_turn:
                    spoken = [f"{'ann' if s == 0 else f'Bot {s + 1}'} "
                              f"{'passed' if a.kind == 'pass' else f'bid {a.bid}'}"
                              for s, a in view.bids]
                    text = screen_text(app)
                    positions = [text.index(line) for line in spoken]
                    assert positions == sorted(positions), text
                    auctions.add(len(spoken))
                if not over():
                    await take_turn(pilot, app, bid=5)
            assert max(auctions) >= 1, "ann saw bids before hers"
            view = current_view(app)
            assert view is not None and view.results
            hand = view.hand_number
            text = screen_text(app)
            assert "Enter: on to the next hand" in text, text
            assert "The hand is over. Enter: on to the next hand." in text
            if not view.results[-1].redeal:
                assert re.search(r"Tricks: ann \d, Bot 2 \d, Bot 3 \d", text), text
            await pilot.press("enter")
            await wait_for(pilot, lambda: (v := current_view(app)) is not None
                           and v.hand_number == hand + 1, "the next hand")


async def test_who_is_where_and_the_lobby_cursor_starts_at_the_first_table() -> None:
    async with Lobby(FAST, seed=8) as lobby, AsyncExitStack() as stack:
        ann, bob, cy = MoonApp(lobby, "ann"), MoonApp(lobby, "bob"), MoonApp(lobby, "cy")
        pa = await stack.enter_async_context(ann.run_test(size=(100, 30)))
        pb = await stack.enter_async_context(bob.run_test(size=(100, 30)))
        await stack.enter_async_context(cy.run_test(size=(100, 30)))
        bob.send(CreateTable("bob's"))
        await wait_for(pb, lambda: bob.current_table is not None, "bob's table")
        cy.send(CreateTable("cy's"))
        await wait_for(pa, lambda: ann.model.lobby is not None
                       and len(ann.model.lobby.tables) == 2, "two tables")
        rows = ann.screen.query_one(RowList)
        assert rows.selected == bob.current_table and ann.screen.focused is rows
        await wait_for(pa, lambda: "• bob at bob's" in screen_text(ann), "where bob is")
        assert "• ann (you) idle" in screen_text(ann) and "• cy at cy's" in screen_text(ann)
        await pa.press("down", "w")  # watch cy's table
        await wait_for(pa, lambda: ann.current_table is not None, "ann watching")
        watched = ann.current_table
        def bobs_lobby() -> str:
            seen = bob.model.lobby
            return "" if seen is None else online_text(seen.online, "bob", seen.places,
                                                       seen.tables).plain

        await wait_for(pb, lambda: "• ann watching cy's" in bobs_lobby(), "ann's place")
        cy.send(AddBot(watched, 1, "random"))
        cy.send(AddBot(watched, 2, "random"))
        await wait_for(pa, lambda: cy.model.tables[watched].table.seats[2].is_bot, "bots")
        cy.send(StartGame(watched))
        await wait_for(pa, lambda: isinstance(ann.screen, GameScreen), "the game")
        await wait_for(pa, lambda: "Watching: ann" in screen_text(ann), "the watchers")
        await pa.press("q")
        await wait_for(pa, lambda: isinstance(ann.screen, LobbyScreen), "the lobby again")
        assert ann.screen.query_one(RowList).selected == bob.current_table


async def test_a_table_with_the_discard_face_up_shows_it_to_everyone() -> None:
    from moon_tui.ui.create import CreateTableScreen

    async with Lobby(FAST, seed=11) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen), "form")
            await pilot.click("#discard_shown")
            await wait_for(pilot, lambda: "[x] The discard is laid face up" in
                           screen_text(app), "the box ticked")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the room")
            table_id = app.current_table
            assert table_id is not None
            assert app.model.tables[table_id].table.rules.discard_shown
            for seat in (1, 2):
                app.send(AddBot(table_id, seat, "random"))
            await wait_for(pilot, lambda: app.model.tables[table_id].table.seats[2].is_bot,
                           "the bots")
            app.send(StartGame(table_id))

            def bot_discarded() -> bool:
                view = current_view(app)
                return view is not None and view.discard is not None and view.declarer != 0

            for _ in range(100):  # ann passes until a computer declares and discards
                await wait_for(pilot, lambda: bot_discarded() or (
                    (v := current_view(app)) is not None and v.my_turn), "a discard")
                if bot_discarded():
                    break
                await take_turn(pilot, app, bid=None)
            view = current_view(app)
            assert view is not None and view.discard is not None
            await wait_for(pilot, lambda: "Discard (face up): " in screen_text(app),
                           "the discard on screen")


async def test_when_everybody_passes_the_table_says_so_while_it_waits() -> None:
    """After an all-pass the tiles stay in hand, so no result is drawn where they lie: the
    prompt says what happened (it said only "The hand is over")."""
    config = dataclasses.replace(FAST, hand_result_seconds=30)
    async with Lobby(config, seed=3) as lobby, asyncio.TaskGroup() as tg:
        ann = MoonApp(lobby, "ann")
        async with ann.run_test(size=(80, 24)) as pilot:
            ann.send(CreateTable("t", Rules.make()))
            await wait_for(pilot, lambda: ann.current_table is not None, "ann's table")
            table_id = ann.current_table
            assert table_id is not None

            async def always_pass(name: str, seat: int) -> None:
                handle = await lobby.connect(name)
                handle.send(JoinSeat(table_id, seat))
                async for event in handle:
                    if isinstance(event, TableUpdate) and event.view is not None \
                            and event.view.my_turn:
                        handle.send(Act(table_id, Action.make_pass()))

            passers = [tg.create_task(always_pass(name, seat))
                       for name, seat in (("bob", 1), ("carl", 2))]
            await wait_for(pilot, lambda: ann.model.tables[table_id].table.seats[2].name
                           == "carl", "bob and carl")
            ann.send(StartGame(table_id))
            while (view := current_view(ann)) is None or view.phase is not Phase.DEAL:
                await wait_for(pilot, lambda: (v := current_view(ann)) is not None and (
                    v.my_turn or v.phase is Phase.DEAL), "ann's turn or the hand's end")
                if (view := current_view(ann)) is not None and view.my_turn:
                    await take_turn(pilot, ann, bid=None)
            await wait_for(pilot, lambda: "Everybody passed. Enter: on to the next hand."
                           in screen_text(ann), "the all-pass said")
            for passer in passers:
                passer.cancel()


@pytest.mark.parametrize("size", [(80, 24), (130, 40)])
async def test_a_toast_at_the_table_leaves_the_hand_and_the_table_in_view(
        size: tuple[int, int]) -> None:
    """A broadcast's toast at the bottom right covered half the hand, on the player's
    turn too; at the table it stands over the chat column instead."""
    async with Lobby(FAST, seed=3) as lobby:
        ann = MoonApp(lobby, "ann", operator=True)
        async with ann.run_test(size=size, notifications=True) as pilot:
            await alone_with_two_bots(ann, pilot)
            await wait_for(pilot, lambda: isinstance(ann.screen, GameScreen), "the table")
            words = "Club night: drinks after the 9pm round, everybody welcome"
            ann.send(Broadcast(words))
            await wait_for(pilot, lambda: any(words in toast.render().plain
                                              for toast in ann.screen.query(Toast)),
                           "the broadcast")
            toast = ann.screen.query_one(Toast)
            screen = ann.screen
            for part in (HandView, "#header", "#seats", "#centre", "#prompt", "#actions"):
                region = screen.query_one(part).region  # type: ignore[call-overload]
                assert not toast.region.overlaps(region), (part, toast.region, region)
            chat = screen.query_one("#chat").region
            assert chat.contains_region(toast.region), (toast.region, chat)


async def test_lobby_news_wait_for_the_lobby_instead_of_redrawing_the_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby under a table is hidden: a lobby change once redrew it there, and each
    such change drew ann's whole table screen again (`MoonApp._background_screens`)."""
    from textual._compositor import Compositor

    from moon_tui.lobby import SendChat

    whole: list[Compositor] = []
    render_full_update = Compositor.render_full_update

    def counted(self: Compositor, simplify: bool = False) -> Any:
        whole.append(self)
        return render_full_update(self, simplify)

    monkeypatch.setattr(Compositor, "render_full_update", counted)
    async with Lobby(FAST, seed=3) as lobby, AsyncExitStack() as stack:
        ann = MoonApp(lobby, "ann")
        pa = await stack.enter_async_context(ann.run_test(size=(80, 24)))
        await alone_with_two_bots(ann, pa)
        await wait_for(pa, lambda: my_turn(ann), "ann's turn (the table waits for her)")
        table = ann.screen
        assert isinstance(table, GameScreen)
        await pa.pause()
        lobby_screen = next(s for s in ann.screen_stack if isinstance(s, LobbyScreen))
        whole.clear()
        bob = MoonApp(lobby, "bob")
        pb = await stack.enter_async_context(bob.run_test(size=(80, 24)))
        await wait_for(pb, lambda: isinstance(bob.screen, LobbyScreen), "bob's lobby")
        bob.send(SendChat("anyone for a game?"))
        bob.send(CreateTable("bob's"))
        await wait_for(pa, lambda: ann.model.lobby is not None
                       and len(ann.model.lobby.tables) == 2
                       and "bob" in ann.model.lobby.online, "bob and his table")
        await wait_for(pa, lambda: any("anyone for a game?" in line.text
                                       for line in ann.model.chat_of(None)), "bob's line")
        await pa.pause()
        assert table._compositor not in whole, "ann's table was drawn whole"
        assert lobby_screen._compositor not in whole
        assert not lobby_screen.is_current and ann.screen is table
        await pa.press("q", "q")  # back to the lobby: it shows what changed meanwhile
        await wait_for(pa, lambda: ann.screen is lobby_screen, "the lobby")
        await wait_for(pa, lambda: "bob's" in screen_text(ann)
                       and "anyone for a game?" in screen_text(ann), "the news")
