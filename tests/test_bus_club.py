"""One club on several workers: three real servers on one data folder and one real bus,
each player on the worker the test chose (each worker has its own port here), real SSH
clients. A table opened on one worker is listed on the others, joined and watched from
them, and played; a spectator's worker never receives a hidden tile."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import valkey.asyncio as valkey

from moon_tui.lobby import codec
from moon_tui.lobby.internal import Acked, ClubShare, FromPeers, ToMember
from moon_tui.lobby.messages import ChatLine, ChatPosted, SeatInfo, TableInfo, TableUpdate
from moon_tui.ui.awaited import UNANSWERED_SECONDS
from server import identity
from server.bus import WorkerPlace
from server.bus_club import (
    WORKERS_KEY,
    ClubOnBus,
    checked_chat,
    last_share_key,
    share_key,
)
from server.bus_link import WAKE, WorkerBus, worker_inbox
from server.bus_server import BusServer
from server.service import MoonServer
from tests.test_ssh_game import FAST
from tests.test_ssh_survive import (
    WAIT,
    bids_made,
    create_table,
    move,
    my_turn,
    play,
    start_game,
)
from tools.probe import (
    ScreenClient,
    cursor_on,
    enter_lobby,
    eventually,
    new_key,
    offered_bids,
    running_server,
)

pytestmark = pytest.mark.ssh


async def entries(bus: valkey.Valkey, worker: str) -> list[tuple[bytes, object]]:
    """Every entry written to `worker`'s stream so far: its bytes and its message."""
    return [(fields[b"m"], codec.decode(fields[b"m"]))
            for _, fields in await bus.xrange(worker_inbox(worker)) if fields[b"m"] != WAKE]


def hands(got: list[tuple[bytes, object]], name: str) -> set[str]:
    """The hands `name` was shown, as the wire format writes them."""
    return {json.dumps([str(t) for t in m.event.view.hand], separators=(",", ":"))
            for _, m in got if isinstance(m, ToMember) and m.name == name
            and isinstance(m.event, TableUpdate) and m.event.view is not None
            and m.event.view.hand}


