"""The session queue (bounded, coalescing, never blocking) and the chat limits."""

from __future__ import annotations

from moon_tui.lobby import Disconnected, LobbyUpdate, Notice, Refusal, TableInfo, TableUpdate
from moon_tui.lobby.chat import ChatLimiter, RateLimit, clean_text
from moon_tui.lobby.queue import EventQueue
from moon_tui.rules import Rules


def table(table_id: str, name: str = "x") -> TableInfo:
    return TableInfo(table_id=table_id, name=name, owner="ann", rules=Rules.make(), seats=(),
                     status="waiting", private=False, spectators_allowed=True, spectators=(),
                     turn_seconds=None)


def update(table_id: str, name: str = "x") -> TableUpdate:
    return TableUpdate(table(table_id, name), 0, None)


def drain(queue: EventQueue) -> list[object]:
    out = []
    while (event := queue.get_nowait()) is not None:
        out.append(event)
    return out


def test_a_newer_table_update_replaces_the_older_one_and_moves_to_the_end() -> None:
    queue = EventQueue(10)
    assert queue.put(update("t1", "old"))
    assert queue.put(Notice("between"))
    assert queue.put(update("t2"))
    assert queue.put(update("t1", "new"))
    assert len(queue) == 3
    assert drain(queue) == [Notice("between"), update("t2"), update("t1", "new")]


def test_lobby_updates_coalesce_but_other_events_queue() -> None:
    queue = EventQueue(10)
    for i in range(5):
        queue.put(LobbyUpdate((), (f"p{i}",)))
        queue.put(Notice(str(i)))
    assert drain(queue) == [*(Notice(str(i)) for i in range(4)), LobbyUpdate((), ("p4",)),
                            Notice("4")]


def test_a_full_queue_refuses_but_coalescing_still_fits() -> None:
    queue = EventQueue(3)
    assert queue.put(update("t1"))
    assert queue.put(Notice("a"))
    assert queue.put(Notice("b"))
    assert not queue.put(Notice("c"))
    assert queue.put(update("t1", "newer"))
    queue.put_last(Disconnected("bye"))
    assert drain(queue) == [Notice("a"), Notice("b"), update("t1", "newer"), Disconnected("bye")]


def test_replaced_slots_do_not_pile_up_for_a_reader_that_never_reads() -> None:
    queue = EventQueue(4)
    for i in range(10_000):
        assert queue.put(update("t1", str(i)))
    assert len(queue) == 1
    assert len(queue._boxes) < 100
    assert drain(queue) == [update("t1", "9999")]


def test_chat_text_loses_control_characters_and_extra_spaces() -> None:
    assert clean_text("  hi\x1b[2J  there\n\tyou\u200b ") == "hi[2J there you"


def test_chat_lines_are_limited_in_length_and_rate_per_player() -> None:
    chat = ChatLimiter(max_chars=10, lines_per_10s=2)
    def refused(line: str, now: float) -> tuple[object, dict[str, object]] | None:
        refusal = chat.check("ann", line, now=now)[1]
        return None if refusal is None else (refusal.code, refusal.params)

    assert refused("x" * 11, 0.0) == (Refusal.CHAT_TOO_LONG, {"limit": 10, "length": 11})
    assert refused(" \x07 ", 0.0) == (Refusal.CHAT_EMPTY, {})
    assert chat.check("ann", "one", now=0.0) == ("one", None)
    assert chat.check("ann", "two", now=1.0) == ("two", None)
    assert refused("three", 2.0) == (Refusal.CHAT_TOO_FAST, {"lines": 2, "seconds": 10})
    assert chat.check("bob", "mine", now=2.0) == ("mine", None)
    assert chat.check("ann", "later", now=10.5) == ("later", None)


def test_a_rate_limit_counts_only_what_it_allows_and_forgets_old_events() -> None:
    limit = RateLimit(2, 60.0)
    assert not limit.full("ann", now=0.0)
    assert limit.allow("ann", now=0.0) and limit.allow("ann", now=1.0)
    assert limit.full("ann", now=2.0) and not limit.allow("ann", now=2.0)
    assert not limit.full("bob", now=2.0)
    assert limit.allow("ann", now=60.5)
    limit.forget_idle(now=200.0)
    assert not limit.full("ann", now=200.0)
