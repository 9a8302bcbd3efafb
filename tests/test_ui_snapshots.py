"""Snapshots of every screen at 80x24 and 120x40 (pytest-textual-snapshot).

Each app hosts its own lobby with a fixed seed and computer players that do not pause,
so the same keys always lead to the same screen. Update with `--snapshot-update`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from test_ui_support import current_view, my_turn, take_turn, wait_for
from textual.pilot import Pilot

from moon_tui.app import SessionOver
from moon_tui.lobby import (
    Act,
    AddBot,
    ChatLine,
    CreateTable,
    JoinSeat,
    LobbyConfig,
    PlayerHandle,
    SendChat,
    Spectate,
    StartGame,
    TableUpdate,
)
from moon_tui.local import LocalMoonApp
from moon_tui.rules import Phase, Rules
from moon_tui.services import KeyFacts, LinkCode
from moon_tui.ui.keys import KeysScreen
from moon_tui.ui.lobby_screen import LobbyScreen

SIZES = [(80, 24), (120, 40)]
FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0)
HOLD = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=600.0)
"""The next hand waits, so the end of a hand stays on screen."""


class MemoryKeys:
    """A `KeyManager` with one key and a fixed code (the server's stores keys in SQLite)."""

    def __init__(self) -> None:
        self.keys = ["SHA256:3bVt2cS1x0ZqfTZ5ILu1Y8w5pD1q9nKQ0lH1n4kzT7E"]

    async def list_keys(self) -> list[KeyFacts]:
        return [KeyFacts(key, "ssh-ed25519", "", time.time() - 3 * 86400 - 60, None,
                         current=True) for key in self.keys]

    async def remove_key(self, fingerprint: str) -> None:
        self.keys.remove(fingerprint)

    async def new_link_code(self) -> LinkCode:
        return LinkCode("K7QM-3XPA", 10, "ssh -p 2222 ann@this-server")


Step = Callable[[Pilot[None]], Awaitable[None]]


@dataclass
class Case:
    app: Callable[[], LocalMoonApp]
    steps: Step


def local(*, table: bool = True, rules: Rules | None = None,
          config: LobbyConfig = FAST) -> Callable[[], LocalMoonApp]:
    def make() -> LocalMoonApp:
        app = LocalMoonApp("ann", rules or Rules.make(), level="random", config=config,
                           seed=4, set_up_table=table)
        app.motd = "Club night is Thursday. Be kind at the table."
        if not table:
            app.keys = MemoryKeys()
        return app
    return make


def app_of(pilot: Pilot[None]) -> LocalMoonApp:
    assert isinstance(pilot.app, LocalMoonApp)
    return pilot.app


async def nothing(pilot: Pilot[None]) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LobbyScreen), "the lobby")


async def in_lobby(pilot: Pilot[None]) -> None:
    app = app_of(pilot)
    await wait_for(pilot, lambda: app.handle is not None, "the session")
    bob = await app.lobby.connect("bob")
    bob.send(CreateTable("bob's table", Rules.make(players=4, min_bid=3), turn_seconds=30))
    bob.send(SendChat("anyone for a game of four?"))
    await wait_for(pilot, lambda: bool(app.model.lobby and app.model.lobby.tables
                                       and app.model.lobby_chat), "bob's table")


async def create_form(pilot: Pilot[None]) -> None:
    await in_lobby(pilot)
    await pilot.press("n")


async def waiting_room(pilot: Pilot[None]) -> None:
    await create_form(pilot)
    await pilot.press("ctrl+s", "b")
    app = app_of(pilot)
    await wait_for(pilot, lambda: app.current_table is not None and any(
        s.is_bot for s in app.model.tables[app.current_table].table.seats), "a bot")


async def keys_screen(pilot: Pilot[None]) -> None:
    await in_lobby(pilot)
    await pilot.press("k")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, KeysScreen), "the keys")


def until(check: Callable[[LocalMoonApp], bool], what: str) -> Step:
    """Play (bidding 7 when possible) until `check` holds on my turn or the game ends."""
    async def run(pilot: Pilot[None]) -> None:
        app = app_of(pilot)
        for _ in range(400):
            await wait_for(pilot, lambda: my_turn(app) or _over(app) or check(app), what)
            if check(app):
                await pilot.pause()
                return
            await take_turn(pilot, app)
        raise AssertionError(f"never reached {what}")
    return run


def _over(app: LocalMoonApp) -> bool:
    view = current_view(app)
    return view is not None and (view.outcome is not None or view.phase is Phase.DEAL)


