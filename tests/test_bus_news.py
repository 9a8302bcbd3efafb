"""One club on every worker (issue 33, item 4): an operator on one worker reaches the
players of another (a broadcast, a kick, a ban, a restart countdown that stops every
worker), an invitation reaches a player on another worker, and each worker's busy alarm
is shown to the operators on all. Two real servers on one data folder and one real bus,
real SSH clients; and what another worker writes on the club's news is checked."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest

from moon_tui.lobby import CreateTable
from moon_tui.lobby.codec import CodecError
from moon_tui.lobby.internal import (
    ClubBusy,
    ClubRestart,
    ClubShare,
    PeerBroadcast,
    PeerInvite,
    PeerKick,
    PeerNotices,
)
from moon_tui.lobby.messages import BoardNote, Invite
from server.bus import WorkerPlace
from server.bus_news import checked_news
from server.bus_server import BusServer
from server.service import MoonServer
from tests.test_ssh_operator import dashboard, type_command
from tests.test_ssh_survive import WAIT
from tools.probe import ScreenClient, enter_lobby, eventually, new_key, operator_club, refused

pytestmark = pytest.mark.ssh


async def test_an_operator_on_one_worker_reaches_the_players_of_another(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    olga_key, ann_key, bob_key = new_key(), new_key(), new_key()
    async with contextlib.AsyncExitStack() as stack:
        w0, w1 = [await stack.enter_async_context(operator_club(
            tmp_path, olga_key, place=WorkerPlace(i, valkey_bus.url))) for i in range(2)]
        servers: tuple[MoonServer, MoonServer] = (w0, w1)
        ann, bob, cat = [await ScreenClient.connect(w1.port, name, key=key)
                         for name, key in (("ann", ann_key), ("bob", bob_key),
                                           ("cat", new_key()))]
        for client in (ann, bob, cat):
            await enter_lobby(client, WAIT)
        olga = await dashboard(w0, olga_key)
        await eventually(lambda: {"ann", "bob", "cat"} <= set(w0.lobby.online()),
                         "w0 knows who is on w1")
        # Her People list has them too, on another worker (a row to kick from).
        await olga.wait_for(lambda s: any("ann" in line and "another worker" in line
                                          and "lobby" in line for line in s.splitlines()),
                            WAIT)

        # A broadcast made on w0 reaches the players of w1, and w1's notice board.
        await type_command(olga, "say tea at 8")
        await ann.wait_for(lambda s: "Notice from olga" in s and "tea at 8" in s, WAIT)

        # w1's busy alarm is on the dashboard of an operator on w0, naming w1.
        for _ in range(3):
            w1.load.note(0.2, time.monotonic(), time.process_time())
        await olga.wait_for("Worker w1 is busy", WAIT)

        # An invitation from w0 reaches cat on w1.
        dan = await w0.lobby.connect("dan")
        dan.send(CreateTable("dan's table"))
        await eventually(lambda: len(w0.lobby.tables()) == 1, "dan's table")
        dan.send(Invite(w0.lobby.tables()[0].table_id, "cat"))
        await cat.wait_for("dan invites you to dan's table", WAIT)

        # A kick on w0 ends ann's session on w1, and keeps her out of both workers.
        await type_command(olga, "kick ann 30m rude")
        await ann.wait_for("removed by an operator (olga) for 30 minutes: rude", WAIT)
        await ann.wait_closed(WAIT)
        for server in servers:
            assert "30 more minutes: rude" in await refused(server.port, "ann", ann_key)

        # A ban on w0 ends bob's session on w1; his name and his key are refused on both.
        await type_command(olga, "ban bob cheating")
        await bob.wait_for("cheating", WAIT)
        await bob.wait_closed(WAIT)
        for server in servers:
            assert "banned" in await refused(server.port, "bob", bob_key)
            assert "This key is banned" in await refused(server.port, "bobby", bob_key)

        # A restart countdown started on w0 shows on w1, is called off there too, and,
        # started again, stops every worker at its end.
        await type_command(olga, "restart 600 new version")
        await cat.wait_for("The server restarts in 10 min", WAIT)
        assert w1.restart.by == "olga"
        await type_command(olga, "restart cancel")
        await cat.wait_for("The server restart was called off", WAIT)
        await type_command(olga, "restart 1")
        for server in servers:
            await eventually(server.stopped.is_set, "every worker stopped", WAIT)
            assert server.restart.ended_by == "olga"
        await cat.wait_closed(WAIT)
        await dan.close()
        for client in (olga, ann, bob, cat):
            await client.close()


async def test_a_worker_started_during_a_restart_countdown_counts_down_too(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    # A worker restarted (or added) in the middle of a countdown knew nothing of it: it
    # did not stop with the others, and told its players nothing.
    olga_key = new_key()
    async with contextlib.AsyncExitStack() as stack:
        w0 = await stack.enter_async_context(operator_club(
            tmp_path, olga_key, place=WorkerPlace(0, valkey_bus.url)))
        olga = await dashboard(w0, olga_key)
        await type_command(olga, "restart 8 new version")
        await eventually(lambda: w0.restart.running, "the countdown runs on w0")
        w1 = await stack.enter_async_context(operator_club(
            tmp_path, olga_key, place=WorkerPlace(1, valkey_bus.url)))
        assert w1.restart.running and w1.restart.by == "olga"
        cat = await ScreenClient.connect(w1.port, "cat", key=new_key())
        await enter_lobby(cat, WAIT)
        await cat.wait_for("The server restarts in 5 s", WAIT)  # told at 5 s, as everyone
        for server in (w0, w1):
            await eventually(server.stopped.is_set, "both workers stopped", WAIT)
        w2 = await stack.enter_async_context(operator_club(  # one that ended is no news
            tmp_path, olga_key, place=WorkerPlace(2, valkey_bus.url)))
        assert not w2.restart.running
        for client in (olga, cat):
            await client.close()


@pytest.mark.parametrize("news", [
    ClubShare((), (), ()),  # not news
    PeerBroadcast("hi", "olga\nforged"),
    PeerNotices(BoardNote("hi", "", 1.0), None),
    PeerKick("", False, "olga", "", 0.0),
    PeerKick("ann", False, "olga", "", -1.0),
    PeerInvite("ann", "bob", "t", "t1", "abcdef"),  # not an invite code
    PeerInvite("ann", "bob", "t", "t" * 40, "ABCDEF"),
    ClubRestart(3601, "", "olga", 0.0),
    ClubRestart(60, "", "", 0.0),  # the system's own countdown is not news
    ClubBusy(True, -1, 0.5, 3, 100.0, 60.0, 0, 1.0),
])
def test_news_another_worker_could_not_have_written_is_refused(news: object) -> None:
    with pytest.raises(CodecError):
        checked_news(news)


def test_news_is_taken_as_the_lobby_would_have_let_it_through() -> None:
    assert checked_news(PeerBroadcast("[b]x\x1b[2J" + "y" * 600, "olga")) == \
        PeerBroadcast("[b]x[2J" + "y" * 493, "olga")
    assert checked_news(PeerNotices(BoardNote("a\x07b", "olga", 1.0, 2.0), "c\u202ed")) == \
        PeerNotices(BoardNote("ab", "olga", 1.0, 2.0), "cd")
    assert checked_news(PeerInvite("ann", "bob", "\x1b]52;c;", "t1", "")).table == "]52;c;"
    assert checked_news(ClubRestart(None, "", "olga", 1.0)) == \
        ClubRestart(None, "", "olga", 1.0)