async def test_a_game_across_three_workers_and_the_spectator_sees_no_hidden_tile(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    bus = valkey.Valkey.from_url(valkey_bus.url)
    async with contextlib.AsyncExitStack() as stack:
        servers: list[MoonServer] = [await stack.enter_async_context(running_server(
            tmp_path, lobby_config=FAST, place=WorkerPlace(i, valkey_bus.url)))
            for i in range(3)]
        stack.push_async_callback(bus.aclose)
        ann, bob = [await ScreenClient.connect(server.port, name, key=new_key())
                    for server, name in zip(servers, ("ann", "bob"), strict=False)]
        for client in (ann, bob):
            await enter_lobby(client, WAIT)
        # The lobby chat reaches every worker, and its recent lines whoever comes later.
        await bob.press("c")
        await bob.wait_for(lambda _: cursor_on(bob, "c: chat with everyone"), WAIT)
        bob.send("hello from w1")
        await bob.press("enter")
        await ann.wait_for("hello from w1", WAIT)
        await bob.press("escape")
        carl_key = new_key()
        carl = await ScreenClient.connect(servers[2].port, "carl", key=carl_key)
        await enter_lobby(carl, WAIT)
        await carl.wait_for("hello from w1", WAIT)  # w2 may hear it after carl came
        # Who is online on the other workers is in everyone's lobby.
        await ann.wait_for(lambda s: "bob" in s and "carl" in s, WAIT)

        await create_table(ann, bots=1)  # on w0, ann's worker
        [table] = servers[0].lobby.tables()
        assert servers[0].owned is not None and table.table_id in servers[0].owned.leases.held
        await bob.wait_for("ann's table", WAIT)  # listed on w1
        await bob.press("j")
        await bob.wait_for("waiting room", WAIT)
        await start_game(ann)
        await bob.wait_for("hand 1", WAIT)
        await carl.wait_for("ann's table", WAIT)  # on w2
        await carl.press("w")
        await carl.wait_for("You are watching", WAIT)

        # Mid-hand: what crossed the bus to the spectator's worker holds no hand.
        await play([ann, bob], lambda s: "Trick 2" in s[0], WAIT)
        to_bob, to_carl = await entries(bus, "w1"), await entries(bus, "w2")
        bob_hands = hands(to_bob, "bob")
        assert bob_hands, "bob's views crossed to w1"
        assert {m.name for _, m in to_bob if isinstance(m, ToMember)} == {"bob"}
        views = [m.event for _, m in to_carl if isinstance(m, ToMember)
                 and isinstance(m.event, TableUpdate)]
        assert views and all(v.seat is None and (v.view is None or not v.view.hand)
                             for v in views)
        assert all(isinstance(m, Acked) or (isinstance(m, ToMember) and m.name == "carl")
                   for _, m in to_carl)
        assert not any(hand.encode() in raw for raw, _ in to_carl for hand in bob_hands)

        # To the end of the hand, bob playing from w1.
        await play([ann, bob], lambda s: "hand 2" in s[0] or "game is over" in s[0])
        await carl.wait_for(lambda s: "hand 2" in s or "game is over" in s, WAIT)

        # carl connects again, to w0: his session on w2 ends, as on one worker.
        again = await ScreenClient.connect(servers[0].port, "carl", key=carl_key)
        await again.wait_for("You are watching", WAIT)
        await carl.wait_closed(WAIT)
        assert servers[0].lobby.serves("carl") and not servers[2].lobby.serves("carl")
        for client in (ann, bob, carl, again):
            await client.close()


class Listener:
    """What a lobby is asked and told by its `ClubOnBus` (the test's stand-in lobby)."""

    def __init__(self) -> None:
        self.heard: list[object] = []

    def shared(self) -> ClubShare:
        return ClubShare((), ("ann",), ())

    def from_peers(self, message: object) -> None:
        self.heard.append(message)


def _club_listened(bus: valkey.Valkey) -> tuple[ClubOnBus, Listener]:
    """Worker w0's club on `bus`, with a stand-in lobby that keeps what it hears."""
    club = ClubOnBus(WorkerBus(bus, bus, bus, "w0", lambda _: False), 200, "w0.1",
                     None)  # type: ignore[arg-type]  # no news in these tests
    lobby = Listener()
    club._lobby = lobby  # type: ignore[assignment]  # the stand-in, not started
    return club, lobby


async def test_what_other_workers_share_is_checked_and_a_bad_share_dropped(
    valkey_bus: BusServer,
) -> None:
    bus = valkey.Valkey.from_url(valkey_bus.url)
    try:
        club, lobby = _club_listened(bus)
        good = ClubShare((), ("bob",), ())
        await bus.set(share_key("w1"), codec.encode(good))
        await bus.set(share_key("w2"), codec.encode(ClubShare((), ("bob\nforged",), ())))
        await bus.set(share_key("w3"), codec.encode(Acked(1)))
        await bus.set(share_key("w4"), b"\x80 not a message")
        await bus.sadd(WORKERS_KEY, "w1", "w2", "w3", "w4", "x9")
        await club.share_round()
        assert lobby.heard == [FromPeers((good,))] and club.dropped == 3
        assert codec.decode(await bus.get(share_key("w0"))) == replace(lobby.shared(),
                                                                       runner="w0.1")
        with pytest.raises(codec.CodecError):  # a chat line is let through as plain text
            checked_chat(ChatPosted(ChatLine("bob", "hi", "t1")), 200)
        long = checked_chat(ChatPosted(ChatLine("bob", "[b]x" * 100)), 200)
        assert long.line.text == ("[b]x" * 100)[:200]
    finally:
        await bus.aclose()


async def test_a_share_that_did_not_change_is_not_encoded_again(
    valkey_bus: BusServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each worker writes its share every half second; encoding it took ~4 ms at 150
    # players, in one piece of the loop, though a steady club's share seldom changes.
    encoded: list[object] = []
    encode = codec.encode

    def counted(message: Any) -> bytes:
        encoded.append(message)
        return encode(message)

    monkeypatch.setattr(codec, "encode", counted)
    bus = valkey.Valkey.from_url(valkey_bus.url)
    try:
        club, lobby = _club_listened(bus)
        await club.share_round()
        await club.share_round()
        assert len(encoded) == 1
        monkeypatch.setattr(lobby, "shared", lambda: ClubShare((), ("ann", "bob"), ()))
        await club.share_round()
        assert len(encoded) == 2
        assert codec.decode(await bus.get(share_key("w0"))) == ClubShare(
            (), ("ann", "bob"), (), runner="w0.1")
    finally:
        await bus.aclose()


async def test_a_worker_started_after_another_died_lists_its_tables_as_coming_back(
    valkey_bus: BusServer,
) -> None:
    # A worker started once a dead worker's share had expired knew nothing of its tables:
    # a player of theirs who came back there got the welcome banner, not "your table is
    # coming back". Each share is also kept a while (`last_share_key`) for such a worker.
    from moon_tui.rules import Rules

    bus = valkey.Valkey.from_url(valkey_bus.url)
    try:
        theirs = TableInfo("t7", "ann's table", "ann", Rules.make(), (SeatInfo("ann"),),
                           "playing", False, True, (), None)
        dead = ClubShare((theirs,), ("ann",), (), runner="w1.99")
        await bus.set(last_share_key("w1"), codec.encode(dead))  # its live share expired
        await bus.sadd(WORKERS_KEY, "w1")
        no_news = SimpleNamespace(close=lambda: None)
        club = ClubOnBus(WorkerBus(bus, bus, bus, "w0", lambda _: False), 200, "w0.1",
                         no_news)  # type: ignore[arg-type]  # no news in this test
        lobby = Listener()
        club._lobby = lobby  # type: ignore[assignment]  # the stand-in, not started
        await club.share_round()
        assert lobby.heard == [FromPeers((ClubShare((theirs,), (), ()),))]  # coming back
        assert await bus.get(last_share_key("w0")) == await bus.get(share_key("w0"))
        await club.close()  # a worker that stops leaves nothing to come back
        assert await bus.get(last_share_key("w0")) is None
    finally:
        await bus.aclose()


async def test_a_guest_is_never_given_a_name_a_guest_of_another_worker_has(
    valkey_bus: BusServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Guest names were drawn free of this worker's names only: a second guest drawing
    # the first one's number on another worker took the name, and the first guest's
    # worker ended their session (the club serves a name on one worker). Seen in the
    # load bench: a lobby player's connection gone in one run of three at 100 players.
    draws = iter([7, 7, 8])
    monkeypatch.setattr(identity, "secrets", SimpleNamespace(randbelow=lambda _: next(draws)))
    async with contextlib.AsyncExitStack() as stack:
        servers: list[MoonServer] = [await stack.enter_async_context(running_server(
            tmp_path, lobby_config=FAST, place=WorkerPlace(i, valkey_bus.url)))
            for i in range(2)]
        first = await ScreenClient.connect(servers[0].port, "visitor")
        await enter_lobby(first, WAIT)
        await first.wait_for("you are guest-0007", WAIT)
        await eventually(lambda: "guest-0007" in servers[1].lobby.online(),
                         "w1 knows who is on w0")
        second = await ScreenClient.connect(servers[1].port, "visitor")
        await enter_lobby(second, WAIT)
        await second.wait_for("you are guest-0008", WAIT)  # 7 is taken on w0
        await first.press("n")  # the first guest is still here, and served
        await first.wait_for("Create (ctrl+s)", WAIT)
        assert servers[0].lobby.serves("guest-0007")


async def test_two_guests_arriving_at_once_on_two_workers_never_draw_one_name(
    valkey_bus: BusServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A guest still reading the welcome is in no worker's lobby yet: the name they were
    # given was free for another worker's guest to draw too (and whichever came to the
    # lobby second ended the other's session). Now the gate reserves it on the bus.
    draws = iter([7, 7, 8])
    monkeypatch.setattr(identity, "secrets", SimpleNamespace(randbelow=lambda _: next(draws)))
    async with contextlib.AsyncExitStack() as stack:
        servers: list[MoonServer] = [await stack.enter_async_context(running_server(
            tmp_path, lobby_config=FAST, place=WorkerPlace(i, valkey_bus.url)))
            for i in range(2)]
        first = await ScreenClient.connect(servers[0].port, "visitor")
        await first.wait_for("go to the lobby", WAIT)  # given guest-0007, not in the lobby
        second = await ScreenClient.connect(servers[1].port, "visitor")
        await enter_lobby(second, WAIT)
        await second.wait_for("you are guest-0008", WAIT)  # 7 is held on w0
        await enter_lobby(first, WAIT)
        await first.wait_for("you are guest-0007", WAIT)
        await first.press("n")  # both are still here, each served by their worker
        await first.wait_for("Create (ctrl+s)", WAIT)
        assert servers[0].lobby.serves("guest-0007")
        assert servers[1].lobby.serves("guest-0008")


async def ann_and_bob_playing(stack: contextlib.AsyncExitStack, valkey_bus: BusServer,
                              tmp_path: Path
                              ) -> tuple[list[MoonServer], ScreenClient, ScreenClient]:
    """Workers 0 and 1 on the bus, ann on the first, bob on the second, both at ann's
    table (run on ann's worker) with a computer, its game started."""
    servers: list[MoonServer] = [await stack.enter_async_context(running_server(
        tmp_path, lobby_config=FAST, place=WorkerPlace(i, valkey_bus.url)))
        for i in range(2)]
    ann, bob = [await ScreenClient.connect(server.port, name, key=new_key())
                for server, name in zip(servers, ("ann", "bob"), strict=True)]
    for client in (ann, bob):
        await enter_lobby(client, WAIT)
    await create_table(ann, bots=1)
    await bob.wait_for("ann's table", WAIT)
    await bob.press("j")
    await bob.wait_for("waiting room", WAIT)
    await start_game(ann)
    return servers, ann, bob


async def test_a_game_across_two_workers_goes_on_after_the_bus_restarts_empty(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        servers, ann, bob = await ann_and_bob_playing(stack, valkey_bus, tmp_path)
        await play([ann, bob], lambda s: "Trick 2" in s[0], WAIT)

        valkey_bus.stop()  # nothing of the bus is kept: leases, shares, who is where
        valkey_bus.start()
        await play([ann, bob], lambda s: "hand 2" in s[0] or "game is over" in s[0])
        [table] = servers[0].lobby.tables()
        assert servers[0].owned is not None and table.table_id in servers[0].owned.leases.held
        for client in (ann, bob):
            await client.close()


async def test_a_move_made_while_the_bus_is_down_is_shown_at_once_and_played_once_it_is_back(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    """bob's table runs on ann's worker; bob moves while the bus is down: his screen shows
    his move at once (foreseen from his own view, `rules/foresight.py`), and after
    `UNANSWERED_SECONDS` the table as it last was, saying it has not taken the move; the
    move waits on his worker and is played when the bus is back (it was lost,
    unacknowledged, and his game waited for a move he had made)."""
    async with contextlib.AsyncExitStack() as stack:
        servers, ann, bob = await ann_and_bob_playing(stack, valkey_bus, tmp_path)
        # Past the auction: a bid that wins it shows the widow, which only the table knows.
        await play([ann, bob], lambda s: my_turn(s[1]) and not my_turn(s[0])
                   and offered_bids(s[1]) is None, WAIT)
        assert servers[1].club_bus is not None
        link = servers[1].club_bus.link

        valkey_bus.stop()
        before = bob.text()
        key = move(before)
        assert key is not None
        await bob.press(key)
        await eventually(lambda: link.waiting > 0, "bob's move waits for the bus")
        # Shown while the table has not had it (whether bob leads next or not: his tile may
        # take the trick).
        await bob.wait_for(lambda s: s != before, WAIT)
        assert link.waiting > 0
        back = await bob.wait_for("has not taken your move yet", UNANSWERED_SECONDS + WAIT)
        assert my_turn(back) and link.waiting > 0
        valkey_bus.start()
        handle = servers[1].lobby._router.players["bob"]
        await eventually(lambda: handle.pending == 0, "bob's move taken up by his table")
        assert link.lost == 0
        await play([ann, bob], lambda s: "hand 2" in s[0] or "game is over" in s[0])
        for client in (ann, bob):
            await client.close()


async def test_a_bid_taking_the_widow_made_while_the_bus_is_down_is_said_sent_at_once(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    """bob's table runs on ann's worker; bob makes the bid that wins the auction while the
    bus is down: what follows (the widow in his hand) only the table can show, so his
    screen says at once that the bid is sent, after `UNANSWERED_SECONDS` that the table
    has not taken it, and the bid is played when the bus is back. Meanwhile no other
    move of his is sent."""
    async with contextlib.AsyncExitStack() as stack:
        servers, ann, bob = await ann_and_bob_playing(stack, valkey_bus, tmp_path)
        # bob bids last in one of the first three hands: any bid of his then wins.
        await play([ann, bob], lambda s: offered_bids(s[1]) is not None
                   and bids_made(s[1]) == 2, 120)
        bids = offered_bids(bob.text())
        assert bids is not None
        valkey_bus.stop()
        await bob.press(str(min(bids)) if bids else "m")  # (only the moon may be left)
        sent = await bob.wait_for("You bid ", WAIT)
        assert ": waiting for the table" in sent
        assert offered_bids(sent) is not None  # (nothing foreseen: the auction as it was)
        handle = servers[1].lobby._router.players["bob"]
        assert handle.pending == 1
        await bob.press("p", "s")  # one move at a time: the pass is not sent
        await bob.wait_for("Score sheet", WAIT)  # (the keys before it were taken)
        assert handle.pending == 1
        await bob.press("escape")
        back = await bob.wait_for("has not taken your move yet", UNANSWERED_SECONDS + WAIT)
        assert offered_bids(back) is not None
        valkey_bus.start()
        await bob.wait_for("You took the widow", WAIT)
        for client in (ann, bob):
            await client.close()
