"""The table's link over a real bus: commands to the table's stream, each member's own view
to the one worker serving them, and nothing read from the bus taken on trust."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
import valkey.asyncio as valkey

from moon_tui.lobby import codec
from moon_tui.lobby.internal import (
    Acked,
    Attach,
    BotMoved,
    FromMember,
    TableMessage,
    TableOutput,
    ToMember,
)
from moon_tui.lobby.messages import Act, JoinSeat, Rejected, TableUpdate
from moon_tui.lobby.refusals import Refusal, Refused
from moon_tui.rules import Action
from server import bus_link
from server.bus import connect
from server.bus_link import WorkerBus, table_inbox
from server.bus_server import BusServer
from server.driver import Asks
from server.ownership import lease_key
from tests.test_lobby_codec import a_real_update
from tools.probe import eventually


@asynccontextmanager
async def worker(bus: BusServer, name: str, serving: set[str],
                 asks: Asks | None = None) -> AsyncIterator[WorkerBus]:
    """One worker's end of the bus, serving the names in `serving`, running."""
    writer, reader = await connect(bus.url, bounded=False), await connect(bus.url, bounded=False)
    end = WorkerBus(writer, writer, reader, name, serving.__contains__, asks)
    for person in serving:
        await end.serve(person)
    task = asyncio.create_task(end.run())
    try:
        yield end
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await writer.aclose()
        await reader.aclose()


@asynccontextmanager
async def table_on_w0_for_ann_on_w1(bus: BusServer) -> AsyncIterator[
        tuple[WorkerBus, WorkerBus, list[TableMessage]]]:
    """Table t1 run on w0 (what reaches it goes to the list), ann on w1 linked to it."""
    async with worker(bus, "w0", {"olga"}) as w0, worker(bus, "w1", {"ann"}) as w1:
        inbox: list[TableMessage] = []
        w0.owner_link("t1", lambda _: None).open(inbox.append)
        w1.remote_link("t1", lambda _: None)
        yield w0, w1, inbox


def collect() -> tuple[list[object], Callable[[object], None]]:
    got: list[object] = []
    return got, got.append


async def test_commands_reach_the_owner_and_each_member_gets_only_their_own_view(
    valkey_bus: BusServer,
) -> None:
    watcher = valkey.Valkey.from_url(valkey_bus.url)
    seen: list[str] = []

    async def monitor() -> None:  # everything any client asks of the bus
        async with watcher.monitor() as commands:
            async for command in commands.listen():
                seen.append(command["command"])

    spy = asyncio.create_task(monitor())
    try:
        async with worker(valkey_bus, "w0", {"olga"}) as w0, \
                worker(valkey_bus, "w1", {"ann"}) as w1, \
                worker(valkey_bus, "w2", {"bob"}) as w2:
            owner_out: list[TableOutput] = []
            inbox: list[TableMessage] = []
            owner = w0.owner_link("t1", owner_out.append)
            owner.open(inbox.append)
            ann_got, ann_receive = collect()
            bob_got, bob_receive = collect()
            w1.remote_link("t1", ann_receive)
            w2.remote_link("t1", bob_receive)
            await eventually(lambda: len(seen) > 0, "the monitor runs")

            act = Act("t1", Action.parse("pass"))
            w1.remote["t1"].to_table(FromMember("ann", act, False, 7))
            await eventually(lambda: bool(inbox), "ann's command reached the table on w0")
            [command] = inbox
            assert isinstance(command, FromMember) and command.command == act
            assert command.command_id < 0  # the owner's own number for it
            owner.to_lobby(Acked(command.command_id))
            answer = ToMember("ann", Rejected.because(act, Refused(Refusal.TABLE_FAILED)))
            owner.to_lobby(answer)
            owner.told()  # the end of the table's pass
            # The acknowledgement goes with what the command brought about, in one write:
            # alone and first, the next write waited for the bus's answer to it.
            await eventually(lambda: len(ann_got) == 2, "w1 got its answer")
            assert ann_got == [answer, Acked(7)], "acknowledged under w1's own command id"
            ann_got.clear()

            # Each member's view goes only to the worker serving them.
            ann_view = a_real_update()
            assert ann_view.view is not None and ann_view.view.hand
            bob_view = TableUpdate(ann_view.table, None, None, ann_view.seq)
            owner.to_lobby(ToMember("ann", ann_view))
            owner.to_lobby(ToMember("bob", bob_view))
            owner.to_lobby(ToMember("olga", bob_view))  # served by the owner: not on the bus
            owner.to_lobby(ToMember("carl", ann_view))  # served by nobody: dropped
            await eventually(lambda: len(ann_got) == 1 and len(bob_got) == 1, "the views")
            assert ann_got == [ToMember("ann", ann_view)]
            assert bob_got == [ToMember("bob", bob_view)]
            assert owner_out == [ToMember("olga", bob_view)]
            hand = json.dumps([str(t) for t in ann_view.view.hand], separators=(",", ":"))
            # Where it is written (the worker serving a name is found by the bus itself,
            # in the script that writes: the script's own call shows as an XADD).
            carrying = [c for c in seen if hand in c.replace("\\\"", "\"")
                        and c.startswith("XADD")]
            assert carrying and all("moon:worker:w1:in" in c for c in carrying), carrying
    finally:
        spy.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await spy
        await watcher.aclose()