def phase_is(phase: Phase) -> Callable[[LocalMoonApp], bool]:
    def check(app: LocalMoonApp) -> bool:
        view = current_view(app)
        return view is not None and view.my_turn and view.phase is phase
    return check


def following(app: LocalMoonApp) -> bool:
    view = current_view(app)
    if view is None or not view.my_turn or view.phase is not Phase.PLAY:
        return False
    playable = {a.tile for a in view.legal}
    return any(t not in playable for t in view.hand)


def hand_over(app: LocalMoonApp) -> bool:
    view = current_view(app)
    return view is not None and view.phase is Phase.DEAL


def game_over(app: LocalMoonApp) -> bool:
    view = current_view(app)
    return view is not None and view.outcome is not None


def press_barred_tile(step: Step) -> Step:
    """After `step`, press the digit of a tile that may not be played now."""
    async def run(pilot: Pilot[None]) -> None:
        await step(pilot)
        app = app_of(pilot)
        view = current_view(app)
        assert view is not None
        playable = {a.tile for a in view.legal}
        barred = next(i for i, t in enumerate(view.hand) if t not in playable)
        await pilot.press(str(barred + 1))
        await wait_for(pilot, lambda: "✗" in str(app.screen.query_one("#prompt").render()),
                       "the explanation")
    return run


def then_press(step: Step, *keys: str) -> Step:
    async def run(pilot: Pilot[None]) -> None:
        await step(pilot)
        await pilot.press(*keys)
        await pilot.pause()
    return run


async def spectating(pilot: Pilot[None]) -> None:
    app = app_of(pilot)
    await wait_for(pilot, lambda: app.handle is not None, "the session")
    host = await app.lobby.connect("bob")
    host.send(CreateTable("bob's table"))
    while True:
        event = await host.next_event()
        if hasattr(event, "table") and event.table.table_id:
            table_id = event.table.table_id
            break
    host.send(AddBot(table_id, 1, "random"))
    host.send(AddBot(table_id, 2, "random"))
    host.send(StartGame(table_id))
    host.send(SendChat("welcome, watchers", table_id))
    app.send(Spectate(table_id))
    await wait_for(pilot, lambda: current_view(app) is not None and
                   current_view(app).to_move == 0, "bob to move")  # type: ignore[union-attr]
    assert all(isinstance(c, ChatLine) for c in app.model.chat_of(table_id))


LONG = "bob-the-builder1"
"""The longest name an account may have (16 characters)."""


async def in_lobby_long_names(pilot: Pilot[None]) -> None:
    """A lobby whose table seats long names and computer players (issue 13, item 7)."""
    app = app_of(pilot)
    await wait_for(pilot, lambda: app.handle is not None, "the session")
    bob = await app.lobby.connect(LONG)
    bob.send(CreateTable("bob's table", Rules.make(players=4, min_bid=3)))
    table_id = ""
    while not table_id:
        event = await bob.next_event()
        if isinstance(event, TableUpdate):
            table_id = event.table.table_id
    guest = await app.lobby.connect("guest-4230")
    guest.send(JoinSeat(table_id))
    bob.send(AddBot(table_id, 2, "normal"))
    bob.send(AddBot(table_id, 3, "normal"))
    await wait_for(pilot, lambda: bool(app.model.lobby and app.model.lobby.tables and all(
        not s.is_free for s in app.model.lobby.tables[0].seats)), "a full table")


async def long_names_at_play(pilot: Pilot[None]) -> None:
    """ann at a 4-player table with a 16-letter name and a guest: every line of the
    table at the size of the screen (issue 13, item 7)."""
    app = app_of(pilot)
    await wait_for(pilot, lambda: app.handle is not None, "the session")
    app.send(CreateTable("ann's table", Rules.make(players=4)))
    await wait_for(pilot, lambda: app.current_table is not None, "ann's table")
    table_id = app.current_table
    assert table_id is not None
    bob = await app.lobby.connect(LONG)
    bob.send(JoinSeat(table_id, 1))
    guest = await app.lobby.connect("guest-4230")
    guest.send(JoinSeat(table_id, 3))
    app.send(AddBot(table_id, 2, "random"))
    await wait_for(pilot, lambda: all(not s.is_free for s in
                                      app.model.tables[table_id].table.seats), "full")
    app.send(StartGame(table_id))
    await wait_for(pilot, lambda: current_view(app) is not None, "the game")

    async def plays(handle: PlayerHandle) -> None:
        async for event in handle:
            if isinstance(event, TableUpdate) and event.view is not None and \
                    event.view.my_turn:
                handle.send(Act(table_id, event.view.legal[-1]))
    tasks = [asyncio.create_task(plays(bob)), asyncio.create_task(plays(guest))]
    try:
        await until(following, "following")(pilot)
    finally:
        for task in tasks:
            task.cancel()


