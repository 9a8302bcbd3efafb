"""moon-arena: duplicated deals, deterministic for a seed, records that replay."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from moon_tui.bots.arena import Setup, deal_seed, main, run, seating, tally, wilson
from moon_tui.bots.progress import ArenaProgress, win_rates
from moon_tui.rules import Rules
from moon_tui.rules.replay import replay


def test_deals_are_duplicated_with_the_seats_rotated() -> None:
    seats = ["expert", "heuristic", "random"]
    assert [seating(seats, g) for g in range(3)] == [
        ["expert", "heuristic", "random"],
        ["heuristic", "random", "expert"],
        ["random", "expert", "heuristic"],
    ]
    assert len({deal_seed(1, g, 3) for g in range(3)}) == 1
    assert deal_seed(1, 3, 3) != deal_seed(1, 2, 3)


def test_the_same_deals_reach_every_rotation() -> None:
    setup = Setup(Rules.make(), ("normal", "easy", "random"), 5, None, None, keep_record=True)
    firsts = [record["hands"][0]["deal"] for _, _, _, record in run(setup, 3) if record]
    assert firsts[0] == firsts[1] == firsts[2]


def test_arena_is_deterministic_for_a_seed() -> None:
    setup = Setup(Rules.make(players=4), ("normal", "easy", "normal", "easy"), 3, None, None,
                  keep_record=True)
    first = [(kinds, [s.won for s in stats], rec) for _, kinds, stats, rec in run(setup, 4)]
    again = [(kinds, [s.won for s in stats], rec) for _, kinds, stats, rec in run(setup, 4)]
    assert first == again
    in_parallel = [(kinds, [s.won for s in stats], rec)
                   for _, kinds, stats, rec in run(setup, 4, jobs=2)]
    assert in_parallel == first
    other = Setup(setup.rules, setup.seats, 4, None, None, keep_record=True)
    assert [rec for *_, rec in run(other, 4)] != [rec for *_, rec in first]


def test_expert_with_fixed_samples_is_deterministic() -> None:
    setup = Setup(Rules.make(target=5), ("expert", "normal", "normal"), 2, None, 2,
                  keep_record=True)
    first = [rec for *_, rec in run(setup, 1)]
    assert first == [rec for *_, rec in run(setup, 1)]


def test_a_tiny_run_writes_records_that_replay(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--seats", "expert,heuristic,random", "--games", "3", "--seed", "1",
                 "--samples", "2", "--rule", "target=10", "--records", str(tmp_path),
                 "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"expert", "heuristic", "random"}
    for kind, figures in result.items():
        assert figures["games"] == 3, kind
        for key in ("wins", "win_rate", "ci95", "points_per_hand", "bids_made",
                    "bids_attempted", "decision_ms_p50", "decision_ms_p99"):
            assert key in figures
    assert sum(figures["wins"] for figures in result.values()) == 3
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 3
    for path in files:
        replayed = replay(path.read_text())
        assert replayed["ok"], replayed
        assert replayed["complete"]


def test_four_player_teams_and_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--seats", "normal,random", "--players", "4", "--games", "2",
                 "--rule", "team_scoring=bid", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["normal"]["games"] == 2
    assert result["normal"]["wins"] + result["random"]["wins"] == 2


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seats", "expert,wizard,random"]) == 2
    assert main(["--seats", "normal,normal,normal", "--rule", "min_bid=9"]) == 2
    assert "moon-arena:" in capsys.readouterr().err


def test_wilson_interval() -> None:
    lo, hi = wilson(60, 100)
    assert 0.50 < lo < 0.60 < hi < 0.70
    assert wilson(0, 10)[0] == 0.0


def test_a_run_shows_progress_on_a_terminal_only(capsys: pytest.CaptureFixture[str]) -> None:
    # Not a terminal (pytest captures stderr): stdout is exactly the JSON, stderr empty.
    assert main(["--seats", "normal,easy,random", "--games", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    assert set(json.loads(out)) == {"normal", "easy", "random"}
    assert err == ""


def test_the_progress_bar_shows_games_and_win_rates() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    setup = Setup(Rules.make(), ("normal", "random", "random"), 1, None, None,
                  keep_record=False)
    with ArenaProgress(console, 3) as progress:
        tally(setup, 3, on_game=progress.advance)
    text = screen.getvalue()
    assert "3/3" in text
    assert "normal" in text and "%" in text
    assert win_rates({"normal": 2, "random": 1}, 3) == "normal 67% · random 33%"
