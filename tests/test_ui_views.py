"""The interface is given only views: no other seat's tiles ever reach a screen.

Two players and a spectator, each with their own app on one real lobby. At every step each
screen is searched for the tiles the *other* player still holds (as `6-4` and `[6|4]`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager

from test_ui_support import FAST, current_view, my_turn, screen_text, take_turn, wait_for
from textual.pilot import Pilot

from moon_tui.app import MoonApp
from moon_tui.lobby import (
    AddBot,
    BotLevel,
    CreateTable,
    JoinSeat,
    Lobby,
    StartGame,
    TableUpdate,
)
from moon_tui.lobby.messages import Event
from moon_tui.rules import MOON, Action, Phase, Rules, SeatView, Tile
from moon_tui.ui.game import GameScreen
from moon_tui.ui.lobby_screen import LobbyScreen


def shown(tile: Tile, text: str) -> bool:
    return f"{tile.high}-{tile.low}" in text or f"[{tile.high}|{tile.low}]" in text


class Recorder:
    """Keeps every event an app's model took in."""

    def __init__(self, app: MoonApp) -> None:
        self.events: list[Event] = []
        original = app.model.apply

        def apply(event: Event) -> bool:
            self.events.append(event)
            return original(event)

        app.model.apply = apply  # type: ignore[method-assign]


async def test_players_and_spectators_see_only_their_own_view() -> None:
    async with Lobby(FAST, seed=21) as lobby, AsyncExitStack() as stack:
        ann, bob, cy = MoonApp(lobby, "ann"), MoonApp(lobby, "bob"), MoonApp(lobby, "cy")
        records = {app.player_name: Recorder(app) for app in (ann, bob, cy)}
        pilots = {}
        for app in (ann, bob, cy):
            pilots[app.player_name] = await stack.enter_async_context(
                app.run_test(size=(80, 24)))
        pa, pb, pc = pilots["ann"], pilots["bob"], pilots["cy"]
        for pilot in (pa, pb, pc):
            await wait_for(pilot, lambda a=pilot.app: isinstance(a.screen, LobbyScreen),
                           "the lobby")
        ann.send(CreateTable("open table"))
        await wait_for(pa, lambda: ann.current_table is not None, "ann's table")
        table_id = ann.current_table
        assert table_id is not None
        # bob joins from the lobby list with j, cy watches with w
        await wait_for(pb, lambda: bob.model.lobby is not None and
                       any(t.table_id == table_id for t in bob.model.lobby.tables), "the list")
        await pb.press("j")
        await wait_for(pb, lambda: bob.current_table == table_id, "bob seated")
        ann.send(AddBot(table_id, 2, "random"))
        await wait_for(pa, lambda: not ann.model.tables[table_id].table.seats[2].is_free,
                       "the bot")
        ann.send(StartGame(table_id))
        await wait_for(pa, lambda: isinstance(ann.screen, GameScreen), "ann's table screen")
        await wait_for(pb, lambda: isinstance(bob.screen, GameScreen), "bob's table screen")
        await wait_for(pc, lambda: cy.model.lobby is not None and
                       any(t.table_id == table_id and t.status == "playing"
                           for t in cy.model.lobby.tables), "a game to watch")
        await pc.press("w")
        await wait_for(pc, lambda: isinstance(cy.screen, GameScreen), "cy watching")
        assert "You are watching" in screen_text(cy)

        checks = 0
        for _ in range(60):
            await wait_for(pa, lambda: my_turn(ann) or my_turn(bob), "a human's turn")
            va, vb = current_view(ann), current_view(bob)
            assert va is not None and vb is not None
            if va.phase is Phase.PLAY and vb.phase is Phase.PLAY:
                for tile in vb.hand:
                    assert not shown(tile, screen_text(ann)), f"ann sees bob's {tile}"
                    assert not shown(tile, screen_text(cy)), f"cy sees bob's {tile}"
                for tile in va.hand:
                    assert not shown(tile, screen_text(bob)), f"bob sees ann's {tile}"
                    assert not shown(tile, screen_text(cy)), f"cy sees ann's {tile}"
                checks += 1
            mover, pilot = (ann, pa) if my_turn(ann) else (bob, pb)
            await take_turn(pilot, mover, bid=None)
            if checks >= 8:
                break
        assert checks >= 8

        # Every view each app was handed belongs to its own seat and hides the rest.
        for name, record in records.items():
            updates = [e for e in record.events if isinstance(e, TableUpdate) and e.view]
            assert updates, name
            for update in updates:
                view = update.view
                assert view is not None
                assert view.seat == update.seat
                if name == "cy":
                    assert view.seat is None and view.hand == () and view.widow is None
                elif view.seat != view.declarer:
                    assert view.widow is None and view.discard is None


@asynccontextmanager
async def ann_with_computers(seed: int, rules: Rules, levels: tuple[BotLevel, BotLevel]
                             ) -> AsyncIterator[tuple[Pilot[None], MoonApp]]:
    """ann's app at 80x24, at a table of hers with two computers, started."""
    async with Lobby(FAST, seed=seed) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            app.send(CreateTable("mine", rules))
            await wait_for(pilot, lambda: app.current_table is not None, "the table")
            table_id = app.current_table
            assert table_id is not None
            for seat, level in enumerate(levels, start=1):
                app.send(AddBot(table_id, seat, level))
            await wait_for(pilot, lambda: all(not s.is_free for s in app.model.tables[
                table_id].table.seats), "a full table")
            app.send(StartGame(table_id))
            yield pilot, app


async def screen_after(pilot: Pilot[None], app: MoonApp, key: str) -> str:
    """The screen once `key` was pressed and what it brought about was drawn."""
    await pilot.press(key)
    await pilot.pause()
    return screen_text(app)


