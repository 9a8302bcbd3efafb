"""Tables survive a restart or a crash: each decision is in the journal before anyone is
told of it, and a lobby started on the journal takes up every table as it was.

A "crash" is a copy of the journal taken while the first lobby runs (what a killed server
leaves on disk): the second lobby starts from the copy, and the first never shuts down
into it.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import logging
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manual_clock import ManualClock
from test_lobby import FAST, join, new_table, playing_like, running, table_with_bots
from test_lobby_turns import settled

from moon_tui.lobby import (
    Act,
    AddBot,
    ChatPosted,
    CloseTable,
    CreateTable,
    GameFinished,
    JoinByCode,
    Lobby,
    LobbyConfig,
    MemoryRecordStore,
    Notice,
    PlayerHandle,
    Refusal,
    Rejected,
    Rematch,
    Resync,
    SendChat,
    Spectate,
    StartGame,
    TableInfo,
    TableLeft,
    TableUpdate,
)
from moon_tui.lobby.core import TableState
from moon_tui.lobby.journal import JournalEntry, MemoryJournal, SavedTable
from moon_tui.lobby.notices import Leave, Tell
from moon_tui.lobby.restoring import read_saved
from moon_tui.lobby.writing import TableWriter
from moon_tui.rules import CHANCE, GameState, Phase, Rules, SeatView
from moon_tui.rules.record import game_from_record, record_of
from moon_tui.rules.replay import replay
from tools.client import Client, Policy

SHORT = Rules.make(target=15, moon_wins_game=False)
PAUSED = dataclasses.replace(FAST, hand_pause=2, timer_scale=1)
"""Hands end and wait for the (manual) clock before the next deal."""

Pred = Callable[[SeatView], bool]


def holding(until: Pred, seed: int) -> Policy:
    """A player who plays (as an easy computer) until `until` holds, then waits."""
    play = playing_like("easy", seed)
    return lambda view: None if until(view) else play(view)


def crashed(journal: MemoryJournal) -> MemoryJournal:
    """What a killed server leaves: the journal as it is now, and nothing after."""
    return MemoryJournal(copy.deepcopy(journal.tables), copy.deepcopy(journal.hands),
                         copy.deepcopy(journal.chat))


def same_table(before: TableInfo, after: TableInfo, stand_in: str = "easy") -> None:
    """The restored entry is the one before, its players and spectators away until they
    come back (the `stand_in` computer plays for them meanwhile)."""
    assert after.spectators_away == before.spectators
    assert dataclasses.replace(after, seats=before.seats, spectators_away=()) == before
    for old, new in zip(before.seats, after.seats, strict=True):
        if old.name is None:
            assert new == old
        else:
            assert (new.name, new.away, new.bot_level) == (old.name, True, stand_in)


def a_prefix_of(kept: Sequence[dict[str, Any]], played: Sequence[dict[str, Any]]) -> None:
    """The hands kept at the crash are where the game went on from."""
    assert len(kept) <= len(played)
    for i, hand in enumerate(kept):
        if i < len(kept) - 1:
            assert played[i] == hand
        else:
            assert played[i]["deal"] == hand["deal"]
            assert played[i]["bids"][:len(hand["bids"])] == hand["bids"]
            assert played[i].get("plays", [])[:len(hand.get("plays", []))] \
                == hand.get("plays", [])


async def reach(clock: ManualClock, client: Client, waiting: Callable[[TableUpdate], bool]
                ) -> TableUpdate:
    """The first update `waiting` holds for, the clock moved on for each deal meanwhile."""
    async with asyncio.timeout(30):
        while True:
            updates = client.of_type(TableUpdate)
            found = [u for u in updates if waiting(u)]
            if found:
                return found[0]
            view = updates[-1].view
            if view is not None and view.phase is Phase.DEAL:
                clock.advance(2)  # the next deal
            await asyncio.sleep(0.01)


async def play_on(clients: Sequence[Client], table_id: str) -> None:
    """The players, back, play on (as easy computers would)."""
    for seed, client in enumerate(clients):
        client.policy = playing_like("easy", seed)
        client.handle.send(Resync(table_id))


async def play_out(clock: ManualClock, client: Client, timeout: float = 60) -> GameFinished:
    """Move the clock on until the game ends (the deals wait for it)."""
    async with asyncio.timeout(timeout):
        while not client.of_type(GameFinished):
            clock.advance(5)
            await asyncio.sleep(0.01)
    return client.of_type(GameFinished)[0]


WHERE: dict[str, Pred] = {
    "auction": lambda v: v.phase is Phase.BID and len(v.bids) >= 1,
    "play": lambda v: v.phase is Phase.PLAY and len(v.played_tiles()) >= 4,
    "between hands": lambda v: v.phase is Phase.DEAL,
    "second hand": lambda v: v.hand_number >= 1 and v.phase is Phase.PLAY
    and len(v.played_tiles()) >= 2,
}


@pytest.mark.parametrize("where", list(WHERE))
async def test_a_table_comes_back_after_a_crash_as_it_was(where: str) -> None:
    stop = WHERE[where]

    def waiting(update: TableUpdate) -> bool:
        view = update.view
        return view is not None and stop(view) and (view.to_move in (0, 1)
                                                    or view.phase is Phase.DEAL)

    journal, clock = MemoryJournal(), ManualClock()
    async with running(PAUSED, journal=journal, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", holding(stop, 1))
        bob = await join(lobby, tg, "bob", holding(stop, 2))
        table_id = await table_with_bots(ann, SHORT, humans=(bob,))
        ann.handle.send(SendChat("good luck", table_id))
        await bob.wait_type(ChatPosted)
        await reach(clock, ann, waiting)
        seen = {c.name: await settled(c, table_id) for c in (ann, bob)}
        (listed,) = lobby.tables()
        disk = crashed(journal)
    kept = [dict(h) for h in disk.hands[table_id].values()]

    store, clock = MemoryRecordStore(), ManualClock()
    async with running(PAUSED, store=store, journal=disk, clock=clock) as (lobby, tg):
        (restored,) = lobby.tables()
        same_table(listed, restored)
        assert lobby.held_names() >= {"ann", "bob"}
        back = []
        for name in ("ann", "bob"):
            client = await join(lobby, tg, name)
            update = await client.wait_type(TableUpdate)
            chat = client.of_type(ChatPosted)
            assert [(c.line.sender, c.line.text) for c in chat] == [("ann", "good luck")]
            assert client.events.index(chat[0]) < client.events.index(update)
            assert update.seat == seen[name].seat and update.view == seen[name].view
            back.append(client)
        await play_on(back, table_id)
        finished = await play_out(clock, back[0])
    assert store.finished == [True]
    record = store.records[0]
    assert record["seats"] == ["ann", "bob", "easy bot"]
    replayed = replay(record)
    assert replayed["ok"] and replayed["complete"]
    assert replayed["winner"] == finished.outcome.winner
    a_prefix_of(kept, record["hands"])
    assert game_from_record(record).is_terminal()


async def test_a_private_four_player_table_with_a_spectator_comes_back() -> None:
    rules = Rules.make(players=4, target=15)
    stop = WHERE["play"]
    journal = MemoryJournal()
    async with running(journal=journal) as (lobby, tg):
        ann = await join(lobby, tg, "ann", holding(stop, 1))
        bob = await join(lobby, tg, "bob", holding(stop, 2))
        carol = await join(lobby, tg, "carol")
        table_id = await new_table(ann, CreateTable("secret", rules, None, True, True))
        code = ann.of_type(TableUpdate)[-1].table.invite_code
        assert code is not None
        bob.handle.send(JoinByCode(code))
        await ann.wait_type(TableUpdate, lambda u: u.table.seats[1].name == "bob")
        for seat in (2, 3):
            ann.handle.send(AddBot(table_id, seat, "easy"))
        ann.handle.send(StartGame(table_id))
        carol.handle.send(JoinByCode(code))
        await carol.wait_type(TableUpdate, lambda u: u.seat is None and u.view is not None)
        await ann.wait_type(TableUpdate, lambda u: u.view is not None and stop(u.view)
                            and u.view.to_move in (0, 1), timeout=30)
        seen = {c.name: await settled(c, table_id) for c in (ann, bob, carol)}
        (listed,) = lobby.tables()
        assert listed.private and listed.spectators == ("carol",)
        disk = crashed(journal)

    store = MemoryRecordStore()
    async with running(store=store, journal=disk) as (lobby, tg):
        (restored,) = lobby.tables()
        same_table(listed, restored)
        stranger = await join(lobby, tg, "dave")
        stranger.handle.send(JoinByCode(code))
        watching = await stranger.wait_type(TableUpdate)
        assert watching.seat is None and watching.table.table_id == table_id
        assert "carol" in watching.table.spectators and "dave" in watching.table.spectators
        assert watching.table.spectators_away == ("carol",)  # her place waits for her
        carol = await join(lobby, tg, "carol")
        update = await carol.wait_type(TableUpdate)
        assert update.seat is None and update.view == seen["carol"].view
        assert update.table.spectators_away == ()
        back = []
        for name in ("ann", "bob"):
            client = await join(lobby, tg, name)
            update = await client.wait_type(TableUpdate)
            assert update.seat == seen[name].seat and update.view == seen[name].view
            back.append(client)
        await play_on(back, table_id)
        await carol.wait_type(GameFinished, timeout=60)
    assert store.finished == [True]
    assert store.records[0]["seats"] == ["ann", "bob", "easy bot", "easy bot"]
    assert replay(store.records[0])["complete"]


async def test_computers_play_on_at_once_and_a_watcher_not_back_in_time_closes_the_table(
) -> None:
    journal = MemoryJournal()
    async with running(journal=journal) as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        table_id = await new_table(ann, CreateTable("bots", SHORT))
        ann.handle.send(Spectate(table_id))
        for seat in range(3):
            ann.handle.send(AddBot(table_id, seat, "easy"))
        ann.handle.send(StartGame(table_id))
        await ann.wait_type(TableUpdate, lambda u: u.view is not None
                            and len(u.view.played_tiles()) >= 3, timeout=30)
        disk = crashed(journal)

    store, clock = MemoryRecordStore(), ManualClock()
    async with running(journal=disk, store=store, clock=clock) as (lobby, tg):
        (restored,) = lobby.tables()
        assert restored.spectators == ("ann",) and restored.status == "playing"
        async with asyncio.timeout(60):
            while lobby.tables()[0].status != "finished":  # the computers play it out
                await asyncio.sleep(0.01)
        assert store.records == [], "nobody played it: it is not kept"
        clock.advance(LobbyConfig().restart_grace_seconds - 1)
        # What would close the table is a call on the clock: it is still to come, a
        # second on, and nothing else is due before it.
        assert clock.next_in() == pytest.approx(1), "ann's place is kept to the end"
        assert [t.table_id for t in lobby.tables()] == [table_id], "ann's place is kept"
        clock.advance(1)
        async with asyncio.timeout(10):
            while lobby.tables():
                await asyncio.sleep(0.01)
    assert disk.tables == {} and disk.hands == {}, "closed for good: forgotten"


async def test_a_players_turn_waits_the_restart_grace_then_the_stand_in_takes_the_seat(
) -> None:
    config = dataclasses.replace(PAUSED, restart_grace_seconds=600, reconnect_wait_seconds=30)
    stop = WHERE["auction"]
    journal, clock = MemoryJournal(), ManualClock()
    async with running(config, journal=journal, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", playing_like("easy", 1))
        bob = await join(lobby, tg, "bob", holding(stop, 2))
        table_id = await table_with_bots(ann, SHORT, humans=(bob,), turn_seconds=30)
        waiting = await reach(clock, ann, lambda u: u.view is not None and stop(u.view)
                              and u.view.to_move == 1)
        assert waiting.view is not None
        spoken = len(waiting.view.bids)
        disk = crashed(journal)

    clock = ManualClock()
    async with running(config, journal=disk, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        update = await ann.wait_type(TableUpdate)
        assert update.table.seats[1].away and update.view is not None
        assert update.view.to_move == 1 and update.reconnect_left == 600
        assert update.turn_left is None, "bob's timer starts when he is back"
        clock.advance(599)
        later = await settled(ann, table_id)
        assert later.view is not None and len(later.view.bids) == spoken, "nobody bid for bob"
        assert later.reconnect_left == 1
        clock.advance(1)
        moved = await ann.wait_type(TableUpdate, lambda u: u.view is not None
                                    and len(u.view.bids) > spoken)
        assert moved.table.seats[1].is_bot, "the stand-in has bob's seat for good"


async def test_a_player_back_in_time_gets_the_seat_and_a_whole_turn() -> None:
    config = dataclasses.replace(PAUSED, restart_grace_seconds=600)
    stop = WHERE["play"]
    journal, clock = MemoryJournal(), ManualClock()
    async with running(config, journal=journal, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", holding(stop, 1))
        table_id = await table_with_bots(ann, SHORT, turn_seconds=40)
        await reach(clock, ann, lambda u: u.view is not None and stop(u.view)
                    and u.view.to_move == 0)
        seen = await settled(ann, table_id)
        disk = crashed(journal)

    clock = ManualClock()
    async with running(config, journal=disk, clock=clock) as (lobby, tg):
        clock.advance(300)
        ann = await join(lobby, tg, "ann")
        back = await ann.wait_type(TableUpdate)
        assert back.view == seen.view and back.view is not None and back.view.my_turn
        assert back.turn_left == 40 and back.reconnect_left is None
        assert not back.table.seats[0].away
        clock.advance(700)  # the restart's grace is over: it does not matter any more
        still = await settled(ann, table_id)
        assert still.table.seats[0].name == "ann" and not still.table.seats[0].away


async def test_a_clean_shutdown_keeps_the_game_and_saves_it_once() -> None:
    journal, store = MemoryJournal(), MemoryRecordStore()
    stop = WHERE["play"]
    async with running(journal=journal, store=store) as (lobby, tg):
        ann = await join(lobby, tg, "ann", holding(stop, 1))
        table_id = await table_with_bots(ann, SHORT)
        await ann.wait_type(TableUpdate, lambda u: u.view is not None and stop(u.view)
                            and u.view.to_move == 0, timeout=30)
        seen = await settled(ann, table_id)
    assert [t.reason for t in ann.of_type(TableLeft)] == [Leave.SERVER_STOPPING]
    assert store.records == [], "the game goes on after the restart: saved when it ends"
    async with running(journal=journal, store=store) as (lobby, tg):
        assert [t.table_id for t in lobby.tables()] == [table_id]
        ann = await join(lobby, tg, "ann", playing_like("easy", 9))
        assert (await ann.wait_type(TableUpdate)).view == seen.view
        await ann.wait_type(GameFinished, timeout=60)
        mark = ann.mark()
        ann.handle.send(SendChat("gg", table_id))
        await ann.wait_type(ChatPosted, start=mark)
        created = await new_table(ann, CreateTable("another", SHORT))
        assert created != table_id, "new tables do not take a restored table's id"
    assert store.finished == [True]
    async with running(journal=journal, store=store) as (lobby, tg):
        tables = {t.table_id: t for t in lobby.tables()}
        assert tables[table_id].status == "finished" and created in tables
        ann = await join(lobby, tg, "ann")
        update = await ann.wait_type(TableUpdate, lambda u: u.table.table_id == table_id)
        assert update.view is not None and update.view.outcome is not None
        lines = [c.line.text for c in ann.of_type(ChatPosted)]
        assert lines == ["gg"]
    assert store.finished == [True], "a finished game is saved once"


class DiskLikeJournal(MemoryJournal):
    """A journal whose writes take a while, as the server's do (they wait for its
    database thread): other tasks run meanwhile."""

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        await asyncio.sleep(0.005)
        await super().write(entries, then)


class LateStore(MemoryRecordStore):
    """A record store that notes what the journal held when each record came, and can
    be made to never finish a save (the server killed before the record reached it)."""

    def __init__(self, journal: MemoryJournal, *, hangs: bool = False) -> None:
        super().__init__()
        self.journal = journal
        self.killed: asyncio.Event | None = asyncio.Event() if hangs else None
        """Set: the hanging saves give up, their records lost with the server."""
        self.journal_then: list[dict[str, Any]] = []

    async def save(self, record: dict[str, Any], *, finished: bool) -> None:
        self.journal_then.append({t: row["status"] for t, row in self.journal.tables.items()})
        if self.killed is not None:
            await self.killed.wait()
            return
        await super().save(record, finished=finished)


async def test_a_finished_game_is_saved_after_the_journal_has_its_end() -> None:
    """Saved before, a crash in between would bring the game back unfinished, to be
    finished (perhaps otherwise) and saved a second time."""
    journal = DiskLikeJournal()
    store = LateStore(journal)
    async with running(journal=journal, store=store) as (lobby, tg):
        ann = await join(lobby, tg, "ann", playing_like("easy", 1))
        table_id = await table_with_bots(ann, SHORT)
        await ann.wait_type(GameFinished, timeout=60)
        async with asyncio.timeout(10):
            while not store.records:
                await asyncio.sleep(0.01)
    assert store.journal_then == [{table_id: "finished"}]
    assert store.finished == [True]


async def test_a_crash_before_the_record_is_saved_saves_it_after_the_restart() -> None:
    journal = MemoryJournal()
    hanging = LateStore(journal, hangs=True)
    async with running(journal=journal, store=hanging) as (lobby, tg):
        ann = await join(lobby, tg, "ann", playing_like("easy", 1))
        table_id = await table_with_bots(ann, SHORT)
        over = await ann.wait_type(GameFinished, timeout=60)
        async with asyncio.timeout(10):
            while not hanging.journal_then:  # the save began, and never ends
                await asyncio.sleep(0.01)
        disk = crashed(journal)
        assert hanging.killed is not None
        hanging.killed.set()
    assert hanging.records == []

    store = MemoryRecordStore()
    async with running(journal=disk, store=store) as (lobby, tg):
        assert [t.status for t in lobby.tables()] == ["finished"]
        async with asyncio.timeout(10):
            while not store.records:
                await asyncio.sleep(0.01)
    (record,) = store.records
    assert store.finished == [True]
    game = game_from_record(record)
    assert game.scores == over.scores and game.outcome() == over.outcome
    assert table_id in disk.tables, "the table is still there for its rematch"


async def test_a_finished_table_comes_back_with_its_rematch_votes_and_a_waiting_one_too(
) -> None:
    journal = MemoryJournal()
    async with running(journal=journal) as (lobby, tg):
        ann = await join(lobby, tg, "ann", playing_like("easy", 1))
        bob = await join(lobby, tg, "bob", playing_like("easy", 2))
        cy = await join(lobby, tg, "cy")
        played = await table_with_bots(ann, SHORT, humans=(bob,))
        await ann.wait_type(GameFinished, timeout=60)
        ann.handle.send(Rematch(played))
        await bob.wait_type(TableUpdate, lambda u: u.table.rematch_votes == ("ann",))
        waiting = await table_with_bots(cy, SHORT, start=False)
        await cy.wait_type(TableUpdate, lambda u: u.table.seats[2].is_bot)
        listed = {t.table_id: t for t in lobby.tables()}
        disk = crashed(journal)

    store = MemoryRecordStore()
    async with running(journal=disk, store=store) as (lobby, tg):
        tables = {t.table_id: t for t in lobby.tables()}
        same_table(listed[played], tables[played])
        same_table(listed[waiting], tables[waiting], stand_in=FAST.stand_in_level)
        cy = await join(lobby, tg, "cy")
        room = await cy.wait_type(TableUpdate)
        assert room.table.table_id == waiting and room.view is None and room.seat == 0
        bob = await join(lobby, tg, "bob", playing_like("easy", 3))
        over = await bob.wait_type(TableUpdate)
        assert over.view is not None and over.view.outcome is not None
        bob.handle.send(Rematch(played))  # ann's vote was kept: the rematch starts
        await bob.wait_type(TableUpdate, lambda u: u.table.status == "playing"
                            and u.view is not None and u.view.outcome is None)


async def test_a_table_an_operator_closes_is_forgotten_and_its_game_saved() -> None:
    journal, store = MemoryJournal(), MemoryRecordStore()
    async with running(journal=journal, store=store) as (lobby, tg):
        ann = await join(lobby, tg, "ann", holding(WHERE["play"], 1))
        root = await join(lobby, tg, "root", operator=True)
        table_id = await table_with_bots(ann, SHORT)
        await ann.wait_type(TableUpdate, lambda u: u.view is not None
                            and WHERE["play"](u.view) and u.view.my_turn, timeout=30)
        assert table_id in journal.tables
        root.handle.send(CloseTable(table_id, "maintenance"))
        await ann.wait_type(TableLeft)
        async with asyncio.timeout(10):
            while lobby.tables():
                await asyncio.sleep(0.01)
    assert journal.tables == {} and journal.hands == {} and journal.chat == {}
    assert store.finished == [False]


async def test_a_journal_that_cannot_be_read_stops_the_start() -> None:
    class Unreadable(MemoryJournal):
        async def load(self) -> list[SavedTable]:
            raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        async with Lobby(FAST, journal=Unreadable()):
            pass


# --- writing before telling ---------------------------------------------------------------

class GateJournal(MemoryJournal):
    """A journal whose writes wait until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.waiting = 0

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        self.waiting += 1
        await self.gate.wait()
        self.waiting -= 1
        await super().write(entries, then)


