"""Whole flows through the interface, against a real in-process lobby (no mocks)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from test_ui_support import FAST, current_view, my_turn, screen_text, take_turn, wait_for
from textual.widgets import Input

from moon_tui.app import MoonApp
from moon_tui.lobby import Lobby, SendChat
from moon_tui.rules import Phase
from moon_tui.services import AccountRefusal, AccountRefused, KeyFacts, LinkCode
from moon_tui.ui.create import CreateTableScreen
from moon_tui.ui.fields import LABEL_WIDTH
from moon_tui.ui.game import GameScreen
from moon_tui.ui.hand import HandView
from moon_tui.ui.keys import KeysScreen
from moon_tui.ui.lobby_screen import LobbyScreen
from moon_tui.ui.waiting import WaitingScreen


async def open_the_form(pilot, app: MoonApp) -> None:  # type: ignore[no-untyped-def]
    """From the lobby to the new-table form."""
    await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen), "the form")


async def open_waiting_room(pilot, app: MoonApp) -> None:  # type: ignore[no-untyped-def]
    """From the lobby to a new table's waiting room, with the form's defaults."""
    await open_the_form(pilot, app)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the room")


async def open_table_with_two_bots(pilot, app: MoonApp) -> None:  # type: ignore[no-untyped-def]
    await open_waiting_room(pilot, app)
    await pilot.press("v")  # normal -> expert
    await pilot.press("v")  # expert -> easy
    await pilot.press("b", "b")
    table_id = app.current_table
    assert table_id is not None
    await wait_for(pilot, lambda: all(not s.is_free for s in app.model.tables[table_id]
                                      .table.seats), "two computer players")
    await pilot.press("x")  # the owner takes one away again, and puts it back
    await wait_for(pilot, lambda: app.model.tables[table_id].table.seats[2].is_free,
                   "a free seat")
    await pilot.press("b")
    await wait_for(pilot, lambda: all(not s.is_free for s in app.model.tables[table_id]
                                      .table.seats), "two computer players")
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the table")


async def test_create_table_bid_discard_trump_play_a_hand_and_the_next() -> None:
    async with Lobby(FAST, seed=7) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table_with_two_bots(pilot, app)
            table = app.model.tables[app.current_table or ""].table
            assert [s.bot_level for s in table.seats[1:]] == ["easy", "easy"]
            assert "Bot 2 (computer, easy)" in screen_text(app)

            did: set[Phase] = set()
            declared_hand: int | None = None
            for _ in range(200):
                await wait_for(pilot, lambda hand=declared_hand: my_turn(app) or  # type: ignore[misc]
                               _after(app, hand), "my turn")
                if _after(app, declared_hand):
                    break
                view = current_view(app)
                assert view is not None
                if view.phase is Phase.BID:
                    assert "Your bid" in screen_text(app)
                if view.phase is Phase.DISCARD:
                    assert view.widow is not None and len(view.hand) == 8
                    assert " W─" in screen_text(app)  # the widow is marked in the hand
                    declared_hand = view.hand_number
                if view.phase is Phase.TRUMP:
                    assert "Name trump" in screen_text(app)
                did.add(view.phase)
                await take_turn(pilot, app)
            assert {Phase.BID, Phase.DISCARD, Phase.TRUMP, Phase.PLAY} <= did
            view = current_view(app)
            assert view is not None and declared_hand is not None
            result = view.results[declared_hand]
            assert result.declarer == 0 and result.made is not None
            # the next hand is on, and its bidding panel recalls the last one
            assert view.hand_number > declared_hand
            await pilot.press("s")
            sheet = screen_text(app)
            assert "Score sheet" in sheet and ("made" in sheet or "set" in sheet)
            await pilot.press("escape", "q")
            assert "Press q again" in screen_text(app)  # leaving mid-game asks first
            assert "✗" not in screen_text(app)  # a question, not a refusal
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


def _after(app: MoonApp, hand: int | None) -> bool:
    """True once the hand we declared is scored and a later hand has been dealt."""
    view = current_view(app)
    return (hand is not None and view is not None and len(view.results) > hand
            and view.hand_number > hand and view.phase is not Phase.DEAL)


async def test_the_question_before_leaving_stays_while_the_turn_moves_on() -> None:
    # It went with the first move after the q, a computer's bid a moment later at a
    # table of computers: the player hardly saw it, though a second q still left.
    async with Lobby(replace(FAST, bot_delay=0.5), seed=11) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table_with_two_bots(pilot, app)
            if my_turn(app):
                await pilot.press("p")  # the computers bid next
            await wait_for(pilot, lambda: not my_turn(app), "a computer's turn")
            view = current_view(app)
            assert view is not None and view.phase is Phase.BID
            await pilot.press("q")
            assert "Press q again" in screen_text(app)
            await wait_for(pilot, lambda: len(current_view(app).bids) > len(view.bids),  # type: ignore[union-attr]
                           "a computer's bid")
            assert "Press q again" in screen_text(app)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


async def test_a_move_of_ones_own_after_q_answers_the_question() -> None:
    # The player chose to play on: a second q a moment later asks again, it does not
    # leave at once (it did, within the 3 s the first q armed).
    async with Lobby(FAST, seed=11) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table_with_two_bots(pilot, app)
            await wait_for(pilot, lambda: my_turn(app), "my turn")
            view = current_view(app)
            assert view is not None and view.phase is Phase.BID
            await pilot.press("q")
            assert "Press q again" in screen_text(app)
            await pilot.press("p")
            await wait_for(pilot, lambda: len(current_view(app).bids) > len(view.bids),  # type: ignore[union-attr]
                           "my bid")
            assert "Press q again" not in screen_text(app)
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            assert "Press q again" in screen_text(app)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


async def test_an_illegal_play_is_explained() -> None:
    async with Lobby(FAST, seed=11) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table_with_two_bots(pilot, app)
            every_tile_legal_seen = False
            for _ in range(300):
                await wait_for(pilot, lambda: my_turn(app), "my turn")
                view = current_view(app)
                assert view is not None
                if view.phase is Phase.PLAY:
                    playable = {a.tile for a in view.legal}
                    barred = [i for i, t in enumerate(view.hand) if t not in playable]
                    # The prompt names dashed tiles only when some are drawn so.
                    dashed = "Dashed tiles may not be played" in screen_text(app)
                    assert dashed == bool(barred), screen_text(app)
                    if not barred and len(view.hand) > 1:
                        every_tile_legal_seen = True
                    elif barred and every_tile_legal_seen:
                        # drawn dashed, without its digit
                        assert "┆" in screen_text(app)
                        hand = app.screen.query_one(HandView)
                        cursor = hand.cursor
                        assert cursor is not None and view.hand[cursor] in playable
                        await pilot.press(str(barred[0] + 1))
                        await wait_for(pilot, lambda: "must follow" in screen_text(app),
                                       "the explanation")
                        text = screen_text(app)
                        assert "✗ You must follow" in text
                        assert current_view(app) == view  # nothing was played
                        # The cursor stayed on a tile that may be played: Enter plays it.
                        assert hand.cursor == cursor
                        await pilot.press("enter")
                        await wait_for(pilot, lambda seen=view: current_view(app) != seen,
                                       "a play")
                        after = current_view(app)
                        assert after is not None
                        assert view.hand[cursor] not in after.hand
                        return
                await take_turn(pilot, app, bid=None)
            raise AssertionError("never had a tile that could not be played, after a turn "
                                 "where every tile could")


async def test_table_chat_both_ways() -> None:
    async with Lobby(FAST, seed=5) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table_with_two_bots(pilot, app)
            table_id = app.current_table
            assert table_id is not None
            await pilot.press("c", *"hi all", "enter")
            await wait_for(pilot, lambda: "ann: hi all" in screen_text(app), "my line")
            bob = await lobby.connect("bob")
            bob.send(SendChat("watching you, ann", None))
            await pilot.press("escape")
            await wait_for(pilot, lambda: any(line.sender == "bob"
                                              for line in app.model.lobby_chat),
                           "bob's lobby line")
            await bob.close()


async def test_the_footer_says_what_enter_and_esc_do_while_chatting() -> None:
    """The chat's line takes the letter keys, so the footer showed none: a player who
    pressed Tab or c by mistake saw their keys typed into the chat and no way out."""
    async with Lobby(FAST, seed=5) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            footer = lambda: screen_text(app).splitlines()[-1]  # noqa: E731
            await pilot.press("c")
            await wait_for(pilot, lambda: "⏎ send  esc leave the chat" in footer(), "chat keys")
            assert "n new table" not in footer()
            await pilot.press("escape")
            await wait_for(pilot, lambda: "n new table" in footer(), "the lobby's keys")
            assert not isinstance(app.focused, Input)

            await open_table_with_two_bots(pilot, app)
            await pilot.press("c", *"s?")
            await wait_for(pilot, lambda: "⏎ send  esc leave the chat" in footer(), "chat keys")
            await pilot.press("escape")
            await wait_for(pilot, lambda: "s scores" in footer(), "the table's keys")
            assert isinstance(app.focused, HandView)
            await pilot.press("c")  # what was typed waits in the line
            await wait_for(pilot, lambda: isinstance(app.focused, Input), "the chat")
            assert app.screen.query_one(Input).value == "s?"


async def test_the_new_table_form_changes_choices_with_keys_and_clicks() -> None:
    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_the_form(pilot, app)
            assert "‹ 3, each for themselves ›" in screen_text(app)
            await pilot.press("tab", "right")  # players: 3 -> 4
            await wait_for(pilot, lambda: "‹ 4, two teams ›" in screen_text(app), "4 players")
            # (A choice of the form draws its label first: LABEL_WIDTH and a space.)
            await pilot.click("#min_bid", offset=(LABEL_WIDTH + 1, 0))  # ‹ steps back: 4 -> 3
            await pilot.click("#timer", offset=(LABEL_WIDTH + 5, 0))  # the rest on: none -> 20 s
            await pilot.press("right", "left", "left", "left")  # 30 s, 20 s, none, round to 120 s
            # The 3-player boxes are hidden: past "A made moon" to forbid doubles as trump.
            await pilot.press("tab", "tab", "space")
            await pilot.click("#spectators")
            await wait_for(pilot, lambda: "[ ] Spectators may watch" in screen_text(app), "x")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the room")
            table = app.model.tables[app.current_table or ""].table
            assert (table.rules.players, table.rules.min_bid, table.turn_seconds) == (4, 3, 120)
            assert not table.rules.doubles_trump and not table.spectators_allowed


async def test_opening_the_new_table_form_styles_each_widget_once() -> None:
    # Styling is most of what opening a screen costs the server. The form once styled
    # most of its widgets three times: a focusable scroll container took the focus first
    # (restyling everything in it), and each drop-down restyled its parts as it set up.
    from textual.css.stylesheet import Stylesheet
    from textual.widget import Widget

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            styled: list[object] = []
            original = Stylesheet.apply

            def counting(self: Stylesheet, node: object, *args: object, **kwargs: object) -> None:
                if getattr(node, "_parent", None) is not None:  # in the DOM (see patches.py)
                    styled.append(node)
                original(self, node, *args, **kwargs)  # type: ignore[arg-type]

            Stylesheet.apply = counting  # type: ignore[method-assign]
            try:
                await pilot.press("n")
                await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen), "form")
                await pilot.pause()  # every pending message handled: restyles done
            finally:
                Stylesheet.apply = original  # type: ignore[method-assign]
            widgets = [n for n in styled if isinstance(n, Widget)]
            assert len(set(widgets)) > 30
            again = {n for n in widgets if widgets.count(n) > 1}
            assert again <= {app.focused}, again  # only the name field, as it takes the focus


async def test_the_waiting_room_cursor_picks_the_seat_for_a_computer_player() -> None:
    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_waiting_room(pilot, app)
            await pilot.press("down", "down", "down", "b")  # the cursor stops on seat 3
            table_id = app.current_table or ""
            await wait_for(pilot, lambda: app.model.tables[table_id].table.seats[2].is_bot,
                           "a computer player in seat 3")
            assert app.model.tables[table_id].table.seats[1].is_free
            assert "Seat 3  Bot 3" in screen_text(app)


class CodeKeys:
    """A `KeyManager` that makes one code, then refuses (quoting a name with brackets)."""

    def __init__(self) -> None:
        self.made = 0

    async def list_keys(self) -> list[KeyFacts]:
        return [KeyFacts(p, "ssh-ed25519", "", time.time() - 60, None, current=p.endswith("t"))
                for p in ["SHA256:first"] + ["SHA256:second"] * min(self.made, 1)]

    async def remove_key(self, fingerprint: str) -> None:
        raise AccountRefused(AccountRefusal.ONLY_KEY)

    async def new_link_code(self) -> LinkCode:
        self.made += 1
        if self.made > 1:
            raise AccountRefused(AccountRefusal.NAME_INVALID, "[b]now[/b]")
        return LinkCode("ABCD-EFGH", 10, "ssh -p 2222 ann@this-server")


async def test_the_keys_dialog_shows_a_code_and_no_way_to_paste_a_key() -> None:
    async with Lobby(FAST, seed=7) as lobby:
        keys = CodeKeys()
        app = MoonApp(lobby, "ann", keys=keys)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("k")
            await wait_for(pilot, lambda: isinstance(app.screen, KeysScreen), "the dialog")
            await wait_for(pilot, lambda: "SHA256:first" in screen_text(app), "the list")
            assert not app.screen.query(Input)
            await pilot.press("a")
            await wait_for(pilot, lambda: "Your code: ABCD-EFGH" in screen_text(app), "a code")
            assert "ssh -p 2222 ann@this-server" in screen_text(app)
            await pilot.press("a")
            await wait_for(pilot, lambda: "✗ '[b]now[/b]' is not a valid player name"
                           in screen_text(app), "the refusal, as plain text")


async def test_two_quick_add_bot_keys_fill_two_seats() -> None:
    """`b b` typed faster than the lobby answers: the second asks for the next free seat,
    not again for the one the first asked for (which the lobby would refuse)."""
    async with Lobby(FAST, seed=7) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_waiting_room(pilot, app)
            room = app.screen
            assert isinstance(room, WaitingScreen)
            room.action_add_bot()
            room.action_add_bot()  # before any answer from the lobby
            table_id = app.current_table or ""
            await wait_for(pilot, lambda: all(not s.is_free for s in app.model.tables[table_id]
                                              .table.seats), "two computer players")


async def test_the_form_shows_only_the_options_of_the_game_chosen() -> None:
    # With 4 players the 3-player boxes stayed shown and tickable: a 4-player table could
    # be made with its discard "face up" though 4 players have no widow.
    from moon_tui.lobby import CreateTable
    from moon_tui.rules import Rules
    from moon_tui.ui.fields import Flag

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_the_form(pilot, app)
            form = app.screen
            assert isinstance(form, CreateTableScreen)

            def shown(key: str) -> bool:
                return form.query_one(f"#{key}").display

            assert shown("no00") and shown("discard_shown") and shown("trump_before_widow")
            assert not shown("team_scoring")  # its label is part of it
            form.query_one("#discard_shown", Flag).action_flip()
            form.query_one("#no00", Flag).action_flip()  # no 0-0: no widow
            await pilot.pause()
            assert not shown("discard_shown") and not shown("trump_before_widow")
            assert form.rules().set == "moon21" and not form.rules().discard_shown
            form.query_one("#no00", Flag).action_flip()
            await pilot.pause()
            assert shown("discard_shown") and form.rules().discard_shown
            form.query_one("#players").action_step(1)  # type: ignore[attr-defined]
            await pilot.pause()
            assert not shown("no00") and not shown("discard_shown") and shown("team_scoring")
            command = form.command()
            assert isinstance(command, CreateTable)
            assert command.rules == Rules.make(players=4)


@pytest.mark.parametrize("typed", ["-", "0", "1001"])
async def test_a_target_out_of_bounds_is_said_in_the_forms_words(typed: str) -> None:
    # "-" showed Python's own words (invalid literal for int() with base 10), and "0" the
    # rules' ("target must be a whole number...", for a command line).
    from moon_tui.ui.create import CreateTableScreen

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_the_form(pilot, app)
            app.screen.query_one("#target", Input).focus()
            await pilot.press(*typed, "ctrl+s")
            await wait_for(pilot, lambda: "✗ the target is a whole number from 1 to 1000"
                           in screen_text(app), "the form's words")
            assert isinstance(app.screen, CreateTableScreen), "no table made"


async def test_a_public_table_is_rated_unless_its_owner_says_no() -> None:
    from moon_tui.ui.create import RATED
    from moon_tui.ui.fields import Flag

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_the_form(pilot, app)
            form = app.screen
            assert isinstance(form, CreateTableScreen)
            assert form.command().rated and "leaves early ranks last" in RATED
            form.query_one("#private", Flag).action_flip()
            await pilot.pause()
            assert form.command().private and not form.command().rated
            form.query_one("#rated", Flag).action_flip()  # friends may rate theirs
            await pilot.pause()
            assert form.command().rated
            form.query_one("#private", Flag).action_flip()
            await pilot.pause()
            assert form.command().rated and not form.command().private
            form.query_one("#rated", Flag).action_flip()
            await pilot.pause()
            assert not form.command().rated


async def test_the_form_names_a_table_as_no_other_is_named() -> None:
    from moon_tui.lobby import CreateTable, LobbyUpdate
    from moon_tui.rules import Rules

    async with Lobby(FAST, seed=3) as lobby:
        bob = MoonApp(lobby, "bob")
        app = MoonApp(lobby, "ann")
        async with bob.run_test(size=(80, 24)) as bob_pilot, \
                app.run_test(size=(80, 24)) as pilot:
            await wait_for(bob_pilot, lambda: isinstance(bob.screen, LobbyScreen), "bob's lobby")
            bob.send(CreateTable("ann's table", Rules.make()))

            def listed() -> int:
                update = app.model.lobby
                return len(update.tables) if isinstance(update, LobbyUpdate) else 0

            await wait_for(pilot, lambda: listed() == 1, "bob's table in ann's lobby")
            await open_the_form(pilot, app)
            assert app.screen.query_one("#name", Input).value == "ann's table 2"


async def test_a_footer_short_of_room_puts_its_keys_one_space_apart() -> None:
    # An operator's lobby with a table listed has more keys than fit in 80 columns two
    # spaces apart: one apart, they all fit (a lobby with games and ratings too is cut:
    # test_ui_ratings).
    from moon_tui.lobby import CreateTable
    from moon_tui.rules import Rules

    async with Lobby(FAST, seed=3) as lobby:
        bob = await lobby.connect("bob")
        bob.send(CreateTable("bob's table", Rules.make()))
        app = MoonApp(lobby, "ann", operator=True, keys=CodeKeys())
        async with app.run_test(size=(160, 24)) as pilot:
            await wait_for(pilot, lambda: "bob's table" in screen_text(app), "bob's table")
            await wait_for(pilot, lambda: "w watch" in screen_text(app), "the table's keys")
            wide = screen_text(app).splitlines()[-1]
            assert "o operator  ? help  q quit" in wide and "…" not in wide, wide
            await pilot.resize_terminal(80, 24)
            await wait_for(pilot, lambda: screen_text(app).splitlines()[-1] != wide[:80],
                           "the footer fitted")
            compact = screen_text(app).splitlines()[-1]
            assert compact.split() == wide.split(), (compact, wide)
            assert compact.startswith(" n new table j join w watch"), compact
        await bob.close()


async def test_the_owner_is_offered_the_computer_levels_of_players() -> None:
    from moon_tui.ui.fields import Choice

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_waiting_room(pilot, app)
            levels = [value for _, value in app.screen.query_one("#level", Choice).options]
            assert levels == ["easy", "normal", "expert"]


async def test_a_practice_table_is_never_rated_and_its_room_says_h_shows_hints() -> None:
    from moon_tui.bots.analysis import Analyst
    from moon_tui.ui.fields import Flag

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann", analyst=Analyst(lobby.bots))
        async with app.run_test(size=(100, 30)) as pilot:
            await open_the_form(pilot, app)
            form = app.screen
            assert isinstance(form, CreateTableScreen) and form.command().rated
            form.query_one("#practice", Flag).action_flip()
            await pilot.pause()
            assert form.command().practice and not form.command().rated
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen)
                           and "h shows hints" in screen_text(app), "the practice room")
            (table,) = lobby.tables()
            assert table.practice and not table.rated


async def test_every_option_of_the_form_is_read_to_its_end_at_80x24() -> None:
    # The practice option's label was longer than the form is wide: it was cut after
    # "h shows the", so "not rated, not saved" was never read.
    from moon_tui.bots.analysis import Analyst
    from moon_tui.ui.fields import Flag

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann", analyst=Analyst(lobby.bots))
        async with app.run_test(size=(80, 24)) as pilot:
            await open_the_form(pilot, app)
            flags = list(app.screen.query(Flag))  # every one shows at 3 players
            assert {"practice", "rated", "private"} <= {flag.id for flag in flags}
            for flag in flags:
                assert len(f"[ ] {flag.label}") <= flag.size.width, flag.label


async def test_a_place_gone_before_the_player_came_in_shows_the_lobby() -> None:
    """The door saw a place at a table (`to_table`) that went before the app connected:
    the lobby says the player sits nowhere, and the lobby is shown, not a blank screen."""
    async with Lobby(FAST, seed=7) as lobby:
        app = MoonApp(lobby, "ann", to_table=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert "ann (you) idle" in screen_text(app)


async def test_a_choice_of_the_form_draws_its_own_label() -> None:
    # Opening the form styles, lays out and draws each of its widgets (issue 36: four
    # guests opening forms at once held up everyone's keys): a choice and its label are
    # one widget. A click on the label does nothing, as on a `Label`; on the choice, it
    # changes it.
    from moon_tui.ui.fields import Choice

    async with Lobby(FAST, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_the_form(pilot, app)
            form = app.screen
            assert [label.render() for label in form.query("#create-grid Label")] == [
                "Name", "Target"]
            players = form.query_one("#players", Choice)
            assert "Players          ‹ 3, each for themselves ›" in screen_text(app)
            await pilot.click("#players", offset=(2, 0))
            await pilot.pause()
            assert players.value == 3 and app.focused is form.query_one("#name")
            await pilot.click("#players", offset=(LABEL_WIDTH + 1, 0))
            await wait_for(pilot, lambda: players.value == 4, "4 players")
            assert app.focused is players


async def test_a_lobby_that_is_not_running_is_told_in_the_players_words() -> None:
    """The lobby's exception text is for logs: the player reads the interface's words."""
    from moon_tui.app import JOIN_CLOSED, SessionOver

    app = MoonApp(Lobby(FAST), "ann")  # never started: connect raises LobbyClosed
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionOver), "the notice")
        shown = " ".join(screen_text(app).split())
        assert JOIN_CLOSED in shown and "lobby is not running" not in shown
