"""The moon/1 record and `moon-rules`: round trips, illegal and malformed records, exit codes."""

from __future__ import annotations

import copy
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moon_tui.rules import Action, GameState, Rules, Tile
from moon_tui.rules.cli import main, random_game, replay_command
from moon_tui.rules.record import (
    IllegalRecordError,
    RecordFormatError,
    dumps_record,
    game_from_record,
    parse_record,
    record_of,
)
from moon_tui.rules.replay import replay, replay_game
from moon_tui.rules.report import render_report

NAMES = ["alice", "bob", "carol"]


def sample_record(seed: int = 7, hands: int | None = 3, **options: Any) -> dict[str, Any]:
    state = random_game(Rules.make(**options), random.Random(seed), hands)
    names = NAMES if state.players == 3 else [*NAMES, "dave"]
    return record_of(state, names)


def text_of(record: dict[str, Any]) -> str:
    return dumps_record(record)


# -- round trips ---------------------------------------------------------------------------

def test_write_read_write_is_identical_and_replays_the_same_scores() -> None:
    for seed, options in [(1, {}), (2, {"players": 4}), (3, {"set": "moon21"}),
                          (4, {"trump_before_widow": True, "scoring": "marks"})]:
        state = random_game(Rules.make(**options), random.Random(seed), 6)
        names = NAMES if state.players == 3 else [*NAMES, "dave"]
        text = dumps_record(record_of(state, names))
        rebuilt = game_from_record(parse_record(text))
        assert rebuilt.scores == state.scores
        assert [r.points for r in rebuilt.results] == [r.points for r in state.results]
        assert dumps_record(parse_record(text)) == text
        assert json.loads(text)["format"] == "moon/1"