async def test_nothing_is_told_before_the_journal_has_it() -> None:
    journal = GateJournal()
    async with running(journal=journal) as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        table_id = await table_with_bots(ann, SHORT)
        mine = await ann.wait_type(TableUpdate, lambda u: u.view is not None
                                   and u.view.my_turn, timeout=30)
        assert mine.view is not None
        await settled(ann, table_id)
        journal.gate.clear()
        mark = ann.mark()
        writes = journal.writes
        ann.handle.send(SendChat("hello", table_id))
        ann.handle.send(Act(table_id, mine.view.legal[0]))
        async with asyncio.timeout(5):
            while journal.waiting == 0:
                await asyncio.sleep(0)
        for _ in range(20):
            await asyncio.sleep(0)
        assert ann.mark() == mark, "neither the line nor the move is told while it is written"
        assert journal.writes == writes
        journal.gate.set()
        said = await ann.wait_type(ChatPosted, start=mark)
        assert said.line.text == "hello"
        moved = await ann.wait_type(TableUpdate, start=mark)
        assert moved.view is not None and not moved.view.my_turn
        assert journal.writes > writes  # one pass took up both: one write


class CheckingJournal(MemoryJournal):
    """A journal slow to write (other tasks run meanwhile)."""

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        await super().write(entries, then)


