"""One player opening table after table (issue 36): each closed table is freed whole, the
tables a person opens are bounded per hour, and a game nobody played leaves no record."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from manual_clock import ManualClock
from test_lobby import FAST, join, new_table, running, table_with_bots

from moon_tui.lobby import (
    CreateTable,
    LeaveTable,
    LobbyConfig,
    MemoryRecordStore,
    Refusal,
    Rejected,
    TableLeft,
    TableUpdate,
)
from moon_tui.lobby.table import Table
from moon_tui.rules import Action, GameState, SeatView
from moon_tui.ui.refusals import refusal_words
from tools.client import Client, first_legal


@contextmanager
def collector_off() -> Iterator[None]:
    """As in the server, where the collector never looks at what lived half a second
    (`server/memory.py`): what is not freed by reference counting stays."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def live_tables() -> list[Table]:
    return [o for o in gc.get_objects() if isinstance(o, Table)]


async def until(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)
    assert condition(), what


async def test_a_closed_table_and_its_game_are_freed_at_once() -> None:
    # Seen over SSH: a guest opening a table, adding two computers, starting and leaving,
    # again and again, left every table and its game in memory.
    async with running() as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        with collector_off():
            tables: list[weakref.ref[Table]] = []
            games: list[weakref.ref[GameState]] = []
            for _ in range(3):
                mark = ann.mark()
                table_id = await table_with_bots(ann)
                await ann.wait_type(TableUpdate, lambda u, t=table_id: u.table.table_id == t
                                    and u.table.status == "playing", start=mark)
                (table,) = [t for t in live_tables() if t.table_id == table_id]
                assert table.core.game is not None
                tables.append(weakref.ref(table))
                games.append(weakref.ref(table.core.game))
                del table
                ann.handle.send(LeaveTable(table_id))
                await ann.wait_type(TableLeft, lambda e, t=table_id: e.table_id == t)
                await until(lambda t=table_id: t not in {i.table_id for i in lobby.tables()},
                            "the lobby forgot the table")
            await until(lambda: all(ref() is None for ref in tables + games),
                        "every closed table and its game freed")
        assert lobby.tables() == ()


async def test_a_table_the_lobby_stops_is_freed_too() -> None:
    with collector_off():
        async with running() as (lobby, tg):
            ann = await join(lobby, tg, "ann")
            await table_with_bots(ann)
            (table,) = live_tables()
            freed = weakref.ref(table)
            del table
        assert freed() is None


async def test_a_game_left_before_the_players_first_decision_is_not_saved() -> None:
    store = MemoryRecordStore()
    async with running(store=store) as (lobby, tg):
        ann = await join(lobby, tg, "ann")  # she never decides anything
        for _ in range(3):
            table_id = await table_with_bots(ann)
            ann.handle.send(LeaveTable(table_id))
            await ann.wait_type(TableLeft, lambda e, t=table_id: e.table_id == t)
            await until(lambda: lobby.tables() == (), "the table closed")
    assert store.records == []


async def test_a_game_a_person_decided_in_is_saved_when_they_leave() -> None:
    store = MemoryRecordStore()
    decided = 0

    def once(view: SeatView) -> Action | None:
        nonlocal decided
        decided += 1
        return first_legal(view) if decided == 1 else None

    async with running(store=store) as (lobby, tg):
        ann = await join(lobby, tg, "ann", once)
        table_id = await table_with_bots(ann)
        await ann.wait_type(TableUpdate, lambda u: u.view is not None
                            and any(seat == 0 for seat, _ in u.view.bids), timeout=20)
        ann.handle.send(LeaveTable(table_id))
        await until(lambda: lobby.tables() == (), "the table closed")
        assert store.finished == [False]
    assert store.records[0]["seats"][0] == "ann"


@pytest.mark.parametrize(("config", "waited", "window", "minutes", "words"), [
    (dataclasses.replace(FAST, tables_per_10_minutes=2), 150, 10, 8,
     "within 10 minutes: you may open another in 8"),
    (dataclasses.replace(FAST, tables_per_hour=2), 600, 60, 50,
     "within the hour: you may open another in 50"),
])
async def test_the_tables_a_person_opens_are_bounded_per_10_minutes_and_per_hour(
    config: LobbyConfig, waited: float, window: int, minutes: int, words: str,
) -> None:
    clock = ManualClock()
    async with running(config, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        for _ in range(2):
            table_id = await new_table(ann, CreateTable("mine"))
            ann.handle.send(LeaveTable(table_id))
            await until(lambda: lobby.tables() == (), "the table closed")
        clock.advance(waited)
        mark = ann.mark()
        ann.handle.send(CreateTable("one more"))
        refused = await ann.wait_type(Rejected, start=mark)
        assert refused.code is Refusal.TOO_MANY_TABLES
        assert refused.params == {"tables": 2, "window": window, "minutes": minutes}
        assert refusal_words(refused) == (f"you opened 2 tables {words} minutes; join one "
                                          "meanwhile")
        clock.advance(window * 60 - waited)  # the window after the first
        await new_table(ann, CreateTable("later"))
        # Guests get a new name at each visit: the server counts them by their address.
        for name in ("guest-1", "guest-2"):
            guest = Client(await lobby.connect(name, person="guests at 10.0.0.9"))
            tg.create_task(guest.run())
            mark = guest.mark()
            guest.handle.send(CreateTable("a guest's"))
            if name == "guest-1":
                await guest.wait_type(TableUpdate, start=mark)
                guest.handle.send(CreateTable("a guest's second"))
                await guest.wait_type(TableUpdate, lambda u: u.table.name == "a guest's second")
            else:
                refused = await guest.wait_type(Rejected, start=mark)
                assert refused.code is Refusal.TOO_MANY_TABLES
        olga = await join(lobby, tg, "olga", operator=True)  # not counted
        for number in range(3):
            await new_table(olga, CreateTable(f"tournament {number}"))
        clock.advance(3000)  # an hour after ann's first table
        await new_table(ann, CreateTable("an hour later"))
