"""The server's own figures of a club of workers, as one server's (`ssh_load.py --workers`).

Each worker (a `--serve` child of `ssh_load.py`) answers the control protocol with its
own figures; the club's are theirs put together: CPU, memory, sessions, hands and counts
summed (the bus's CPU is added by the caller), the worst stall and pause the worst of any
worker, the lists joined. Pure functions, so the benchmark's arithmetic can be tested.
"""

from __future__ import annotations

from typing import Any

SUMMED = ("on_cpu", "runqueue_wait", "rss_kb", "cpu", "sessions", "skipped_frames",
          "long_stall_count", "long_stalls_since_reset", "hands", "games", "bot_decisions",
          "bot_fallbacks", "reclaims", "tick_cpu", "full_ticks", "young_ticks", "frozen",
          "frozen_counts", "freezes", "deferred_freezes", "apps", "garbage", "answer_count",
          "journal_wait_count")
WORST = ("stall_run", "stall_connected", "bot_longest_wait", "longest_reclaim",
         "longest_tick", "garbage_pause")
LONG_STALLS_KEPT = 20


def merge_replies(replies: list[dict[str, Any]]) -> dict[str, Any]:
    """One reply of the control protocol for the whole club, from each worker's (in the
    workers' order). A server alone: its reply as it is, plus `per_worker`."""
    if len(replies) == 1:
        return {**replies[0], "per_worker": [_own(replies[0])]}
    merged: dict[str, Any] = {}
    for key in SUMMED:
        values = [r[key] for r in replies if key in r]
        if values:
            merged[key] = sum(values)
    for key in WORST:
        values = [r[key] for r in replies if key in r]
        if values:
            merged[key] = max(values)
    worst = max(replies, key=lambda r: r["stall"])  # the CPU used in that very stall
    merged["stall"], merged["stall_cpu"] = worst["stall"], worst["stall_cpu"]
    merged["gc_ms"] = {generation: max(r["gc_ms"][generation] for r in replies)
                       for generation in replies[0]["gc_ms"]}
    merged["workers"] = [w for r in replies for w in r["workers"]]
    merged["long_stalls"] = sorted(
        ([*stall, r["worker"]] for r in replies for stall in r["long_stalls"]),
        key=lambda s: -s[1])[:LONG_STALLS_KEPT]
    merged["per_worker"] = [_own(r) for r in replies]
    return merged


def _own(reply: dict[str, Any]) -> dict[str, Any]:
    """What one worker's reply says of itself: its name, pid, sessions, CPU, stall."""
    return {key: reply[key] for key in ("worker", "pid", "sessions", "cpu", "stall",
                                        "answer_count", "journal_wait_count")
            if key in reply}


WHERE_KEYS: dict[str, tuple[str, ...]] = {
    "same": ("table_same_worker",),
    "same, humans": ("table_same_worker", "table_same_worker_humans",
                     "table_same_worker_humans_foreseen"),
    "other": ("table_other_worker", "table_other_worker_foreseen"),
    "same, waited": ("table_same_worker",),
    "same, humans, waited": ("table_same_worker", "table_same_worker_humans",
                             "table_same_worker_humans_waited"),
    "other, waited": ("table_other_worker", "table_other_worker_waited"),
    "same, sent": ("table_same_worker",),
    "same, humans, sent": ("table_same_worker", "table_same_worker_humans",
                           "table_same_worker_humans_sent"),
    "other, sent": ("table_other_worker", "table_other_worker_sent"),
    "same, answer": (),
    "same, humans, answer": ("table_same_worker_humans_answer",),
    "other, answer": ("table_other_worker_answer",),
}
"""Where a table key counts besides "table", by where its table runs: on the player's
worker, or on another. Only a table of three humans can run on another worker (it runs
where its opener is), so the keys of those on the player's worker are also counted
apart: a move there has two other players' screens to show too, and the fair
comparison with a move across workers is with them. ", waited": the frame was the
table's answer, not the move foreseen by the player's screen (`rules/foresight.py`: a bid
that takes the widow, a claim): the keys across workers that still make the whole trip.
", sent": the frame said the move was sent (not foreseen), and ", answer" is the same key
timed to the frame drawing the table's answer (an "answer" entry, not a key of its own)."""


def spread_inputs(answered: list[list[Any]]) -> dict[str, list[float]]:
    """Key -> frame in the server (seconds) by where the key was pressed: at a table or in
    the lobby, and at a table run on the player's own worker or on another one."""
    split: dict[str, list[float]] = {"table": [], "lobby": [], "answer": [], **{
        key: [] for keys in WHERE_KEYS.values() for key in keys}}
    for screen, read, _, written, where in answered:
        split[screen].append(written - read)
        for key in WHERE_KEYS.get(where, ()):
            split[key].append(written - read)
    return split
