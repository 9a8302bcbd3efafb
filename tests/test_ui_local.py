"""`moon` (local play), the mouse, the end of a session, and a window too small."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable

import pytest
from test_ui_support import FAST, current_view, my_turn, screen_text, wait_for

from moon_tui.app import MoonApp, SessionOver
from moon_tui.lobby import Lobby
from moon_tui.local import LocalMoonApp, main, parse_args
from moon_tui.rules import Phase, Rules
from moon_tui.ui.bars import ClickBar
from moon_tui.ui.game import GameScreen
from moon_tui.ui.hand import HandView
from moon_tui.ui.lobby_screen import LobbyScreen


def test_command_line_builds_the_rules() -> None:
    args = parse_args(["--players", "4", "--level", "expert", "--rule", "min_bid=3",
                       "--rule", "no_trump=false", "--name", "ann"])
    assert (args.players, args.level, args.name) == (4, "expert", "ann")
    assert args.rule == ["min_bid=3", "no_trump=false"]


def test_a_bad_rule_option_is_refused_before_anything_starts(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rule", "min_bid=9"]) == 2
    assert "min_bid must be one of 3, 4, 5" in capsys.readouterr().err


async def test_local_game_opens_a_table_with_computer_players_and_mouse_plays() -> None:
    app = LocalMoonApp("ann", Rules.make(players=4, min_bid=3), level="random",
                       config=FAST, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the table")
        table_id = app.current_table
        assert table_id is not None
        info = app.model.tables[table_id].table
        assert [s.bot_level for s in info.seats] == [None, "random", "random", "random"]
        # Bid by clicking the choice bar, then play tiles by clicking them.
        clicked_bid = clicked_tile = False
        for _ in range(80):
            await wait_for(pilot, lambda: my_turn(app), "my turn")
            view = current_view(app)
            assert view is not None
            if view.phase is Phase.BID:
                bar = app.screen.query_one("#actions", ClickBar)
                assert bar.items[0].label == "pass" or bar.items[0].key.isdigit()
                await pilot.click(ClickBar, offset=(2, 0))
                clicked_bid = True
            elif view.phase is Phase.PLAY:
                playable = {a.tile for a in view.legal}
                index = next(i for i, t in enumerate(view.hand) if t in playable)
                hand = app.screen.query_one(HandView)
                await pilot.click(HandView, offset=(hand.tile_x(index), 4))
                clicked_tile = True
            else:
                await pilot.press("1" if view.phase is Phase.DISCARD else "n")
            await wait_for(pilot, lambda v=view: current_view(app) is not v,  # type: ignore[misc]
                           "the click's answer")
            if clicked_bid and clicked_tile:
                break
        assert clicked_bid and clicked_tile


async def test_a_session_ended_by_the_lobby_says_why_and_exits() -> None:
    async with Lobby(FAST) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.handle is not None, "the session")
            await lobby.kick("ann", "the club is closing")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionOver), "the notice")
            assert "the club is closing" in screen_text(app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.is_running, "the app to exit")
        assert app.handle is not None and app.handle.closed


async def test_too_small_a_window_asks_for_a_bigger_one() -> None:
    async with Lobby(FAST) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(70, 20)) as pilot:
            await pilot.pause()
            assert "too small" in screen_text(app)
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert "too small" not in screen_text(app)
            assert "you are ann" in screen_text(app)


async def test_game_over_then_rematch_starts_a_new_game() -> None:
    from test_ui_support import take_turn

    app = LocalMoonApp("ann", Rules.make(target=1), level="random", config=FAST, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        def over() -> bool:
            view = current_view(app)
            return view is not None and view.outcome is not None

        for _ in range(100):
            await wait_for(pilot, lambda: my_turn(app) or over(), "my turn or the end")
            if over():
                break
            await take_turn(pilot, app)
        assert over()
        assert "Game over" in screen_text(app) and "Final scores" in screen_text(app)
        await pilot.press("r")
        await wait_for(pilot, lambda: not over() and current_view(app) is not None,
                       "the rematch")
        view = current_view(app)
        assert view is not None and view.results == () and view.scores == (0, 0, 0)


async def test_join_a_private_table_by_its_invite_code() -> None:
    from moon_tui.lobby import CreateTable
    from moon_tui.ui.waiting import WaitingScreen

    async with Lobby(FAST, seed=2) as lobby:
        ann = await lobby.connect("ann")
        ann.send(CreateTable("friends only", private=True))
        code = None
        while code is None:
            event = await ann.next_event()
            table = getattr(event, "table", None)
            code = getattr(table, "invite_code", None)
        app = MoonApp(lobby, "bob")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.model.lobby is not None, "the lobby")
            assert "friends only" not in screen_text(app)  # private: not listed
            await pilot.press("i", *code.lower(), "enter")
            await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the seat")
            text = screen_text(app)
            assert "friends only" in text and "bob (you)" in text
        await ann.close()


async def _play_a_little(lobby: Lobby) -> weakref.ref[MoonApp]:
    from test_ui_support import take_turn

    app = MoonApp(lobby, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("n", "ctrl+s")
        await wait_for(pilot, lambda: app.current_table is not None, "a table")
        await pilot.press("b", "b")
        await wait_for(pilot, lambda: all(not s.is_free for s in app.model.tables[
            app.current_table or ""].table.seats), "the bots")
        await pilot.press("s")
        await wait_for(pilot, lambda: my_turn(app), "my turn")
        await take_turn(pilot, app)  # a computer player has thought in a thread by now
    return weakref.ref(app)


@pytest.mark.usefixtures("server_patches")
async def test_an_ended_app_is_freed() -> None:
    """Nothing process-wide keeps a finished session's app alive (many run in one server).

    On the server's Textual: plain Textual points sys.stderr at the running app, and a
    thread started meanwhile keeps it (patches.py, adjustment 1)."""
    async with Lobby(FAST, seed=4) as lobby:
        ref = await _play_a_little(lobby)
    others = asyncio.all_tasks() - {asyncio.current_task()}
    if others:  # let cancelled tasks finish
        await asyncio.wait(others, timeout=10)
    gc.collect()
    assert ref() is None


async def test_quitting_closes_the_players_handle() -> None:
    async with Lobby(FAST) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "ann" in lobby.online(), "ann online")
            await pilot.press("ctrl+q")
        assert app.handle is not None and app.handle.closed
        await wait_for_lobby(lambda: "ann" not in lobby.online())


async def wait_for_lobby(check: Callable[[], bool]) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the lobby never saw it")


async def test_an_operator_broadcasts_and_kicks_from_the_lobby() -> None:
    from moon_tui.lobby import Disconnected, Notice
    from moon_tui.ui.operator import OperatorScreen

    async with Lobby(FAST) as lobby:
        bob = await lobby.connect("bob")
        app = MoonApp(lobby, "olga", operator=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert "o operator" in screen_text(app)
            await pilot.press("o")
            await wait_for(pilot, lambda: isinstance(app.screen, OperatorScreen), "the dialog")
            await pilot.press("colon", *"shout", "enter")  # `:` goes to the command line
            assert "not an operator command" in screen_text(app)
            await pilot.press(*["backspace"] * 5)  # the line stays for mending
            await pilot.press(*"say tables close at ten", "enter")
            await pilot.press(*"kick bob enough", "enter")  # the line keeps the focus


            seen: list[object] = []

            async def drain() -> None:
                async for event in bob:
                    seen.append(event)

            await asyncio.wait_for(drain(), timeout=10)
            assert any(isinstance(e, Notice) and e.params == {"text": "tables close at ten",
                                                              "by": "olga"} for e in seen)
            assert isinstance(seen[-1], Disconnected)
            assert seen[-1].params == {"by": "olga", "reason": "enough"}


async def test_players_do_not_get_the_operator_key() -> None:
    async with Lobby(FAST) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("o")
            assert "operator" not in screen_text(app)


async def test_the_online_panel_grows_as_players_arrive_after_the_lobby_is_drawn() -> None:
    # The panel kept the height of its first drawing: later arrivals were counted in
    # "Online (n)" but their names were cut off.
    async with Lobby(FAST) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "• ann (you)" in screen_text(app), "the lobby")
            others = [await lobby.connect(name) for name in ("bob", "cy", "dee")]
            await wait_for(pilot, lambda: "Online (4)" in screen_text(app), "the arrivals")
            await pilot.pause()
            assert all(f"• {name}" in screen_text(app) for name in ("bob", "cy", "dee"))
            for other in others:
                await other.close()


async def test_a_lobby_update_makes_again_only_the_rows_of_tables_that_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Every lobby on the server redraws at each change of any table: it laid out every
    # row again, a few milliseconds with a hundred tables listed, for one that changed.
    from dataclasses import replace

    from moon_tui.lobby.messages import LobbyUpdate, SeatInfo, TableInfo
    from moon_tui.ui import lobby_screen

    made: list[str] = []
    table_row = lobby_screen.table_row

    def counted(info: TableInfo, rules_width: int = 18, seats_width: int = 19,
                operators: tuple[str, ...] = ()) -> tuple[str, ...]:
        made.append(info.table_id)
        return table_row(info, rules_width, seats_width, operators)

    monkeypatch.setattr(lobby_screen, "table_row", counted)
    tables = [TableInfo(f"t{i}", f"table {i}", "bob", Rules.make(), (SeatInfo("bob"),
                        SeatInfo(None, "normal"), SeatInfo()), "waiting", False, True, (), None)
              for i in range(40)]
    async with Lobby(FAST) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "• ann (you)" in screen_text(app), "the lobby")
            online, places = ("ann", "bob"), (("idle", None), ("idle", None))
            app.take(LobbyUpdate(tuple(tables), online, places))
            await pilot.pause()
            assert len(made) == 40
            made.clear()
            tables[1] = replace(tables[1], seats=(SeatInfo("bob"), SeatInfo("cy"), SeatInfo()))
            app.take(LobbyUpdate(tuple(tables), online, places))
            await pilot.pause()
            assert made == ["t1"]
            row = next(line for line in screen_text(app).splitlines() if " table 1 " in line)
            assert "bob, cy " in row


async def test_alone_there_is_no_chat_and_q_quits_or_starts_a_new_game() -> None:
    """Issue 13, item 10: `moon` has no lobby: q asks, then quits or deals a new game."""
    from moon_tui.ui.chat import ChatPanel
    from moon_tui.ui.dialogs import EndLocalGameScreen

    app = LocalMoonApp("ann", Rules.make(), level="random", config=FAST, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the table")
        first = app.current_table
        assert not app.screen.query_one(ChatPanel).display
        assert "chat" not in screen_text(app)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, EndLocalGameScreen), "the question")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "back at the table")
        await pilot.press("q", "n")
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen) and
                       app.current_table not in (None, first) and
                       current_view(app) is not None, "a new game")
        assert not isinstance(app.screen, LobbyScreen)
        await pilot.press("q", "q")
        await wait_for(pilot, lambda: not app.is_running, "the end of moon")


async def test_local_experts_think_in_workers_and_quitting_leaves_none() -> None:
    import os

    from test_ui_support import take_turn

    app = LocalMoonApp("ann", Rules.make(), level="expert", config=FAST, seed=4)
    workers: set[int] = set()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the table")
        for _ in range(60):
            workers.update(app.lobby.bots.pids())
            if workers:
                break
            if my_turn(app):
                await take_turn(pilot, app)
            else:
                await pilot.pause(0.02)
        assert workers, "an expert decided in a worker"
        await pilot.press("q", "q")
        await wait_for(pilot, lambda: not app.is_running, "the end of moon")
    assert app.lobby.bots.pids() == []
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_the_help_of_a_game_alone_lists_only_the_table_s_keys() -> None:
    # `moon`'s help listed the lobby's and the waiting room's keys, which a game alone
    # never shows, and the arrows as rows "←  ←" and "→  →".
    app = LocalMoonApp("ann", Rules.make(), level="random", config=FAST, seed=9)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the table")
        await pilot.press("question_mark")
        from textual.widgets import Static

        from moon_tui.ui.help import HelpScreen

        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        keys = next(str(s.render()) for s in app.screen.query(Static)
                    if str(s.render()).startswith("\nKeys"))
        assert "At the table" in keys and "Lobby" not in keys and "Waiting room" not in keys
        assert "← →        move the cursor" in keys and "←          ←" not in keys
        assert "chat" not in keys and "new table" not in keys