async def test_apps_give_way_while_another_workers_players_command_is_answered(
    valkey_bus: BusServer,
) -> None:
    # The owner's apps give way (patch 9) from the command's coming to its answer's
    # writing, as to a key of the owner's own players: the answer does not wait behind
    # them (measured: 5.7 ms p50 between the view's queueing and its writing, 2.5 after).
    asks = Asks()
    async with worker(valkey_bus, "w0", set(), asks) as w0, \
            worker(valkey_bus, "w1", {"ann"}) as w1:
        inbox: list[TableMessage] = []
        owner = w0.owner_link("t1", lambda _: None)
        owner.open(inbox.append)
        ann_got, ann_receive = collect()
        w1.remote_link("t1", ann_receive)
        w1.remote["t1"].to_table(FromMember("ann", Act("t1", Action.parse("pass")), False, 7))
        await eventually(lambda: bool(inbox), "ann's command reached the table on w0")
        assert asks.waiting.keys() == {w0}  # w0 answers a player w1 serves
        [command] = inbox
        assert isinstance(command, FromMember)
        owner.to_lobby(Acked(command.command_id))
        owner.to_lobby(ToMember("ann", a_real_update()))
        owner.told()
        await eventually(lambda: ann_got[-1:] == [Acked(7)], "the answer reached w1")
        await eventually(lambda: not asks.waiting, "written: w0's apps go on")


async def test_what_the_bus_carries_is_checked_and_bad_entries_are_dropped(
    valkey_bus: BusServer,
) -> None:
    async with worker(valkey_bus, "w0", set()) as w0, worker(valkey_bus, "w1", {"ann"}) as w1:
        inbox: list[TableMessage] = []
        w0.owner_link("t1", lambda _: None).open(inbox.append)
        forged = codec.encode(BotMoved(1, 0, Action.parse("pass"), False))
        for fields in ({"m": b"\xff not json", "from": "w1"},
                       {"m": json.dumps({"v": codec.VERSION + 1, "t": "Attach", "name": "x"}),
                        "from": "w1"},
                       {"m": forged, "from": "w1"},  # the table's own computers only
                       {"m": codec.encode(FromMember("ann", JoinSeat("t1"))), "from": "w1\n"},
                       {"m": codec.encode(FromMember("ann", JoinSeat("t1")))}):
            await w1.bus.xadd(table_inbox("t1"), fields)
        good = FromMember("ann", JoinSeat("t1", 1))
        w1.send(table_inbox("t1"), good)
        await eventually(lambda: bool(inbox), "the good command after the bad ones")
        assert inbox == [good] and w0.dropped == 5

        # A command that cannot be written is refused on the sender's side.
        ann_got, ann_receive = collect()
        link = w1.remote_link("t1", ann_receive)
        link.to_table(FromMember("ann", JoinSeat("t1", "2"), False, 3))  # type: ignore[arg-type]
        assert [type(m) for m in ann_got] == [ToMember, Acked]
        refusal = ann_got[0]
        assert isinstance(refusal, ToMember) and isinstance(refusal.event, Rejected)
        assert refusal.event.code is Refusal.NOT_A_COMMAND