def test_the_record_shape_follows_record_md() -> None:
    state = GameState(Rules.make(), 1)
    deal = [tuple(Tile.parse(t) for t in h.split()) for h in
            ["6-6 6-5 6-4 6-3 6-2 6-1 5-5", "0-0 5-4 5-3 5-2 5-1 4-4 4-3",
             "4-2 4-1 3-3 3-2 3-1 2-2 2-1"]]
    state.deal_tiles(deal, Tile.parse("1-1"))
    for text in ["pass", "bid 5", "bid 6", "discard 1-1", "trump 5", "play 5-5"]:
        state.apply_action(Action.parse(text))
    record = record_of(state, NAMES)
    assert record["first_bidder"] == 1 and record["seats"] == NAMES
    assert record["rules"]["set"] == "moon22" and record["rules"]["min_bid"] == 4
    assert record["hands"] == [{
        "deal": [["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "5-5"],
                 ["5-4", "5-3", "5-2", "5-1", "4-4", "4-3", "0-0"],
                 ["4-2", "4-1", "3-3", "3-2", "3-1", "2-2", "2-1"]],
        "widow": "1-1", "bids": ["pass", 5, 6], "discard": "1-1", "trump": "5",
        "plays": ["5-5"]}]
    out = replay(record)
    assert out["ok"] is True and out["complete"] is False and out["winner"] is None
    assert out["hands"] == [{
        "declarer": 0, "bid": 6, "trump": "5",
        "tricks": [{"leader": 0, "plays": ["5-5"], "winner": None}],
        "tricks_won": [0, 0, 0], "made": None, "points": None, "scores": [0, 0, 0]}]


def test_an_all_pass_hand_has_deal_widow_and_bids_only() -> None:
    record = sample_record()
    record["hands"] = record["hands"][:1]
    hand = record["hands"][0]
    hand["bids"] = ["pass", "pass", "pass"]
    for key in ("discard", "trump", "plays"):
        hand.pop(key, None)
    state = game_from_record(record)
    assert state.results[-1].redeal
    assert set(record_of(state, NAMES)["hands"][0]) == {"deal", "widow", "bids"}
    out = replay(record)
    assert out["hands"][0] == {"declarer": None, "bid": None, "trump": None, "tricks": [],
                               "tricks_won": [0, 0, 0], "made": None, "points": [0, 0, 0],
                               "scores": [0, 0, 0]}


def test_replay_json_of_a_finished_game() -> None:
    record = sample_record(seed=11, hands=None, set="moon21", target=5)
    out = replay(record)
    assert out["ok"] and out["complete"] and out["winner"] in (0, 1, 2)
    state = game_from_record(record)
    assert out["scores"] == list(state.scores)
    last = out["hands"][-1]
    assert last["scores"] == out["scores"]
    assert sum(last["tricks_won"]) == 7 and len(last["tricks"]) == 7
    for trick in last["tricks"]:
        assert set(trick) == {"leader", "plays", "winner"} and len(trick["plays"]) == 3


# -- illegal records (exit 1) --------------------------------------------------------------

def first_play_hand(record: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    for i, hand in enumerate(record["hands"]):
        if hand.get("plays"):
            return i, hand
    raise AssertionError("no hand was played")


def test_a_play_that_does_not_follow_suit_names_hand_play_seat_and_rule() -> None:
    record = sample_record(seed=3, hands=4)
    state = game_from_record(record)
    h, hand = first_play_hand(record)
    # Replay the hand up to a seat that must follow and give it a tile off the suit.
    game = GameState(state.rules, record["first_bidder"])
    for earlier in record["hands"][:h]:
        _apply_hand(game, earlier)
    game.deal_tiles([tuple(Tile.parse(t) for t in s) for s in hand["deal"]],
                    Tile.parse(hand["widow"]))
    _apply_hand(game, {**hand, "plays": []}, deal=False)
    for j, tile in enumerate(hand["plays"]):
        seat = game.current_player()
        legal = {str(a.tile) for a in game.legal_actions()}
        held = {str(t) for t in game.hand_of(seat)}
        if legal != held:
            bad = sorted(held - legal)[0]
            broken = copy.deepcopy(record)
            broken["hands"][h]["plays"][j] = bad
            out = replay(broken)
            assert out["ok"] is False
            assert out["error"]["hand"] == h and out["error"]["play"] == j
            assert out["error"]["seat"] == seat
            assert out["error"]["reason"].startswith(f"seat {seat} must follow")
            with pytest.raises(IllegalRecordError) as info:
                game_from_record(broken)
            assert (info.value.hand, info.value.play, info.value.seat) == (h, j, seat)
            return
        game.apply_action(Action.parse(f"play {tile}"))
    raise AssertionError("no seat had to follow suit in this hand")


def _apply_hand(game: GameState, hand: dict[str, Any], deal: bool = True) -> None:
    if deal:
        widow = Tile.parse(hand["widow"]) if "widow" in hand else None
        game.deal_tiles([tuple(Tile.parse(t) for t in s) for s in hand["deal"]], widow)
    for bid in hand["bids"]:
        game.apply_action(Action.parse("pass" if bid == "pass" else f"bid {bid}"))
    steps = ["trump", "discard"] if game.rules.trump_before_widow else ["discard", "trump"]
    for step in steps:
        if step in hand:
            game.apply_action(Action.parse(f"{step} {hand[step]}"))
    for tile in hand.get("plays", []):
        game.apply_action(Action.parse(f"play {tile}"))


@pytest.mark.parametrize("mutate, where, reason", [
    (lambda r: r["hands"][0]["bids"].__setitem__(0, 3), (0, None, 0), "lowest bid is 4"),
    (lambda r: r["hands"][0]["bids"].__setitem__(0, 9), (0, None, 0), "a bid is a whole"),
    (lambda r: r["hands"][0]["deal"][1].__setitem__(0, r["hands"][0]["deal"][0][0]),
     (0, None, 1), "dealt twice"),
    (lambda r: r["hands"][0]["deal"][2].pop(), (0, None, 2), "must be dealt 7 tiles"),
    (lambda r: r["hands"][0].pop("widow"), (0, None, None), "has a widow"),
    (lambda r: r["hands"][0].__setitem__("trump", "doubles") or
     r["rules"].__setitem__("doubles_trump", False), (0, None, 0), "doubles_trump = false"),
    (lambda r: r["hands"][0]["plays"].append("6-6"), (0, 21, None), "one too many"),
    (lambda r: r["hands"][0].pop("discard"), (0, None, 0), "but no discard"),
    (lambda r: r["hands"][0].__setitem__("bids", ["pass", "pass", "pass"]),
     (0, None, None), "everyone passed, so the hand has no discard"),
    (lambda r: r["hands"][0].__setitem__("bids", [4, 5]) or r["hands"][0].pop("discard"),
     (0, None, 2), "the hand has a trump but the auction is not over (seat 2 to bid)"),
    (lambda r: r["hands"][0].__setitem__("bids", [21, "pass"]),
     (0, None, None), "the auction ended with the moon"),
    (lambda r: r["hands"][0]["plays"].pop() and r["hands"].append(r["hands"][0]),
     (0, None, 2), "only the last hand may be unfinished"),
])
def test_illegal_records_are_located(mutate: Any, where: tuple[int, int | None, int | None],
                                     reason: str) -> None:
    record = scripted_record()
    mutate(record)
    out = replay(record)
    assert out["ok"] is False, out
    error = out["error"]
    assert (error["hand"], error["play"], error["seat"]) == where, error
    assert reason in error["reason"]


def scripted_record() -> dict[str, Any]:
    """One full hand: seat 0 declares 4 with every 6 (trump 6) and takes all tricks."""
    state = GameState(Rules.make(target=50), 0)
    deal = [tuple(Tile.parse(t) for t in h.split()) for h in
            ["6-6 6-5 6-4 6-3 6-2 6-1 5-5", "0-0 5-4 5-3 5-2 5-1 4-4 4-3",
             "4-2 4-1 3-3 3-2 3-1 2-2 2-1"]]
    state.deal_tiles(deal, Tile.parse("1-1"))
    for text in ["bid 4", "pass", "pass", "discard 1-1", "trump 6"]:
        state.apply_action(Action.parse(text))
    while state.legal_actions():
        state.apply_action(state.legal_actions()[-1])
    assert state.scores == (4, 0, 0)
    return record_of(state, NAMES)


def test_an_all_pass_hand_may_list_empty_plays() -> None:
    record = scripted_record()
    hand = record["hands"][0]
    hand["bids"] = ["pass", "pass", "pass"]
    del hand["discard"], hand["trump"]
    hand["plays"] = []
    out = replay(record)
    assert out["ok"] is True and out["hands"][0]["declarer"] is None


def test_a_hand_after_the_end_of_the_game_is_illegal() -> None:
    record = sample_record(seed=11, hands=None, set="moon21", target=5)
    record["hands"].append(copy.deepcopy(record["hands"][-1]))
    out = replay(record)
    assert out["ok"] is False and out["error"]["hand"] == len(record["hands"]) - 1
    assert "game was over" in out["error"]["reason"]


# -- malformed records (exit 2) -------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("{", "not JSON"),
    ("[1, 2]", "not an object"),
    ('{"format": "moon/2"}', "not a moon/1 record"),
    ('{"format": "moon/1", "rules": {"players": 5}, "seats": [], "first_bidder": 0}',
     "rules: players must be 3 or 4"),
    ('{"format": "moon/1", "rules": {"min_bid": true}, "seats": ["a","b","c"], '
     '"first_bidder": 0}', "rules: min_bid must be one of 3, 4, 5, not True"),
    ('{"format": "moon/1", "rules": {"colour": 1}, "seats": ["a","b","c"], '
     '"first_bidder": 0}', "unknown rule option: colour"),
    ('{"format": "moon/1", "seats": ["a","b"], "first_bidder": 0}', "seats: a 3-player"),
    ('{"format": "moon/1", "seats": ["a","b",3], "first_bidder": 0}', "seats[2]"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": true}',
     "first_bidder: must be a seat from 0 to 2, not true"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 3}', "first_bidder"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 0, "hands": {}}',
     "hands: hands must be a list"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 0, "hands": [{}]}',
     "hands[0].deal: missing"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 0, "hands": '
     '[{"deal": [["7-1"], [], []]}]}', "hands[0].deal[0][0]: unknown tile '7-1'"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 0, "hands": '
     '[{"deal": [[61], [], []]}]}', "hands[0].deal[0][0]: a tile is text"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 0, "hands": '
     '[{"deal": [[], [], []], "bids": [true]}]}', "hands[0].bids[0]"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 0, "hands": '
     '[{"deal": [[], [], []], "bids": [4.5]}]}', "a bid is \"pass\" or a number"),
    ('{"format": "moon/1", "seats": ["a","b","c"], "first_bidder": 0, "hands": '
     '[{"deal": [[], [], []], "trump": "sevens"}]}', "hands[0].trump: unknown trump"),
])
def test_malformed_records_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(RecordFormatError) as info:
        parse_record(text)
    assert message in str(info.value)