def in_journal(journal: MemoryJournal, update: TableUpdate) -> bool:
    """The journal holds at least what `update` shows of the game."""
    view = update.view
    if view is None:
        return True
    hands = journal.hands.get(update.table.table_id, {})
    hand = hands.get(view.hand_number)
    if hand is None:
        return False
    played = [str(t) for t in view.played_tiles()]
    return len(view.bids) <= len(hand["bids"]) and hand.get("plays", [])[:len(played)] == played


class Checking(Client):
    """A player who checks, as each update arrives, that the journal already has it."""

    def __init__(self, client: Client, journal: MemoryJournal) -> None:
        super().__init__(client.handle, client.policy)
        self.journal = journal
        self.checked = 0

    async def run(self) -> None:
        async for event in self.handle:
            if isinstance(event, TableUpdate):
                assert in_journal(self.journal, event), event
                self.checked += 1
            self.events.append(event)
            self._arrived.set()
            if self.policy is not None and isinstance(event, TableUpdate):
                self._maybe_play(event)


async def test_every_update_a_member_reads_is_already_in_the_journal() -> None:
    journal = CheckingJournal()
    async with running(journal=journal) as (lobby, tg):
        players = []
        for name, seed in (("ann", 5), ("bob", 6)):
            handle = await lobby.connect(name)
            player = Checking(Client(handle, playing_like("easy", seed)), journal)
            tg.create_task(player.run())
            players.append(player)
        ann, bob = players
        await table_with_bots(ann, SHORT, humans=(bob,))
        await ann.wait_type(GameFinished, timeout=60)
    assert ann.checked > 20 and bob.checked > 20