async def test_a_member_who_moved_to_another_worker_stays_theirs(valkey_bus: BusServer) -> None:
    async with worker(valkey_bus, "w1", {"ann"}) as w1, worker(valkey_bus, "w2", set()) as w2:
        await w2.serve("ann")  # ann reconnected and landed on w2
        await w1.leave("ann")  # w1's old session of ann ends after
        assert await w1.bus.get("moon:member:ann") == b"w2"
        await w2.leave("ann")
        assert await w1.bus.get("moon:member:ann") is None


async def test_a_table_let_go_leaves_its_stream_to_a_worker_that_took_it_over(
    valkey_bus: BusServer,
) -> None:
    async with worker(valkey_bus, "w0", set()) as w0:
        for holder, kept in (("w1.7", True), ("w0.7", False), (None, False)):
            await w0.bus.delete(lease_key("t1"))
            if holder is not None:
                await w0.bus.set(lease_key("t1"), holder)
            link = w0.owner_link("t1", lambda _: None)
            link.open(lambda _: None)
            await w0.bus.xadd(table_inbox("t1"), {"m": codec.encode(Attach("ann")),
                                                  "from": "w1"})
            link.shut()
            w0.send("after", Attach("ann"))  # written after the stream was let go
            async with asyncio.timeout(10):
                while not await w0.bus.exists("after"):
                    await asyncio.sleep(0.02)
            assert bool(await w0.bus.exists(table_inbox("t1"))) is kept, holder
            await w0.bus.delete("after", table_inbox("t1"))


