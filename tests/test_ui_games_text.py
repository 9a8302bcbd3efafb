"""Saved games as the list and the replay viewer word them (games_text, replay_text)."""

from __future__ import annotations

from moon_tui.rules import Rules
from moon_tui.services import GameEntry
from moon_tui.ui.games_text import PLAYERS_COLUMN, WIDTHS, players_cell


def entry(seats: tuple[str, ...], winner: int | None) -> GameEntry:
    return GameEntry(1, "5XX26Q", 0.0, winner is not None, seats, Rules.make(), 5,
                     (4, 23, 7), winner)


def test_a_winner_cut_to_fit_keeps_the_mark() -> None:
    # "alice, normal …, normal …": the cut took the winner's `*` with it.
    width = WIDTHS[PLAYERS_COLUMN]
    cell = players_cell(entry(("alexandrina_long", "bartholomew_long", "cy"), 1), width)
    assert len(cell) <= width
    first, second, third = cell.split(", ")
    assert first.startswith("alexan") and second.endswith("*") and third == "cy", cell


def test_computers_are_listed_as_their_table_called_them() -> None:
    # "cy, normal b…, normal b…*": two computers of one level, cut alike.
    assert players_cell(entry(("cy", "normal bot", "expert bot"), 2),
                        WIDTHS[PLAYERS_COLUMN]) == "cy, Bot 2, Bot 3*"


def test_names_that_fit_are_whole() -> None:
    assert players_cell(entry(("ann", "bob", "cy"), 0), 25) == "ann*, bob, cy"
    assert players_cell(entry(("ann", "bob", "cy"), None), 25) == "ann, bob, cy"


def test_the_viewer_tells_two_computers_of_one_level_apart() -> None:
    # A replay against two computers read "normal bot" for both, in the bids and tricks.
    from moon_tui.ui.games_text import told_apart
    from moon_tui.ui.replay_text import replay_table
    from moon_tui.ui.words import seat_detail, seat_name

    seats = ("alice", "normal bot", "normal bot")
    assert told_apart(seats) == ("alice", "Bot 2", "Bot 3")
    table = replay_table(entry(seats, 1))
    assert [seat_name(table, seat) for seat in range(3)] == ["alice", "Bot 2", "Bot 3"]
    assert seat_detail(table.seats[2]) == "computer, normal"
    assert told_apart(("ann", "bob", "expert bot", "ann")) == ("ann 1", "bob", "Bot 3", "ann 4")