class Snapshots(Client):
    """A spectator who copies the journal at each update it reads (a crash at any moment)."""

    def __init__(self, handle: PlayerHandle, journal: MemoryJournal) -> None:
        super().__init__(handle)
        self.journal = journal
        self.copies: list[tuple[TableUpdate, list[dict[str, Any]]]] = []

    async def run(self) -> None:
        async for event in self.handle:
            if isinstance(event, TableUpdate) and event.view is not None:
                hands = self.journal.hands.get(event.table.table_id, {})
                self.copies.append((event, copy.deepcopy([dict(h) for h in hands.values()])))
            self.events.append(event)
            self._arrived.set()


async def test_the_journal_at_any_moment_replays_to_the_game_so_far() -> None:
    journal, store = MemoryJournal(), MemoryRecordStore()
    async with running(journal=journal, store=store) as (lobby, tg):
        watcher = Snapshots(await lobby.connect("ann"), journal)
        tg.create_task(watcher.run())
        table_id = await new_table(watcher, CreateTable("bots", SHORT))
        watcher.handle.send(Spectate(table_id))
        for seat in range(3):
            watcher.handle.send(AddBot(table_id, seat, "easy"))
        watcher.handle.send(StartGame(table_id))
        await watcher.wait_type(GameFinished, timeout=60)
        rules, names = journal.tables[table_id]["rules"], journal.tables[table_id]["game_names"]
        first = journal.tables[table_id]["first_bidder"]
        record = {"hands": [hand for _, hand in sorted(journal.hands[table_id].items())]}
    assert store.records == [], "only computers played: no record"
    assert len(watcher.copies) > 50
    for update, hands in watcher.copies:
        a_prefix_of(hands, record["hands"])
        state = game_from_record({"format": "moon/1", "rules": rules, "seats": names,
                                  "first_bidder": first, "hands": hands})
        view = update.view
        assert view is not None and state.hand_number >= view.hand_number
        if state.hand_number == view.hand_number:
            seen = state.spectator_view()
            assert len(seen.bids) >= len(view.bids)
            assert seen.played_tiles()[:len(view.played_tiles())] == view.played_tiles()


