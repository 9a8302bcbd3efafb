"""`moon-rules replay` checks a record's `seat_changes` and says who made each decision."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

from moon_tui.rules import Rules
from moon_tui.rules.cli import random_game, replay_command
from moon_tui.rules.record import record_of


def game(changes: list[dict[str, Any]]) -> dict[str, Any]:
    record = record_of(random_game(Rules.make(), random.Random(5), hands=2),
                       ("alice", "bob", "carol"))
    record["seat_changes"] = changes
    return record


def replayed(tmp_path: Path, record: dict[str, Any]) -> tuple[int, str, str]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    out, err = io.StringIO(), io.StringIO()
    return replay_command(str(path), False, out, err), out.getvalue(), err.getvalue()


def away(hand: int, at: int, why: str = "away", seat: int = 1,
         name: str = "normal bot", computer: bool = True) -> dict[str, Any]:
    return {"hand": hand, "at": at, "seat": seat, "name": name, "computer": computer,
            "why": why}


def test_the_report_says_who_made_each_decision(tmp_path: Path) -> None:
    status, out, _ = replayed(tmp_path, game([away(0, 0), away(1, 0, "back", name="bob",
                                                                computer=False)]))
    assert status == 0
    first, second = out.split("Hand 2")
    assert "From decision 0: normal bot (computer) plays seat 1 (its player is away)." in first
    assert "normal bot for bob" in first and "normal bot for bob" not in second


def test_a_malformed_entry_is_not_a_record_and_one_past_the_game_is_illegal(
        tmp_path: Path) -> None:
    status, _, err = replayed(tmp_path, game([away(0, 0, seat=3)]))
    assert status == 2 and "seat_changes[0].seat" in err
    status, _, err = replayed(tmp_path, game([away(0, 0, why="bored")]))
    assert status == 2 and "seat_changes[0].why" in err
    status, _, err = replayed(tmp_path, game([away(1, 0), away(0, 3)]))
    assert status == 2 and "in the order of the game" in err
    status, out, _ = replayed(tmp_path, game([away(7, 0)]))
    assert status == 1 and "seat_changes[0] names hand 7" in out
    status, out, _ = replayed(tmp_path, game([away(0, 999)]))
    assert status == 1 and "names decision 999 of hand 0" in out