# -- the command line ---------------------------------------------------------------------

def run_replay(path: str, as_json: bool) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = replay_command(path, as_json, out, err)
    return code, out.getvalue(), err.getvalue()


def test_replay_exit_codes_and_outputs(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(text_of(sample_record(seed=5, hands=3)))
    code, out, err = run_replay(str(good), True)
    assert code == 0 and json.loads(out)["ok"] is True and err == ""
    code, out, _ = run_replay(str(good), False)
    assert code == 0
    assert "Hand 1" in out and "bob" in out and "Bidding:" in out and "→" in out

    record = scripted_record()
    record["hands"][0]["plays"][1] = "1-1"  # seat 1 does not hold it
    bad = tmp_path / "bad.json"
    bad.write_text(text_of(record))
    code, out, _ = run_replay(str(bad), True)
    assert code == 1
    assert json.loads(out) == {"ok": False, "error": {
        "hand": 0, "play": 1, "seat": 1, "reason": "seat 1 does not hold 1-1"}}
    code, out, _ = run_replay(str(bad), False)
    assert code == 1 and "ILLEGAL at hand 1, plays[1], bob (seat 1)" in out

    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\xff\xfe not text")
    code, out, err = run_replay(str(junk), False)
    assert code == 2 and "not a moon/1 record" in err and "Traceback" not in err
    code, out, err = run_replay(str(tmp_path / "missing.json"), True)
    assert code == 2 and json.loads(out)["ok"] is False


def test_moon_rules_random_then_replay_in_subprocesses(tmp_path: Path) -> None:
    made = subprocess.run(
        [sys.executable, "-m", "moon_tui.rules.cli", "random", "--seed", "4", "--players",
         "4", "--hands", "3", "--rule", "team_scoring=bid", "--names", "n,e,s,w"],
        capture_output=True, text=True, check=True)
    record = json.loads(made.stdout)
    assert record["rules"]["players"] == 4 and record["rules"]["team_scoring"] == "bid"
    assert record["seats"] == ["n", "e", "s", "w"] and len(record["hands"]) == 3
    checked = subprocess.run([sys.executable, "-m", "moon_tui.rules.cli", "replay", "-",
                              "--json"], input=made.stdout, capture_output=True, text=True)
    assert checked.returncode == 0
    assert set(json.loads(checked.stdout)) == {"ok", "hands", "scores", "complete", "winner"}
    bad = subprocess.run([sys.executable, "-m", "moon_tui.rules.cli", "replay", "-"],
                         input='{"format": "moon/1", "seats": 3}', capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "seats: seats must be a list" in bad.stderr


def test_random_is_reproducible_and_rejects_bad_options(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    assert main(["random", "--seed", "9", "--hands", "2"]) == 0
    first = capsys.readouterr().out
    assert main(["random", "--seed", "9", "--hands", "2"]) == 0
    assert capsys.readouterr().out == first
    assert main(["random", "--rule", "min_bid=9"]) == 2
    assert "min_bid must be one of 3, 4, 5" in capsys.readouterr().err
    assert main(["random", "--players", "4", "--names", "a,b,c"]) == 2


def test_random_and_replay_take_the_discard_shown_option(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["random", "--seed", "3", "--hands", "2", "--rule", "discard_shown=true"]) == 0
    made = capsys.readouterr().out
    assert json.loads(made)["rules"]["discard_shown"] is True
    path = tmp_path / "shown.json"
    path.write_text(made)
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert main(["random", "--rule", "discard_shown=maybe"]) == 2
    assert "discard_shown is true or false" in capsys.readouterr().err


# -- fuzzing: any damage gives a located answer, never another exception --------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-30, 30) | st.floats(allow_nan=False)
    | st.sampled_from(["pass", "6-4", "4-6", "7-7", "0-0", "doubles", "none", "moon/1", "",
                       "5", "1-1", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=8)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*here, i))
    return out


BASE_RECORD = sample_record(seed=21, hands=3)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_damaged_records_give_a_verdict_or_a_located_format_error(data: st.DataObject) -> None:
    record = copy.deepcopy(BASE_RECORD)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(record)))
        value = data.draw(JSON_VALUES)
        if not path:
            record = value
            break
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
    text = json.dumps(record)
    try:
        out = replay(parse_record(text))
    except RecordFormatError as exc:
        assert str(exc)
        return
    assert out["ok"] in (True, False)
    if not out["ok"]:
        assert set(out["error"]) == {"hand", "play", "seat", "reason"}
        assert out["error"]["reason"]


