"""The table's text panels as pure functions of a view: what fits where (issue 13)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest

from moon_tui.lobby.messages import Act, CreateTable, SeatInfo, TableInfo
from moon_tui.rules import Action, GameState, Phase, Rules
from moon_tui.ui.lobby_screen import seats_cell
from moon_tui.ui.table_text import centre_panel, seats_panel, summary, trick_lines
from moon_tui.ui.words import NAME_WIDTH, NAME_WIDTH_NARROW, fit, score_words, trump_clause

LONG = "bob-the-builder1"  # 16 characters, the longest name an account may have


def table(rules: Rules, *seats: SeatInfo, turn_seconds: int | None = None) -> TableInfo:
    return TableInfo("t1", "club table", "ann", rules, tuple(seats), "playing", False, True,
                     (), turn_seconds)


def played(rules: Rules, steps: int, seed: int = 3) -> GameState:
    """A game after `steps` decisions (always the first legal one, but a bid of the
    lowest amount where one may be made)."""
    state = GameState.new_game(rules, random.Random(seed))
    for _ in range(steps):
        legal = state.legal_actions()
        bids = [a for a in legal if a.kind == "bid"]
        state.apply_action(bids[0] if bids and state.phase is Phase.BID else legal[0])
    return state


def lines(text: object) -> list[str]:
    return str(text).split("\n")


def test_every_name_is_whole_at_100_columns_and_cut_on_purpose_below() -> None:
    assert fit(LONG, NAME_WIDTH) == LONG
    assert fit(LONG, NAME_WIDTH_NARROW) == "bob-the-b…"
    assert len(fit(LONG, NAME_WIDTH_NARROW)) == NAME_WIDTH_NARROW


def test_seat_lines_fit_their_panel_and_never_cut_a_word() -> None:
    rules = Rules.make(players=4)
    info = table(rules, SeatInfo(LONG), SeatInfo("guest-4230", away=True, stood_in=True),
                 SeatInfo(bot_level="expert"), SeatInfo("cat"), turn_seconds=60)
    state = played(rules, 6)  # into the play, each seat has bid
    view = state.view(0)
    for width, names in ((29, NAME_WIDTH_NARROW), (36, NAME_WIDTH)):
        for seat in range(4):
            for seconds in (None, 57, 120):
                text = seats_panel(state.view(seat), info, seconds, width, names)
                for line in lines(text):
                    assert len(line) <= width, (width, line)
                    assert "…" not in line or LONG[:names - 1] + "…" in line, line
    text = str(seats_panel(view, info, 57, 36, NAME_WIDTH))
    assert LONG in text and "away: computer playing" in text
    assert "team A" in text and "team B" in text
    waited = replace(info, seats=(info.seats[0], SeatInfo("guest-4230", away=True),
                                  *info.seats[2:]))
    text = str(seats_panel(view, waited, 57, 36, NAME_WIDTH))
    assert "(away)" in text and "computer playing" not in text, \
        "no computer has played for them: their turns still wait"


def test_the_trick_shows_each_name_with_its_tile() -> None:
    rules = Rules.make()
    info = table(rules, SeatInfo("guest-4230"), SeatInfo(LONG), SeatInfo("cat"))
    state = played(rules, 4)
    while state.phase is not Phase.PLAY:
        state.apply_action(state.legal_actions()[0])
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    view = state.view(0)
    trick = view.last_trick or view.current_trick
    assert trick is not None
    text = trick_lines(trick, view, info, "Trick 1", NAME_WIDTH_NARROW)
    for line in lines(text)[1:]:
        assert "[" in line and "]" in line, line
        assert len(line) <= 22  # the centre panel's room at 80 columns
    assert any(line.startswith("guest-4230 [") for line in lines(text))


def test_the_lobby_names_who_sits_without_cutting_a_name() -> None:
    rules = Rules.make(players=4)
    info = table(rules, SeatInfo("ann"), SeatInfo("bob"), SeatInfo(bot_level="normal"),
                 SeatInfo(bot_level="normal"))
    assert seats_cell(info, 40) == "ann, bob, 2 bots, normal"
    assert seats_cell(info, 19) == "ann, bob, 2 bots"
    crowded = table(rules, SeatInfo(LONG), SeatInfo("guest-4230"), SeatInfo("cat"),
                    SeatInfo("dan"))
    assert seats_cell(crowded, 20) == f"{LONG}, +3"
    assert seats_cell(crowded, 19) == "4 players"
    assert seats_cell(crowded, 12) == "4 players"
    assert seats_cell(crowded, 40) == f"{LONG}, guest-4230, cat, dan"


# -- words (item 8) --------------------------------------------------------------------------
def test_scores_read_in_the_table_s_unit_and_number() -> None:
    points, marks = Rules.make(), Rules.make(scoring="marks")
    assert score_words(1, points) == "1 pt"
    assert score_words(5, points) == "5 pts"
    assert score_words(1, marks) == "1 mark"
    assert score_words(5, marks) == "5 marks"
    info = table(marks, SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cat"))
    text = str(seats_panel(played(marks, 2).view(0), info, None))
    assert "0 marks" in text and "pts" not in text


def test_no_trump_is_not_trump_no_trump() -> None:
    assert trump_clause(8) == "no trump"
    assert trump_clause(7) == "doubles trump"
    assert trump_clause(3) == "trump 3s"


def test_the_hand_is_not_over_while_its_last_trick_is_played() -> None:
    rules = Rules.make()
    info = table(rules, SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cat"))
    state = played(rules, 0)
    for _ in range(200):
        view = state.view(0)
        if state.phase is Phase.PLAY and not view.hand and view.to_move is not None:
            break
        legal = state.legal_actions()
        bids = [a for a in legal if a.kind == "bid"]
        state.apply_action(bids[0] if bids else legal[0])
    else:
        raise AssertionError("seat 0 never played its last tile before the others")
    text = str(summary(view, info, None))
    assert "is over" not in text
    assert "last trick" in text


async def test_the_last_tile_is_offered_in_words() -> None:
    """Not `1 tile 1` in the footer nor `(←→ Enter, or 1-1)` in the prompt."""
    from test_ui_snapshots import local, until
    from test_ui_support import current_view, screen_text

    app = local()()

    def last_tile(_: object) -> bool:
        view = current_view(app)
        return view is not None and view.my_turn and view.phase is Phase.PLAY \
            and len(view.hand) == 1

    async with app.run_test(size=(80, 24)) as pilot:
        await until(last_tile, "my last tile")(pilot)
        text = screen_text(app)
        assert "1 choose tile" in text and "tile 1" not in text
        assert "play your last tile" in text and "1-1" not in text


# -- guests and operators (item 9) -----------------------------------------------------------
def test_the_help_lists_only_keys_offered_to_this_player() -> None:
    from moon_tui.ui.help import keys_text

    player = str(keys_text(operator=False, keys=True))
    assert "operator" not in player and "keys" in player
    guest = str(keys_text(operator=False, keys=False))
    assert "operator" not in guest and "keys" not in guest
    assert "operator" in str(keys_text(operator=True, keys=True))
    club, alone = str(keys_text()), str(keys_text(solo=True))
    assert "r          rematch" in club and "q          leave" in club
    assert "h          a computer plays for an absent player now" in club
    assert "h          hint" in club
    assert "r          play again" in alone and "q          quit" in alone
    assert "rematch" not in alone


# -- table chat (item 2) ---------------------------------------------------------------------
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_a_long_table_chat_line_wraps(size: tuple[int, int]) -> None:
    from test_ui_snapshots import local, spectating
    from test_ui_support import screen_text, wait_for

    from moon_tui.lobby import SendChat

    app = local(table=False)()  # a table with others at it (alone, there is no chat)
    async with app.run_test(size=size) as pilot:
        await spectating(pilot)
        app.send(SendChat("bob you got disconnected just as you were bidding, the bot "
                          "took over", app.current_table))
        await wait_for(pilot, lambda: "took over" in screen_text(app), "the whole line")
        text = screen_text(app)
        assert "disconnected" in text and "bidding" in text


# -- the bid row (item 17) -------------------------------------------------------------------
async def test_arrows_and_enter_choose_a_bid() -> None:
    from test_ui_snapshots import local, phase_is, until
    from test_ui_support import current_view, screen_text, wait_for

    from moon_tui.rules import Action
    from moon_tui.ui.bars import ClickBar

    app = local()()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(phase_is(Phase.BID), "my bid")(pilot)
        view = current_view(app)
        assert view is not None
        bar = app.screen.query_one("#actions", ClickBar)
        assert bar.cursor == 0 and "▸" in screen_text(app)  # a visible cursor, on pass
        await pilot.press("right")
        assert bar.cursor == 1
        wanted = sorted((a for a in view.legal if a.kind != "pass"), key=lambda a: a.code)
        first_bid = Action.from_code(int(bar.items[1].ident[1:]))
        assert first_bid in wanted
        await pilot.press("enter")
        await wait_for(pilot, lambda: current_view(app) is not view, "an answer")
        mine = [action for seat, action in current_view(app).bids  # type: ignore[union-attr]
                if seat == view.seat]
        assert mine == [first_bid]


# -- calling the player (item 11) ------------------------------------------------------------
def test_a_chat_line_names_a_player_as_a_word() -> None:
    from moon_tui.app import names

    assert names("ann, your turn", "ann")
    assert names("over to ANN!", "ann")
    assert not names("annie is here", "ann")
    assert not names("guest-42 left", "guest-4")


async def test_the_bell_rings_on_my_turn_when_my_table_starts_and_when_chat_names_me() -> None:
    from test_ui_snapshots import local, until
    from test_ui_support import current_view, wait_for

    from moon_tui.lobby import AddBot, JoinSeat, SendChat, StartGame, TableUpdate

    app = local(table=False)()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.handle is not None, "the session")
        bob = await app.lobby.connect("bob")
        bob.send(SendChat("ann, are you in?"))
        await wait_for(pilot, lambda: "chat" in app.calls, "a call for the chat line")
        bob.send(SendChat("anyone?"))
        await wait_for(pilot, lambda: len(app.model.lobby_chat) == 2, "bob's second line")
        assert app.calls == ["chat"]
        bob.send(CreateTable("bob's table"))
        table_id = ""
        while not table_id:
            event = await bob.next_event()
            if isinstance(event, TableUpdate):
                table_id = event.table.table_id
        app.send(JoinSeat(table_id))
        await wait_for(pilot, lambda: app.current_table == table_id, "ann seated")
        bob.send(AddBot(table_id, 2, "random"))
        await wait_for(pilot, lambda: all(not s.is_free for s in
                                          app.model.tables[table_id].table.seats), "full")
        bob.send(StartGame(table_id))
        await wait_for(pilot, lambda: current_view(app) is not None, "the game")
        assert app.calls[-1] == "start"

        async def bob_plays() -> None:
            async for event in bob:
                if isinstance(event, TableUpdate) and event.view is not None and \
                        event.view.my_turn:
                    bob.send(Act(table_id, event.view.legal[0]))
        task = asyncio.create_task(bob_plays())
        try:
            def turn_after_others(_: object) -> bool:
                view = current_view(app)
                return "turn" in app.calls and view is not None and view.my_turn
            await until(turn_after_others, "my turn after the others'")(pilot)
            assert app.window_title == "Moon — your turn"
            await pilot.press("B")
            assert not app.bell_on
        finally:
            task.cancel()


# -- four around the table (item 15) ---------------------------------------------------------
def test_four_players_sit_around_the_table_partners_across() -> None:
    from moon_tui.ui.table_text import centre_panel

    rules = Rules.make(players=4)
    info = table(rules, SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cat"), SeatInfo("dan"))
    state = played(rules, 4)
    while state.phase is not Phase.PLAY:
        state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[0])
    for seat, (left, across, right) in {0: ("bob", "cat", "dan"),
                                        1: ("cat", "dan", "ann")}.items():
        me = "ann bob cat dan".split()[seat]
        rows = lines(centre_panel(state.view(seat), info, NAME_WIDTH, 35))
        top = next(i for i, row in enumerate(rows) if across in row)
        assert f"{across} (partner)" in rows[top]
        middle = next(row for row in rows if left in row and right in row)
        assert middle.index(left) < middle.index(right)
        assert rows.index(middle) > top
        bottom = next(i for i, row in enumerate(rows) if f"{me} (you)" in row)
        assert bottom > rows.index(middle)
        assert all(len(row) <= 35 for row in rows)
    # Without the room (80 columns) the trick stays a list.
    assert "(partner)" not in str(centre_panel(state.view(0), info, NAME_WIDTH_NARROW))


# -- what has been played (item 14) ----------------------------------------------------------
def test_what_has_been_played_by_suit_and_the_trumps_still_out() -> None:
    from moon_tui.rules import Tile
    from moon_tui.rules.tiles import tile_set
    from moon_tui.ui.table_text import played_panel

    rules = Rules.make()
    state = played(rules, 4)
    while state.phase is not Phase.PLAY:
        state.apply_action(state.legal_actions()[0])
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    view = state.view(0)
    text = str(played_panel(view))
    trump = view.trump
    assert trump is not None
    shown = {Tile.parse(f"{p[1]}-{p[3]}") for p in text.split() if p.startswith("[")}
    played_tiles = set(view.played_tiles())
    assert played_tiles <= shown
    if trump <= 6:
        out = [t for t in tile_set(rules.set) if t.has(trump) and t not in played_tiles
               and t not in view.hand and t != view.discard]
        assert f"still out: {len(out)} trump" in text
        assert {t for t in shown if t not in played_tiles} == set(out)


async def test_t_shows_what_has_been_played_and_120x40_always_does() -> None:
    from test_ui_snapshots import following, local, until
    from test_ui_support import screen_text, wait_for

    from moon_tui.ui.dialogs import PlayedScreen

    app = local()()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(following, "a trick under way")(pilot)
        assert "Played this hand" not in screen_text(app)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayedScreen), "the list")
        assert "still out" in screen_text(app)
    app = local()()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(following, "a trick under way")(pilot)
        assert "Played this hand" in screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_trumps_still_out_are_counted_at_every_size(size: tuple[int, int]) -> None:
    # The played-tiles aid showed only at 130x40; at the README's own 100x30 a player
    # had to count the trumps still out in their head (or press t).
    from test_ui_snapshots import following, local, until
    from test_ui_support import current_view, screen_text

    from moon_tui.ui.table_text import trumps_out

    app = local()()
    async with app.run_test(size=size) as pilot:
        await until(following, "a trick under way")(pilot)
        view = current_view(app)
        assert view is not None
        out = trumps_out(view)
        assert out is not None, "the scripted game names a trump"
        assert f"Trumps still out: {len(out)}" in screen_text(app)


# -- the rules in the help (item 20) ---------------------------------------------------------
def test_the_help_says_the_rules_of_the_table() -> None:
    from moon_tui.ui.help import rules_text

    default = rules_text(Rules.make())
    assert "22 tiles" in default and "the widow" in default
    assert "may be the widow itself" in default
    assert "first bidder moves one seat clockwise each hand" in default
    assert "belongs to both its numbers' suits" in default
    assert "A double that is not a trump belongs to its own number only" in default
    assert "no trump (in every suit the double is highest)" in default
    assert "the doubles (6-6 highest down to 0-0)" in default
    assert "First to 21 points" in default and "made moon wins the game" in default
    assert "face down: only the declarer sees it" in default
    no_blank = rules_text(Rules.make(set="moon21"))
    assert "no widow" in no_blank and "The widow:" not in no_blank
    # moon21 has no 0 (issue 31): no trump 0, no 0-0 among the doubles.
    assert "a number 1-6" in no_blank and "down to 1-1" in no_blank
    assert "0-0" not in no_blank.replace("except 0-0", "")
    shown = rules_text(Rules.make(discard_shown=True))
    assert "face up: every seat sees it" in shown and "away face down" not in shown
    four = rules_text(Rules.make(players=4, team_scoring="bid"))
    assert "the declarer's team makes the bid" in four
    assert "the declarer makes the bid" not in four
    assert "partners sit opposite" in four and "28 tiles" in four
    assert "scores the bid (a made moon: 21)" in four
    assert "scores the tricks the team took" in rules_text(Rules.make(players=4))
    marks = rules_text(Rules.make(scoring="marks"))
    assert "a mark" in marks and "First to 7 marks" in marks
    custom = rules_text(Rules.make(all_pass="force_last", trump_before_widow=True,
                                   tie_break="declarer", doubles_trump=False,
                                   no_trump=False, min_bid=3, moon_wins_game=False))
    assert "must bid" in custom and "names trump first, then takes the widow" in custom
    assert "wins even when tied or behind" in custom
    assert "doubles (6-6" not in custom and "no trump (" not in custom
    assert "from 3 to 7 tricks" in custom and "wins the game at once" not in custom


async def test_the_help_at_a_table_shows_its_rules() -> None:
    from test_ui_snapshots import local, phase_is, until
    from test_ui_support import screen_text, wait_for

    from moon_tui.ui.help import HelpScreen

    app = local(rules=Rules.make(min_bid=5))()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(phase_is(Phase.BID), "my bid")(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        text = screen_text(app)
        assert "The rules of this table" in text and "from 5 to 7" in text


async def test_the_bell_rings_when_my_turn_timer_runs_low() -> None:
    from test_ui_support import wait_for

    from moon_tui.lobby import LobbyConfig
    from moon_tui.local import LocalMoonApp

    app = LocalMoonApp("ann", Rules.make(), level="random", seed=4, turn_seconds=10,
                       config=LobbyConfig(bot_delay=0.0, hand_pause=0.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "timer" in app.calls, "the warning's bell")


def test_only_the_heading_of_the_centre_panel_is_bold() -> None:
    # A heading made as Text("...", style="bold") set the style of the whole text: the
    # auction, the trick, a hand's result were all bold.
    from moon_tui.ui.table_text import centre_panel

    rules = Rules.make(players=3)
    info = table(rules, SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cat"))
    for steps in (1, 8, 12):  # the auction, the trump, the first trick
        text = centre_panel(played(rules, steps).view(0), info, NAME_WIDTH_NARROW)
        assert "bold" not in str(text.style), str(text)
        assert any(span.start == 0 and "bold" in str(span.style) for span in text.spans)


def test_bids_are_told_under_the_names_dealt_in_and_the_work_now_under_who_does_it() -> None:
    # bob bid, then left: a computer plays seat 2 now. His bid stays his; what is being
    # done now (naming trump, playing) is the computer's.
    rules = Rules.make()
    now = table(rules, SeatInfo("ann"), SeatInfo(None, "normal"), SeatInfo("cy"))
    dealt = table(rules, SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cy"))
    state = GameState.new_game(rules, random.Random(3))
    seen_in_the_auction = False
    while state.phase is Phase.BID:
        seat = state.current_player()
        bids = [a for a in state.legal_actions() if a.kind == "bid"]
        state.apply_action(bids[0] if seat == 1 and bids else Action.make_pass())
        if state.phase is Phase.BID and any(s == 1 for s, _ in state.view(0).bids):
            text = str(centre_panel(state.view(0), now, NAME_WIDTH, None, None, dealt))
            assert "\n2. bob bid 4" in text and "Bot 2" not in text, text
            seen_in_the_auction = True
    assert seen_in_the_auction
    assert state.phase is Phase.DISCARD and state.view(0).declarer == 1
    text = str(centre_panel(state.view(0), now, NAME_WIDTH, None, None, dealt))
    assert text.startswith("bob bid 4"), text
    assert "Bot 2 takes the widow and discards one tile." in text
    state.apply_action(state.legal_actions()[0])
    assert state.phase is Phase.TRUMP
    text = str(centre_panel(state.view(0), now, NAME_WIDTH, None, None, dealt))
    assert text.startswith("bob bid 4"), text
    assert "Bot 2 is naming trump." in text
    assert "bob bid 4" in text.split("Bidding:")[1] and "Bot 2 bid" not in text
    # Without the seating at the deal (as before a game knows it), the seat as it is now.
    assert str(centre_panel(state.view(0), now)).startswith("Bot 2 bid 4")


def test_the_auction_shows_the_order_of_speaking_from_the_first_bidder() -> None:
    # Only the bids so far and a marker on the player to speak were shown: nobody could
    # tell who speaks after them, or who is last. The first bidder moves each hand.
    rules = Rules.make(players=4)
    info = table(rules, SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cy"), SeatInfo("di"))
    names = ["ann", "bob", "cy", "di"]
    for seed in range(4):
        state = GameState.new_game(rules, random.Random(seed))
        first = state.view(0).first_bidder
        order = [names[(first + place) % 4] for place in range(4)]
        text = str(centre_panel(state.view(2), info))
        listed = [line.split(". ", 1)[1].split(" ")[0] for line in text.split("\n")[1:5]]
        assert listed == order, text
        assert f"1. {order[0]}" in text and text.split("\n")[1].endswith("▶")
        last = text.split("\n")[4]
        assert last.endswith(" (you, last)" if order[3] == "cy" else " (last)"), text
        assert "cy (you" in text
        state.apply_action(Action.make_pass())
        text = str(centre_panel(state.view(2), info))
        assert f"1. {order[0]}{' (you)' if order[0] == 'cy' else ''} passed" in text, text
        second = text.split("\n")[2]
        assert second.startswith(f"2. {order[1]}") and second.endswith("▶"), text


def test_the_first_bidder_moves_one_seat_each_hand() -> None:
    rules = Rules.make(players=3)
    state = played(rules, 0)
    first = state.view(0).first_bidder
    while state.view(0).hand_number == 0:
        if state.phase is Phase.DEAL:
            state.deal(random.Random(5))
            continue
        legal = state.legal_actions()
        bids = [a for a in legal if a.kind == "bid"]
        state.apply_action(bids[0] if bids and state.phase is Phase.BID else legal[0])
    assert state.view(0).first_bidder == (first + 1) % 3
    info = table(rules, SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cy"))
    text = str(centre_panel(state.view(0), info))
    assert f"1. {['ann', 'bob', 'cy'][(first + 1) % 3]}" in text, text
