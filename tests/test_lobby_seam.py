"""The seam between players and tables: commands go straight to the table, and what
crosses it are plain values, numbered, so a table could run in another process."""

from __future__ import annotations

from collections import Counter

from test_lobby import FAST, LONG_GAME, join, new_table, running, table_with_bots

from moon_tui.lobby import (
    Act,
    CreateTable,
    GameFinished,
    Lobby,
    PlayerHandle,
    Refusal,
    Rejected,
    Resync,
    SendChat,
    TableUpdate,
)
from moon_tui.lobby.codec import decode, encode
from moon_tui.lobby.internal import (
    Acked,
    Attach,
    BotMoved,
    Detach,
    FromHandle,
    FromMember,
    GraceOver,
    LobbyMessage,
    TableMessage,
    TableOutput,
)
from moon_tui.lobby.links import InProcessLink, LoopbackLink
from moon_tui.lobby.restoring import TABLE_ID
from moon_tui.lobby.router import Router
from moon_tui.lobby.stats import LobbyStats
from moon_tui.rules import Action, Rules
from tools.client import first_legal


def test_a_table_command_goes_to_the_tables_link_and_the_rest_to_the_lobby() -> None:
    lobby: list[LobbyMessage] = []
    router = Router(InProcessLink, lobby.append, LobbyStats())
    table: list[TableMessage] = []
    router.link("t1").open(table.append)
    handle = PlayerHandle("ann", operator=False, queue_size=8, post=lobby.append,
                          router=router)
    act = Act("t1", Action.make_pass())
    handle.send(act)
    handle.send(CreateTable("new"))
    handle.send(SendChat("hi", "t1"))  # chat is rate-limited by the lobby, per player
    assert table == [FromMember("ann", act, command_id=1)]
    assert lobby == [FromHandle(handle, CreateTable("new")),
                     FromHandle(handle, SendChat("hi", "t1"))]
    assert handle.pending == 3
    handle.send(Act("t9", Action.make_pass()))
    assert handle.pending == 3, "answered at once: no such table"


async def test_an_acknowledgement_counts_on_the_session_that_sent_the_command() -> None:
    """The table acknowledges a command by its number: after a reconnection the old
    session's commands no longer count against (or for) the new one."""
    lobby: list[LobbyMessage] = []
    router = Router(InProcessLink, lobby.append, LobbyStats())
    table: list[TableMessage] = []
    link = router.link("t1")
    link.open(table.append)
    old = PlayerHandle("ann", operator=False, queue_size=8, post=lobby.append, router=router,
                       max_pending=2)
    router.players["ann"] = old
    old.send(Resync("t1"))
    old.send(Resync("t1"))
    new = PlayerHandle("ann", operator=False, queue_size=8, post=lobby.append, router=router,
                       max_pending=2)
    router.players["ann"] = new  # the same name connected again
    new.send(Resync("t1"))
    new.send(Resync("t1"))
    for sent in table[:2]:  # the table takes up the old session's two
        assert isinstance(sent, FromMember)
        link.to_lobby(Acked(sent.command_id))
    assert (old.pending, new.pending) == (0, 2)
    new.send(Resync("t1"))
    assert isinstance(await new.next_event(), Rejected), "two still pending: the bound holds"


def test_a_tables_messages_are_plain_values() -> None:
    for message in (FromMember("ann", Act("t1", Action.make_pass()), by_code=True),
                    Attach("ann"), BotMoved(3, 1, Action.make_pass(), False),
                    GraceOver("bob", 12.5)):
        assert decode(encode(message)) == message


async def test_events_are_plain_values_and_each_tables_states_are_numbered() -> None:
    async with running() as (lobby, tg):
        ann = await join(lobby, tg, "ann", first_legal)
        carol = await join(lobby, tg, "carol")
        await table_with_bots(ann, Rules.make(target=7), level="random")
        finished = await ann.wait_type(GameFinished, timeout=60)
        last = await ann.wait_type(TableUpdate, lambda u: u.table.status == "finished")
    for event in ann.events + carol.events:
        assert decode(encode(event)) == event
    seqs = [u.seq for u in ann.of_type(TableUpdate)]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and seqs[0] >= 1
    assert finished.seq < last.seq