class FullDisk(MemoryJournal):
    """A journal whose writes fail while `full` (a full disk), as the server's do."""

    def __init__(self) -> None:
        super().__init__()
        self.full = False
        self.refused = 0

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        if self.full:
            self.refused += 1
            raise OSError("database or disk is full")
        await super().write(entries, then)

    def writable(self) -> bool:
        return not self.full


async def test_a_table_whose_journal_fails_waits_showing_nothing_and_goes_on_after(
        caplog: pytest.LogCaptureFixture) -> None:
    """Nothing a player is shown is missing from the journal, even on a full disk: the
    table waits (and says so) until its journal writes again, and then goes on by itself;
    a crash meanwhile comes back as the players last saw it. No new table opens meanwhile.
    """
    journal, store = FullDisk(), MemoryRecordStore()
    with caplog.at_level(logging.WARNING, logger="moon_tui.lobby.writing"):
        async with running(journal=journal, store=store) as (lobby, tg):
            ann = Checking(Client(await lobby.connect("ann")), journal)
            tg.create_task(ann.run())
            table_id = await table_with_bots(ann, SHORT)
            mine = await ann.wait_type(TableUpdate, lambda u: u.view is not None
                                       and u.view.my_turn, timeout=30)
            shown = await settled(ann, table_id)
            assert shown.view is not None
            journal.full = True
            mark = ann.mark()
            ann.handle.send(Act(table_id, shown.view.legal[0]))
            told = await ann.wait_type(Notice, start=mark)
            assert told.code is Tell.CANNOT_SAVE
            async with asyncio.timeout(10):
                while journal.refused < 3:  # it tries again, and again
                    await asyncio.sleep(0.01)
            disk = crashed(journal)  # a kill -9 now
            ann.handle.send(CreateTable("another", SHORT))
            refused = await ann.wait_type(Rejected, start=mark)
            assert refused.code is Refusal.CANNOT_SAVE
            assert not any(isinstance(e, TableUpdate) for e in ann.events[mark:]), \
                "the move is not shown"
            journal.full = False
            again = await ann.wait_type(Notice, lambda n: n.code is Tell.SAVING_AGAIN,
                                        start=mark)
            moved = await ann.wait_type(TableUpdate, start=mark)
            assert again.level == "info"
            assert moved.view is not None and not moved.view.my_turn
            ann.policy = playing_like("easy", 1)
            ann.handle.send(Resync(table_id))
            await ann.wait_type(GameFinished, timeout=60)
            tables = await journal.load()
    assert ann.checked > 10, "every update was checked against the journal"
    failed = [r for r in caplog.records if "the journal failed" in r.getMessage()]
    assert len(failed) == 1, "said once, not on every try"
    assert any("works again" in r.getMessage() for r in caplog.records)
    (kept,) = tables
    assert kept.data["status"] == "finished", "the move waited, then the game went on"
    record = store.records[0]
    assert [dict(h) for h in kept.hands] == record["hands"], "nothing lost or doubled"
    assert mine.view is not None

    async with running(journal=disk) as (lobby, tg):
        back = await join(lobby, tg, "ann")
        update = await back.wait_type(TableUpdate)
        assert update.view == shown.view, "after the crash: what ann last saw"