async def test_commands_past_what_may_wait_for_the_bus_are_refused_in_words(
    valkey_bus: BusServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While the bus is away commands wait for it, at most `UNSENT_MAX` entries: past
    that the oldest are dropped, and whoever sent one is told and not left waiting."""
    monkeypatch.setattr(bus_link, "UNSENT_MAX", 2)
    async with worker(valkey_bus, "w1", {"bob"}) as end:
        got, receive = collect()
        link = end.remote_link("t1", receive)
        valkey_bus.stop()
        for command_id in (1, 2, 3):
            link.to_table(FromMember("bob", Act("t1", Action.parse("pass")), False,
                                     command_id))
        await eventually(lambda: end.lost == 1, "the oldest command dropped")
        [told, acked] = got
        assert isinstance(told, ToMember) and isinstance(told.event, Rejected)
        assert told.event.code is Refusal.BUS_AWAY and acked == Acked(1)
        valkey_bus.start()
        await eventually(lambda: end.waiting == 0, "the two others written")


async def test_a_batch_written_again_after_a_cut_reaches_the_table_once(
    valkey_bus: BusServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The bus took a batch but its answer was lost (a connection cut at that moment): the
    # worker wrote the batch again once the bus answered, and a player's move reached
    # the table twice (the second refused as out of turn; a chat line shown twice).
    async with table_on_w0_for_ann_on_w1(valkey_bus) as (w0, w1, inbox):
        written = w1._write
        cuts: list[int] = []

        async def written_then_cut(batch: list[tuple[int, bus_link._Out]],
                                   served: list[tuple[int, str]]) -> list[object]:
            replies = await written(batch, served)
            if not cuts:  # written, but the worker never hears so
                cuts.append(len(batch))
                raise ConnectionResetError("the answer was lost")
            return replies

        monkeypatch.setattr(w1, "_write", written_then_cut)
        monkeypatch.setattr(bus_link, "RETRY_SECONDS", 0.1)
        act = Act("t1", Action.parse("pass"))
        w1.remote["t1"].to_table(FromMember("ann", act, False, 7))
        await eventually(lambda: w0.repeats == 1, "the batch written again, and read")
        assert cuts == [1]
        assert len(inbox) == 1 and isinstance(inbox[0], FromMember)


async def test_a_bus_that_stops_answering_is_left_and_what_waited_is_written_once_back(
    valkey_bus: BusServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    # The two connections a move crosses have no socket timeout of valkey-py's (it sent
    # each command through a task of its own, two passes of the loop later): a bus that
    # takes a command and never answers (paused, or a network cut with no reset) must
    # still be given up, the connection dropped, and what waits written once it answers.
    monkeypatch.setattr(bus_link, "ANSWER_SECONDS", 0.5)
    monkeypatch.setattr(bus_link, "RETRY_SECONDS", 0.1)
    async with table_on_w0_for_ann_on_w1(valkey_bus) as (w0, w1, inbox):
        await asyncio.sleep(0.1)  # both reading
        pauser = valkey.Valkey.from_url(valkey_bus.url)
        await pauser.execute_command("CLIENT", "PAUSE", 4_000, "ALL")  # every client
        await pauser.aclose()
        act = Act("t1", Action.parse("pass"))
        w1.remote["t1"].to_table(FromMember("ann", act, False, 7))
        await eventually(lambda: "entries wait to be written (no answer in time)"
                         in caplog.text, "the writer gave up waiting for the bus's answer")
        await eventually(lambda: "cannot read (no answer in time)" in caplog.text,
                         "and so did the reader")
        assert not inbox
        await eventually(lambda: bool(inbox) and w1.waiting == 0, "written once it answered")
        await asyncio.sleep(0.3)
        assert len(inbox) == 1 and isinstance(inbox[0], FromMember)


def test_a_stamp_no_worker_writes_is_not_compared() -> None:
    # What a worker reads from the bus is input to check: a number of 5,000 digits made
    # int() raise (Python's limit on digits), which would have stopped the reader.
    end = WorkerBus(None, None, None, "w0", lambda _: False)  # type: ignore[arg-type]  # no bus
    assert not end._repeated("s", b"w1.9.ab:" + b"9" * 5000)
    assert not end._repeated("s", b"x" * 100 + b":1")
    assert not end._repeated("s", b"w1.9.ab:7") and end._repeated("s", b"w1.9.ab:7")


async def test_a_move_sent_while_its_table_was_between_owners_is_played_by_the_next_once(
    valkey_bus: BusServer,
) -> None:
    """w0 ran t1 and took up ann's first move in a pass its journal kept; then w0 died
    (its task ended, t1 never let go: as after `kill -9`). ann's second move, sent while
    nobody ran t1, is played by w2, which takes t1 over; the first is not played again."""
    first, second = Act("t1", Action.parse("pass")), Act("t1", Action.parse("bid 4"))
    async with worker(valkey_bus, "w1", {"ann"}) as w1:
        remote = w1.remote_link("t1", lambda _: None)
        async with worker(valkey_bus, "w0", set()) as w0:
            on_w0: list[TableMessage] = []
            owner = w0.owner_link("t1", lambda _: None)
            owner.open(on_w0.append)
            await eventually(lambda: not w0._resuming, "w0 reads t1's stream")
            remote.to_table(FromMember("ann", first, False, 7))
            await eventually(lambda: bool(on_w0), "the first move reached w0")
            [taken] = on_w0
            assert isinstance(taken, FromMember)
            owner.to_lobby(Acked(taken.command_id))
            owner.told()  # the pass that took it up was written
            async with asyncio.timeout(10):
                while not await w1.bus.exists(bus_link.taken_key("t1")):
                    await asyncio.sleep(0.02)
        remote.to_table(FromMember("ann", second, False, 8))
        async with asyncio.timeout(10):
            while await w1.bus.xlen(table_inbox("t1")) < 2:
                await asyncio.sleep(0.02)
        async with worker(valkey_bus, "w2", set()) as w2:
            on_w2: list[TableMessage] = []
            w2.owner_link("t1", lambda _: None).open(on_w2.append)
            await eventually(lambda: bool(on_w2), "the move made between owners reached w2")
            await asyncio.sleep(0.3)
            assert [m.command for m in on_w2 if isinstance(m, FromMember)] == [second]


def test_a_table_taken_over_reads_from_where_its_owner_got_to_never_long_ago() -> None:
    now = 1_800_000_000.0
    assert bus_link.resume_from(None, now) is None  # new to the bus: from now
    assert bus_link.resume_from(b"garbage-1", now) is None
    assert bus_link.resume_from(b"1799999990000-3", now) == "1799999990000-3"
    oldest = f"{int((now - bus_link.RESUME_SECONDS) * 1000)}-0"
    assert bus_link.resume_from(b"1000-0", now) == oldest  # a club down for long: not replayed
