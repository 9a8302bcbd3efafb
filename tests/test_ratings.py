"""What a finished game means for the ratings (moon_tui/ratings/): who counts, in what
places, and how the ratings move."""

from __future__ import annotations

from typing import Any

import pytest

from moon_tui.ratings.game import GameResult, result_of
from moon_tui.ratings.model import NEWCOMER, Rating, rate
from moon_tui.rules import replay
from tests.support.games import finished_record


def scores_and_winner(record: dict[str, Any]) -> tuple[list[int], int]:
    replayed = replay(record)
    assert replayed["complete"]
    return replayed["scores"], replayed["winner"]


@pytest.mark.parametrize("seed", range(8))
def test_three_players_are_placed_by_the_result(seed: int) -> None:
    record = finished_record(["ann", "bob", "normal bot"], seed)
    result = result_of(record)
    assert result is not None and result.players == 3
    scores, winner = scores_and_winner(record)
    assert result.places[winner] == 1 and result.won == tuple(s == winner for s in range(3))
    others = [s for s in range(3) if s != winner]
    for a in others:
        for b in others:
            if scores[a] > scores[b]:
                assert result.places[a] < result.places[b]
            if scores[a] == scores[b]:
                assert result.places[a] == result.places[b]
            assert result.places[a] > 1


@pytest.mark.parametrize("seed", range(4))
def test_four_players_are_two_teams(seed: int) -> None:
    record = finished_record(["ann", "bob", "cid", "expert bot"], seed)
    result = result_of(record)
    assert result is not None and result.teams == ((0, 2), (1, 3))
    _, winner = scores_and_winner(record)
    assert result.places == tuple(1 if s % 2 == winner else 2 for s in range(4))


def test_games_that_do_not_count() -> None:
    names = ["ann", "bob", "easy bot"]
    assert result_of(finished_record(names, 1, rated=False)) is None
    assert result_of(finished_record(["ann", "easy bot", "easy bot"], 1)) is None
    unfinished = finished_record(names, 1)
    unfinished["hands"] = unfinished["hands"][:-1]
    assert result_of(unfinished) is None


def left(seat: int, name: str, why: str = "left") -> dict[str, Any]:
    return {"hand": 0, "at": 2, "seat": seat, "name": name, "computer": True, "why": why}


def back(seat: int, name: str) -> dict[str, Any]:
    return {"hand": 0, "at": 5, "seat": seat, "name": name, "computer": False, "why": "back"}


def test_a_player_who_left_is_placed_last_and_one_who_dropped_is_not() -> None:
    names = ["ann", "bob", "cid"]
    for seed in range(6):
        _, winner = scores_and_winner(finished_record(names, seed))
        gone = winner  # even the winning seat, played to the end by a computer
        result = result_of(finished_record(names, seed, seat_changes=[
            left(gone, "normal bot")]))
        assert result is not None
        assert result.places[gone] == max(result.places) > max(
            p for s, p in enumerate(result.places) if s != gone)
        assert not result.won[gone] and result.left[gone]
        dropped = result_of(finished_record(names, seed, seat_changes=[
            left(gone, "normal bot", "away"), back(gone, names[gone])]))
        assert dropped is not None and dropped.places[gone] == 1 and dropped.won[gone]
        kicked = result_of(finished_record(names, seed, seat_changes=[
            left(gone, "normal bot", "kicked")]))
        assert kicked is not None and kicked.left[gone]


def test_who_left_a_team_game_is_rated_apart_from_their_partner() -> None:
    record = finished_record(["ann", "bob", "cid", "dan"], 3,
                             seat_changes=[left(2, "normal bot")])
    result = result_of(record)
    assert result is not None
    assert result.teams == ((0,), (1, 3), (2,))
    assert result.places[2] == 3


def test_the_winner_gains_and_the_others_lose() -> None:
    record = finished_record(["ann", "bob", "cid"], 5)
    result = result_of(record)
    assert result is not None
    after = rate(result, [NEWCOMER] * 3)
    for seat in range(3):
        if result.places[seat] == 1:
            assert after[seat].mu > NEWCOMER.mu
        if result.places[seat] == 3:
            assert after[seat].mu < NEWCOMER.mu
        assert after[seat].sigma < NEWCOMER.sigma  # one game: surer than before


def test_one_computer_level_at_two_seats_is_one_rating() -> None:
    result = result_of(finished_record(["ann", "bob", "cid", "normal bot"], 1))
    assert result is not None
    two = GameResult(4, ("ann", "normal bot", "bob", "normal bot"), result.places,
                     result.won, result.left, result.deeds)
    after = rate(two, [NEWCOMER, Rating(30, 5), NEWCOMER, Rating(30, 5)])
    assert after[1] == after[3]


def test_deeds_add_up_to_the_replayed_hands() -> None:
    record = finished_record(["ann", "bob", "cid"], 2)
    result = result_of(record)
    assert result is not None
    hands = [h for h in replay(record)["hands"] if h["declarer"] is not None]
    for seat in range(3):
        deeds = result.deeds[seat]
        assert deeds.hands == len(hands)
        assert deeds.points == sum(h["points"][seat] for h in hands)
        mine = [h for h in hands if h["declarer"] == seat]
        assert deeds.bids_tried == len(mine)
        assert deeds.bids_made == sum(1 for h in mine if h["made"])
        assert sum(n for _, n in deeds.trumps) == len(mine)