async def test_a_saved_table_that_cannot_be_rebuilt_is_dropped_and_the_rest_come_back(
        caplog: pytest.LogCaptureFixture) -> None:
    journal = MemoryJournal()
    stop = WHERE["play"]
    async with running(journal=journal) as (lobby, tg):
        ann = await join(lobby, tg, "ann", holding(stop, 1))
        bob = await join(lobby, tg, "bob", holding(stop, 2))
        for owner in (ann, bob):
            await table_with_bots(owner, SHORT)
        for owner in (ann, bob):
            await owner.wait_type(TableUpdate, lambda u: u.view is not None and stop(u.view)
                                  and u.view.my_turn, timeout=30)
        disk = crashed(journal)
    broken_id, good_id = sorted(disk.tables)
    disk.hands[broken_id][0] = {**disk.hands[broken_id][0], "plays": ["6-6", "6-6"]}
    store = MemoryRecordStore()
    with caplog.at_level(logging.ERROR, logger="moon_tui.lobby.lobby"):
        async with running(journal=disk, store=store) as (lobby, tg):
            assert [t.table_id for t in lobby.tables()] == [good_id]
            assert broken_id not in disk.tables, "forgotten"
    assert any(broken_id in r.getMessage() and "does not replay" in r.getMessage()
               for r in caplog.records)
    assert store.finished == [False] and store.records[0]["hands"][0]["plays"] == ["6-6", "6-6"]