async def test_a_member_catches_up_with_resync_and_a_stranger_is_refused() -> None:
    async with running(FAST) as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        bob = await join(lobby, tg, "bob")
        table_id = await table_with_bots(ann, LONG_GAME, start=False)
        latest = await ann.wait_type(TableUpdate, lambda u: u.table.seats[2].is_bot)
        mark = ann.mark()
        ann.handle.send(Resync(table_id, 0))
        again = await ann.wait_type(TableUpdate, start=mark)
        assert again == latest, "the same state, with the same number"
        mark = ann.mark()
        ann.handle.send(Resync(table_id, again.seq))  # up to date: nothing to send
        ann.handle.send(Act(table_id, Action.make_pass()))  # its answer comes after
        await ann.wait_type(Rejected, start=mark)
        assert not [e for e in ann.events[mark:] if isinstance(e, TableUpdate)]
        bob.handle.send(Resync(table_id))
        refused = await bob.wait_type(Rejected)
        assert (refused.code, refused.params) == (Refusal.NOT_AT_TABLE, {"table_id": table_id})


class Counting(LoopbackLink):
    """A loopback link that counts what crosses it, by type."""

    crossed: Counter[str] = Counter()

    def to_table(self, message: TableMessage) -> None:
        Counting.crossed[type(message).__name__] += 1
        super().to_table(message)

    def to_lobby(self, message: TableOutput) -> None:
        Counting.crossed[type(message).__name__] += 1
        super().to_lobby(message)


async def test_a_game_crosses_the_tables_link_as_messages_both_ways() -> None:
    Counting.crossed.clear()
    async with running(link=Counting) as (lobby, tg):
        ann = await join(lobby, tg, "ann", first_legal)
        await table_with_bots(ann, Rules.make(target=7), level="random")
        await ann.wait_type(GameFinished, timeout=60)
        assert lobby.stats.games == 1 and lobby.stats.hands >= 1, "counted through the link"
    assert {"FromMember", "BotMoved", "CloseNow", "ToMember", "Acked", "EntryChanged",
            "Counted", "TableClosed"} <= set(Counting.crossed)


class Recording(InProcessLink):
    """An in-process link that keeps what goes into its table."""

    seen: list[tuple[str, TableMessage]] = []

    def to_table(self, message: TableMessage) -> None:
        Recording.seen.append((self.table_id, message))
        super().to_table(message)


async def test_a_login_and_a_logout_reach_only_the_tables_that_hold_a_place() -> None:
    Recording.seen.clear()
    async with running(link=Recording) as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        bob = await join(lobby, tg, "bob")
        await new_table(ann, CreateTable("a"))
        bobs = await new_table(bob, CreateTable("b"))
        carol = await join(lobby, tg, "carol")
        await carol.handle.close()
        again = await join(lobby, tg, "bob")  # the same name: a takeover
        await again.wait_type(TableUpdate, lambda u: u.table.table_id == bobs)
        await bob.handle.close()
    comings_and_goings = [(table_id, type(m).__name__, m.name) for table_id, m
                          in Recording.seen if isinstance(m, Attach | Detach)]
    assert comings_and_goings == [(bobs, "Attach", "bob")], "carol holds no place anywhere"


async def test_table_ids_are_not_a_count() -> None:
    ids = []
    for _ in range(2):
        async with Lobby(FAST) as lobby:
            ann = await lobby.connect("ann")
            ann.send(CreateTable("mine"))
            async for event in ann:
                if isinstance(event, TableUpdate):
                    ids.append(event.table.table_id)
                    break
    assert ids[0] != ids[1] and all(TABLE_ID.fullmatch(i) and len(i) == 7 for i in ids)