def test_the_match_report_tells_the_hand() -> None:
    text = render_report(replay_game(scripted_record()))
    lines = text.splitlines()
    assert lines[0] == "Moon · 3 players: alice (seat 0), bob (seat 1), carol (seat 2)"
    assert lines[1] == "Table: moon22 · min bid 4 · points to 50"
    expected = [
        "Hand 1 · alice bids first",
        "  alice  6-6 6-5 6-4 6-3 6-2 6-1 5-5",
        "  bob    5-4 5-3 5-2 5-1 4-4 4-3 0-0",
        "  carol  4-2 4-1 3-3 3-2 3-1 2-2 2-1",
        "  widow  1-1",
        "  Bidding: alice bids 4, bob passes, carol passes.",
        "  alice declares 4; takes the widow 1-1 and discards 1-1; trump: 6s.",
        "   1. alice 6-6  bob 5-4  carol 4-2  → alice",
    ]
    assert lines[3:3 + len(expected)] == expected
    assert "  Tricks: alice 7, bob 0, carol 0." in lines
    assert "  alice needed 4 and took 7: made." in lines
    assert "  Points: alice +4, bob 0, carol 0.  Score: alice 4, bob 0, carol 0." in lines
    assert lines[-1] == "Game in progress after 1 hand. Score: alice 4, bob 0, carol 0."


