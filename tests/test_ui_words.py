"""Table rules and places in a player's words, whole, at every width (issue 30, item 8)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from moon_tui.lobby.messages import SeatInfo, TableInfo
from moon_tui.rules import Rules
from moon_tui.ui.lobby_screen import ONLINE_NAMES, online_text
from moon_tui.ui.words import house_rules, rules_cell, rules_line, watcher_names

RAW_KEY = re.compile(r"[a-z]+_[a-z]+|=")
"""An option as the code names it (`all_pass=force_last`, `team_scoring`)."""


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    players = draw(st.sampled_from((3, 4)))
    options: dict[str, object] = {
        "players": players,
        "min_bid": draw(st.sampled_from((3, 4, 5))),
        "all_pass": draw(st.sampled_from(("redeal", "force_last"))),
        "scoring": draw(st.sampled_from(("points", "marks"))),
        "team_scoring": draw(st.sampled_from(("tricks", "bid"))),
        "tie_break": draw(st.sampled_from(("continue", "declarer"))),
        "target": draw(st.integers(1, 1000)),
    }
    for flag in ("trump_before_widow", "moon_wins_game", "doubles_trump", "no_trump",
                 "discard_shown"):
        options[flag] = draw(st.booleans())
    if players == 3 and draw(st.booleans()):
        options["set"] = "moon21"
    return Rules.make(**options)


@given(any_rules(), st.integers(10, 60), st.sampled_from((None, 20, 120)))
def test_a_rules_cell_names_whole_house_rules_and_counts_the_rest(
        rules: Rules, width: int, timer: int | None) -> None:
    cell = rules_cell(rules, width, timer)
    house = house_rules(rules)
    parts = cell.split(", ")
    head, shown = parts[0], parts[1:]
    assert head.startswith(f"{rules.players}p to {rules.target}")
    more = 0
    if shown and shown[-1].startswith("+"):
        more = int(shown.pop().split(" ")[0][1:])
    elif " +" in head:
        head, count = head.rsplit(" +", 1)
        more = int(count)
    assert shown == house[:len(shown)] and len(shown) + more == len(house), cell
    assert len(cell) <= width or not shown, cell  # only the game itself may run over
    assert not RAW_KEY.search(cell), cell


@given(any_rules())
def test_the_waiting_room_says_every_option_in_words(rules: Rules) -> None:
    line = rules_line(rules)
    assert not RAW_KEY.search(line), line
    assert all(words in line for words in house_rules(rules))


def test_the_lobby_said_options_as_the_code_names_them() -> None:
    # Seen in the lobby at 130 columns: `4p marks to 7 all_` and in the waiting room
    # `all_pass=force_last team_scoring=bid tie_break=declarer`.
    rules = Rules.make(players=4, scoring="marks", all_pass="force_last",
                       team_scoring="bid", tie_break="declarer")
    assert rules_line(rules) == ("4 players to 7 marks; last must bid, team scores its bid, "
                                 "bidder goes out")
    assert rules_cell(rules, 18) == "4p to 7 marks +3"
    assert rules_cell(rules, 23) == "4p to 7 marks, +3 rules"
    assert rules_cell(rules, 70) == ("4p to 7 marks, last must bid, team scores its bid, "
                                     "bidder goes out")
    assert rules_cell(Rules.make(discard_shown=True), 18) == "3p to 21, +1 rule"


def _table(name: str) -> TableInfo:
    return TableInfo("t1", name, "ann", Rules.make(), (SeatInfo("ann"),), "playing",
                     False, True, (), None)


def test_a_place_that_does_not_fit_beside_a_name_goes_below_it_whole() -> None:
    # `ann at ann's tab…` at 80 columns.
    tables = (_table("ann's table"),)
    text = online_text(("ann", "bob"), "bob", (("seated", "t1"), ("idle", None)), tables, 18)
    assert text.plain.splitlines() == [
        "Online (2)", "• bob (you) idle", "• ann", "  at ann's table"]
    wide = online_text(("ann",), "bob", (("seated", "t1"),), tables, 34)
    assert wide.plain.splitlines() == ["Online (1)", "• ann at ann's table"]


def test_the_online_panel_counts_lines_not_names() -> None:
    tables = (_table("evening table"),)
    names = tuple(f"player{i}" for i in range(20))
    places = tuple(("seated", "t1") for _ in names)
    lines = online_text(names, "player0", places, tables, 20).plain.splitlines()
    assert len(lines) <= 1 + ONLINE_NAMES
    assert lines[-1] == f"… and {20 - 3} more", lines
    assert not any("…" in line for line in lines[1:-1]), lines


def test_a_spectator_a_restart_left_is_away_until_back() -> None:
    # After a restart a spectator who had not come back was listed as if watching.
    table = TableInfo("t1", "x", "ann", Rules.make(), (), "playing", False, True,
                      ("carol", "dave"), None, spectators_away=("carol",))
    assert watcher_names(table) == ["carol (away)", "dave"]
    assert watcher_names(table, 4) == ["car… (away)", "dave"]