# --- the rows themselves ------------------------------------------------------------------

def bare_table(rules: Rules) -> TableState:
    """A table's core, not running: the test plays its game by hand and writes it."""
    return TableState("t1", "ann", CreateTable("t", rules, None), invite_code="ABCDEF",
                      config=FAST, seed=1)


async def written_and_read_back(seed: int, steps: int, players: int, every: int) -> None:
    """Two games on one table, each played `steps` random decisions and written every
    `every` of them: the journal reads back to the same game each time."""
    rules = Rules.make(players=players, target=10)
    journal = MemoryJournal()
    table = bare_table(rules)
    writer = TableWriter("t1", journal)
    rng = random.Random(seed)
    for seat in range(1, players):
        table.seating.add_bot(seat, "easy")
    for _game in range(2):
        table.game = state = GameState.new_game(rules, rng)
        table.game_names = table.seating.names()
        table.status = "playing"
        for step in range(steps):
            if state.is_terminal():
                table.status = "finished"
                break
            if state.current_player() == CHANCE:
                state.deal(rng)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            if step % every == 0:
                await writer.write(table)
        await writer.write(table)
        (saved,) = await journal.load()
        restored = read_saved(saved)
        assert restored.state is not None
        assert record_of(restored.state, table.game_names) == record_of(state, table.game_names)
        assert restored.status == table.status and restored.seats == tuple(
            table.seating.infos(table.stand_in_level))


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 150), players=st.sampled_from([3, 4]),
       every=st.integers(1, 7))