def test_the_report_and_json_written_hand_by_hand_say_what_the_whole_replay_says() -> None:
    # `moon-rules replay` writes as it replays (issue 31: it held every hand and copied every
    # result per hand, quadratic); the text must be the same, legal, illegal or unfinished.
    from moon_tui.rules.record import as_record
    from moon_tui.rules.replay import write_json
    from moon_tui.rules.report import write_report

    legal = sample_record(seed=3, hands=6)
    unfinished = sample_record(seed=4, hands=4)
    unfinished["hands"][-1]["plays"] = unfinished["hands"][-1].get("plays", [])[:5]
    illegal = sample_record(seed=5, hands=5)
    illegal["hands"][2]["plays"] = list(reversed(illegal["hands"][2].get("plays", [])))
    four = sample_record(seed=6, hands=3, players=4)
    for record in (legal, unfinished, illegal, four, scripted_record()):
        rec = as_record(record)
        whole = replay_game(rec)
        out = io.StringIO()
        streamed = write_report(rec, out)
        assert out.getvalue() == render_report(whole)
        assert streamed.hand_count == len(whole.hands) and streamed.hands == ()
        pieces: list[str] = []
        write_json(rec, pieces.append)
        text = "".join(pieces)
        assert json.loads(text) == whole.to_json()
        assert text == json.dumps(whole.to_json(), ensure_ascii=False)


# -- the report's words ---------------------------------------------------------------------

def finished_record(seed: int, **options: Any) -> dict[str, Any]:
    state = random_game(Rules.make(**options), random.Random(seed))
    assert state.is_terminal()
    return record_of(state, NAMES if state.players == 3 else [*NAMES, "dave"])


def test_a_team_wins_the_game_and_one_player_wins_it() -> None:
    team = render_report(replay_game(finished_record(1, players=4, target=5)))
    last = team.splitlines()[-1]
    assert last.startswith(("alice & carol win the game", "bob & dave win the game")), last
    alone = render_report(replay_game(finished_record(1, target=5))).splitlines()[-1]
    assert alone.split()[1] == "wins", alone


def test_a_marks_game_tells_marks_and_a_points_game_points() -> None:
    marks = render_report(replay_game(sample_record(seed=2, hands=6, scoring="marks")))
    scored = [line for line in marks.splitlines() if line.startswith("  ") and "Score:" in line]
    assert scored and all(line.startswith("  Marks: ") for line in scored), scored
    points = render_report(replay_game(sample_record(seed=2, hands=6)))
    assert all(line.startswith("  Points: ")
               for line in points.splitlines() if line.startswith("  ") and "Score:" in line)


# -- options that mean nothing at the table ------------------------------------------------

@pytest.mark.parametrize("rules, problem", [
    (["--players", "4", "--rule", "discard_shown=true"], "discard_shown needs the widow"),
    (["--players", "4", "--rule", "trump_before_widow=true"],
     "trump_before_widow needs the widow"),
    (["--rule", "set=moon21", "--rule", "discard_shown=true"], "discard_shown needs the widow"),
    (["--rule", "set=moon21", "--rule", "trump_before_widow=on"],
     "trump_before_widow needs the widow"),
    (["--rule", "team_scoring=bid"], "team_scoring is for 4 players"),
])
def test_random_makes_no_record_with_an_option_that_means_nothing(
        rules: list[str], problem: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["random", "--hands", "1", *rules]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and problem in captured.err


def test_records_written_with_such_options_before_are_still_read(tmp_path: Path) -> None:
    # Until issue 30 the new-table form offered them at any table: saved games hold them.
    for options in ({"players": 4, "discard_shown": True, "trump_before_widow": True},
                    {"set": "moon21", "discard_shown": True}, {"team_scoring": "bid"}):
        record = sample_record(seed=4, hands=3, **options)
        path = tmp_path / "old.json"
        path.write_text(text_of(record))
        out, err = io.StringIO(), io.StringIO()
        assert replay_command(str(path), True, out, err) == 0, err.getvalue()
        assert json.loads(out.getvalue())["ok"] is True