async def session_ended(pilot: Pilot[None]) -> None:
    app = app_of(pilot)
    await wait_for(pilot, lambda: app.handle is not None, "the session")
    await app.lobby.kick("ann", "the club is closing for the night")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionOver), "the reason")


def replaying(*keys: str) -> Step:
    """A finished game of random play opened in the replay viewer, then `keys`."""
    async def steps(pilot: Pilot[None]) -> None:
        from moon_tui.rules.record import record_from_dict
        from moon_tui.services import GameEntry, OpenedGame
        from moon_tui.ui.replay import ReplayScreen
        from tests.support.games import finished_record

        names = ("ann", "bob", "cy")
        record = record_from_dict(finished_record(names, 5, target=3))
        entry = GameEntry(1, "K7Q2MD", 1_796_000_000.0, True, names, record.rules,
                          len(record.hands), (0, 0, 0), None)
        await pilot.app.push_screen(ReplayScreen(OpenedGame(entry, record, None)))
        await pilot.press(*keys)
        await pilot.pause()
    return steps


CASES: dict[str, Case] = {
    "lobby": Case(local(table=False), in_lobby),
    "create_table": Case(local(table=False), create_form),
    "waiting_room": Case(local(table=False), waiting_room),
    "keys": Case(local(table=False), keys_screen),
    "keys_code": Case(local(table=False), then_press(keys_screen, "a")),
    "help": Case(local(table=False), then_press(nothing, "question_mark")),
    "bidding": Case(local(), until(phase_is(Phase.BID), "my bid")),
    "discard": Case(local(), until(phase_is(Phase.DISCARD), "the discard")),
    "trump": Case(local(), until(phase_is(Phase.TRUMP), "naming trump")),
    "play_following": Case(local(), until(following, "a tile I may not play")),
    "illegal_explained": Case(local(), press_barred_tile(until(following, "following"))),
    "last_trick": Case(local(), then_press(until(following, "following"), "l")),
    "hand_over": Case(local(config=HOLD), until(hand_over, "the end of the hand")),
    "game_over": Case(local(rules=Rules.make(target=1)), until(game_over, "the end")),
    "score_sheet": Case(local(rules=Rules.make(target=1)),
                        then_press(until(game_over, "the end"), "s")),
    "four_players": Case(local(rules=Rules.make(players=4)), until(following, "following")),
    "spectator": Case(local(table=False), spectating),
    "session_ended": Case(local(table=False), session_ended),
    "replay_bidding": Case(local(table=False), replaying()),
    "replay_trick": Case(local(table=False), replaying("down", "down", "right")),
}

ROOMY = [(80, 24), (100, 30)]
"""Screens whose text is laid out to the width: nothing cut at 100x30, names cut on
purpose to one width at 80x24."""
ROOMY_CASES: dict[str, Case] = {
    "lobby_long_names": Case(local(table=False), in_lobby_long_names),
    "long_names": Case(local(table=False), long_names_at_play),
}


@pytest.mark.parametrize("size", ROOMY, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(ROOMY_CASES))
def test_roomy_screen(name: str, size: tuple[int, int], snap_compare) -> None:  # type: ignore[no-untyped-def]
    case = ROOMY_CASES[name]
    assert snap_compare(case.app(), terminal_size=size, run_before=case.steps)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(CASES))
def test_screen(name: str, size: tuple[int, int], snap_compare) -> None:  # type: ignore[no-untyped-def]
    case = CASES[name]
    assert snap_compare(case.app(), terminal_size=size, run_before=case.steps)


def test_too_small_window_asks_for_a_bigger_one(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(local(table=False)(), terminal_size=(60, 20), run_before=nothing)


def test_table_without_colour(snap_compare, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """NO_COLOR: turn, declarer, playable and barred tiles still read (▶ ★, borders)."""
    monkeypatch.setenv("NO_COLOR", "1")
    case = CASES["play_following"]
    app = case.app()
    assert app.no_color
    assert snap_compare(app, terminal_size=(80, 24), run_before=case.steps)