def test_any_game_written_step_by_step_reads_back_the_same(
        seed: int, steps: int, players: int, every: int) -> None:
    asyncio.run(written_and_read_back(seed, steps, players, every))


def test_a_saved_table_reads_back_through_its_row_only() -> None:
    saved = SavedTable("t9", {"version": 99})
    with pytest.raises(ValueError, match="t9: row version 99"):
        read_saved(saved)


# --- a journal edited by hand or damaged (issue 36) ----------------------------------------

async def four_tables_mid_game() -> MemoryJournal:
    """Four tables, ann's, bob's, cy's and dee's, each stopped at its owner's turn in the
    play of the first hand, as a crash leaves them."""
    journal = MemoryJournal()
    stop = WHERE["play"]
    async with running(journal=journal) as (lobby, tg):
        owners = [await join(lobby, tg, name, holding(stop, seed))
                  for seed, name in enumerate(("ann", "bob", "cy", "dee"))]
        for owner in owners:
            await table_with_bots(owner, SHORT)
        for owner in owners:
            await owner.wait_type(TableUpdate, lambda u: u.view is not None and stop(u.view)
                                  and u.view.my_turn, timeout=30)
        return crashed(journal)


async def test_tampered_saved_tables_are_dropped_with_a_reason_and_the_rest_come_back(
        caplog: pytest.LogCaptureFixture) -> None:
    disk = await four_tables_mid_game()
    over, crowd, forged, good = disk.tables  # in the order they were created
    disk.tables[over] = {**disk.tables[over], "status": "finished"}  # in mid-hand
    disk.tables[crowd] = {**disk.tables[crowd],
                          "spectators": [f"p{number}" for number in range(100_000)]}
    disk.tables[forged] = {**disk.tables[forged],
                           "owner": "cy\n2026-01-01 INFO login olga (operator)"}
    disk.tables["t" + "9" * 5000] = disk.tables[good]  # an id no lobby gives
    store = MemoryRecordStore()
    with caplog.at_level(logging.ERROR, logger="moon_tui.lobby.lobby"):
        async with running(journal=disk, store=store) as (lobby, tg):
            assert [t.table_id for t in lobby.tables()] == [good]
            assert set(disk.tables) == {good}, "the others are forgotten"
    reasons = [r.getMessage() for r in caplog.records]
    assert len(reasons) == 4 and all(len(r) < 300 and "\n" not in r for r in reasons)
    assert f"table '{over}'" in reasons[0] \
        and "the table says finished, but its game has not ended" in reasons[0]
    assert "spectators is ['p0', 'p1'," in reasons[1] and "at most 1000 names" in reasons[1]
    assert "owner is 'cy\\n2026-01-01 INFO" in reasons[2]
    assert "not a table's id" in reasons[3]
    # Each dropped game with its hands is kept as an unfinished record, none as finished.
    assert store.finished == [False] * 3


async def test_a_table_saved_with_an_option_that_means_nothing_there_comes_back() -> None:
    # New tables refuse the widow's options without a widow, but the form offered them at
    # any table until issue 30: a game saved with them is still restored and played on.
    journal = MemoryJournal()
    async with running(journal=journal) as (lobby, tg):
        ann = await join(lobby, tg, "ann", holding(WHERE["play"], 1))
        table_id = await table_with_bots(ann, Rules.make(players=4, target=15))
        await ann.wait_type(TableUpdate, lambda u: u.view is not None
                            and WHERE["play"](u.view) and u.view.to_move == 0, timeout=30)
        disk = crashed(journal)
    disk.tables[table_id]["rules"].update(discard_shown=True, trump_before_widow=True)
    async with running(journal=disk) as (lobby, tg):
        (restored,) = lobby.tables()
        assert restored.rules.discard_shown and restored.rules.players == 4
        ann = await join(lobby, tg, "ann")
        update = await ann.wait_type(TableUpdate, lambda u: u.view is not None)
        assert update.view is not None and update.view.rules.discard_shown
