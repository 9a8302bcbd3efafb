"""The arithmetic of issue 33's benchmarks: a club of workers' figures put together
(`bench/worker_figures.py`) and what counts as a table playing again after a failover
(`bench/failover.py`). The runs themselves print figures; these prove the sums."""

from __future__ import annotations

from typing import Any

from bench.failover import decisions, failover_roles, moved
from bench.worker_figures import merge_replies, spread_inputs


def reply(worker: str, **figures: Any) -> dict[str, Any]:
    """A worker's `status` reply, with the figures a test cares about."""
    base: dict[str, Any] = {
        "worker": worker, "pid": 1, "cpu": 1.0, "rss_kb": 1000, "sessions": 1,
        "stall": 0.01, "stall_cpu": 0.001, "stall_run": 0.02, "stall_connected": 0.02,
        "gc_ms": {"0": 1.0, "1": 0.0, "2": 5.0}, "workers": [], "long_stalls": [],
        "long_stall_count": 0, "answer_count": 0, "journal_wait_count": 0, "hands": 0,
    }
    return {**base, **figures}


def test_a_club_of_workers_sums_cpu_and_takes_the_worst_stall_of_any() -> None:
    merged = merge_replies([
        reply("w0", cpu=2.0, sessions=3, stall=0.05, stall_cpu=0.04, hands=4,
              gc_ms={"0": 1.0, "1": 2.0, "2": 9.0}, long_stalls=[[1.0, 150, 20]],
              long_stall_count=1, workers=[{"pid": 7, "cpu": 1.0}]),
        reply("w1", cpu=3.5, sessions=5, stall=0.2, stall_cpu=0.01, hands=6,
              gc_ms={"0": 3.0, "1": 0.5, "2": 4.0}, long_stalls=[[2.0, 300, 30]],
              long_stall_count=1, workers=[{"pid": 8, "cpu": 2.0}]),
    ])
    assert merged["cpu"] == 5.5
    assert merged["sessions"] == 8 and merged["hands"] == 10
    # The worst stall is w1's, with the CPU used in that stall (not w0's).
    assert (merged["stall"], merged["stall_cpu"]) == (0.2, 0.01)
    assert merged["gc_ms"] == {"0": 3.0, "1": 2.0, "2": 9.0}
    assert merged["long_stalls"] == [[2.0, 300, 30, "w1"], [1.0, 150, 20, "w0"]]
    assert [w["pid"] for w in merged["workers"]] == [7, 8]
    assert [(w["worker"], w["sessions"]) for w in merged["per_worker"]] == [("w0", 3),
                                                                           ("w1", 5)]


def test_a_server_alone_keeps_its_reply_as_it_is() -> None:
    alone = reply("", cpu=2.0, long_stalls=[[1.0, 150, 20]])
    merged = merge_replies([alone])
    assert merged["long_stalls"] == [[1.0, 150, 20]]  # no worker's name added
    assert {k: v for k, v in merged.items() if k != "per_worker"} == alone


def test_table_keys_are_split_by_where_the_table_runs() -> None:
    split = spread_inputs([
        ["table", 1.0, 50001, 1.010, "same"],
        ["table", 2.0, 50002, 2.030, "other"],
        ["lobby", 3.0, 50003, 3.002, ""],
        ["table", 4.0, 50004, 4.020, ""],  # a server alone: a table key, neither split
        ["table", 5.0, 50005, 5.005, "same, humans"],  # also counted apart
    ])
    assert [round(x, 3) for x in split["table"]] == [0.01, 0.03, 0.02, 0.005]
    assert [round(x, 3) for x in split["table_same_worker"]] == [0.01, 0.005]
    assert [round(x, 3) for x in split["table_same_worker_humans"]] == [0.005]
    assert [round(x, 3) for x in split["table_other_worker"]] == [0.03]
    assert [round(x, 3) for x in split["lobby"]] == [0.002]


def test_a_hand_counts_its_bids_discard_trump_and_tiles() -> None:
    assert decisions({"deal": [], "widow": "3-1"}) == 0
    assert decisions({"bids": ["pass", 5, 6], "discard": "2-1", "trump": "5",
                      "plays": ["5-5", "5-4"]}) == 7


def test_a_table_played_again_when_a_hand_has_more_decisions() -> None:
    assert not moved({0: 9, 1: 3}, {0: 9, 1: 3})  # nothing new
    assert moved({0: 9, 1: 3}, {0: 9, 1: 4})
    assert not moved({0: 9, 1: 9}, {0: 9, 1: 9, 2: 0})  # a deal alone is no decision
    assert moved({0: 9, 1: 9}, {0: 9, 1: 9, 2: 1})
    # A new game: its first hand has fewer decisions than the old game's first.
    assert not moved({0: 20, 1: 20, 2: 5}, {})
    assert moved({0: 20, 1: 20, 2: 5}, {0: 1})


def test_failover_tables_alternate_a_player_with_computers_and_three_friends() -> None:
    roles = failover_roles(4)
    assert [r.kind for r in roles] == ["solo", "host", "guest", "guest", "solo", "host",
                                       "guest", "guest"]
    assert {r.group for r in roles if r.kind != "solo"} == {1, 3}