async def ann_plays_until(pilot: Pilot[None], app: MoonApp, wanted: Callable[[SeatView], bool],
                          bid: str, turns: int, what: str) -> SeatView:
    """ann's turns, bidding with the key `bid` and taking the marked choice otherwise,
    until her view is `wanted`."""
    for _ in range(turns):
        await wait_for(pilot, lambda: my_turn(app), "ann's turn")
        view = current_view(app)
        assert view is not None
        if wanted(view):
            return view
        await pilot.press(bid if view.phase is Phase.BID else "enter")
    raise AssertionError(f"no turn of ann's where {what}")


async def test_a_bid_too_low_is_explained_in_turn() -> None:
    # A digit under the highest bid did nothing at all: the player saw no reason.
    async with ann_with_computers(8, Rules.make(), ("random", "random")) as (pilot, app):
        def numbers(view: SeatView) -> list[int]:
            return [a.bid for a in view.legal if a.kind == "bid" and a.bid is not None
                    and a.bid != MOON]

        view = await ann_plays_until(
            pilot, app, lambda v: v.phase is Phase.BID and bool(numbers(v))
            and any(a.kind == "bid" for _, a in v.bids), "p", 50, "a computer bid first")
        low = min(numbers(view)) - 1
        await pilot.press("c", str(low), "p", "escape")  # typed in the chat: no word
        await pilot.pause()
        assert "You cannot" not in screen_text(app)
        text = await screen_after(pilot, app, str(low))
        assert f"You cannot bid {low} now: bid " in text, text
        assert "p to pass" in text
        assert current_view(app) == view  # nothing was sent
        assert "You cannot bid 9 now" in await screen_after(pilot, app, "9")  # no bid


async def test_a_pass_the_rules_refuse_is_explained() -> None:
    # With "last must bid", p did nothing for the last to speak after all passed.
    rules = Rules.make(all_pass="force_last", target=1000)
    # Seed 38: both computers pass at once.
    async with ann_with_computers(38, rules, ("easy", "random")) as (pilot, app):
        view = await ann_plays_until(
            pilot, app, lambda v: v.phase is Phase.BID and Action.make_pass() not in v.legal,
            "p", 30, "both computers passed before her")
        assert "You cannot pass: everyone else passed, so you must bid." in \
            await screen_after(pilot, app, "p")
        assert current_view(app) == view


async def test_a_trump_the_rules_refuse_is_explained() -> None:
    # d and n did nothing at a table where doubles are no trump and no trump is not played.
    rules = Rules.make(doubles_trump=False, no_trump=False, target=1000)
    async with ann_with_computers(8, rules, ("random", "random")) as (pilot, app):
        view = await ann_plays_until(pilot, app, lambda v: v.phase is Phase.TRUMP, "m", 60,
                                     "she names trump (she bids the moon)")
        assert "Doubles cannot be trump at this table: name a number." in \
            await screen_after(pilot, app, "d")
        assert "No trump is not played at this table: name a number." in \
            await screen_after(pilot, app, "n")
        assert current_view(app) == view


async def test_a_claim_when_not_leading_is_explained() -> None:
    # C (claim the rest) did nothing while the player was to follow.
    async with ann_with_computers(8, Rules.make(), ("random", "random")) as (pilot, app):
        view = await ann_plays_until(
            pilot, app, lambda v: v.phase is Phase.PLAY and v.current_trick is not None
            and bool(v.current_trick.plays), "p", 40, "she follows in a trick")
        assert "You may claim the rest when it is your turn to lead a trick." in \
            await screen_after(pilot, app, "C")
        assert current_view(app) == view


async def test_a_key_pressed_out_of_turn_is_explained() -> None:
    async with Lobby(FAST, seed=8) as lobby, AsyncExitStack() as stack:
        ann, bob = MoonApp(lobby, "ann"), MoonApp(lobby, "bob")
        pa = await stack.enter_async_context(ann.run_test(size=(80, 24)))
        pb = await stack.enter_async_context(bob.run_test(size=(80, 24)))
        ann.send(CreateTable("two of us"))
        await wait_for(pa, lambda: ann.current_table is not None, "the table")
        table_id = ann.current_table
        assert table_id is not None
        bob.send(JoinSeat(table_id))
        ann.send(AddBot(table_id, 2, "random"))
        await wait_for(pa, lambda: all(not s.is_free for s in
                                       ann.model.tables[table_id].table.seats), "a full table")
        ann.send(StartGame(table_id))
        await wait_for(pa, lambda: my_turn(ann) or my_turn(bob), "a human's turn")
        idle, pilot = (bob, pb) if my_turn(ann) else (ann, pa)
        view = current_view(idle)
        assert view is not None and view.to_move is not None
        await pilot.press("4")
        assert "Not your turn yet" in screen_text(idle)
        assert current_view(idle) == view


async def test_the_keys_say_leave_at_a_club_table_and_quit_played_alone() -> None:
    # Played alone (`moon`) the game-over choices read "r play again  q quit" while the
    # footer under them said "r rematch ... q leave".
    from moon_tui.local import LocalMoonApp
    from moon_tui.ui.game import GameScreen

    async with ann_with_computers(8, Rules.make(), ("random", "random")) as (pilot, app):
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the table")
        await wait_for(pilot, lambda: "q leave" in screen_text(app).splitlines()[-1],
                       "a club table's keys")
    alone = LocalMoonApp("ann", Rules.make(), level="random", config=FAST, seed=4)
    async with alone.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(alone.screen, GameScreen), "the table")
        await wait_for(pilot, lambda: "q quit" in screen_text(alone).splitlines()[-1],
                       "the keys of a game played alone")
        assert "q leave" not in screen_text(alone)
