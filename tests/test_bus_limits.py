"""One budget per address and per person on every worker of a club (issue 33, item 4):
two real workers on one data folder and one real bus, real SSH clients from one address
landing on both; and what a worker's limits do while the bus does not answer.

Before, each worker counted alone: an address got every budget once per worker."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
import valkey.asyncio as valkey

from moon_tui.lobby import Lobby
from moon_tui.lobby.lobby import CODE_GUESSES
from moon_tui.lobby.messages import JoinByCode, Rejected
from moon_tui.lobby.refusals import Refusal
from moon_tui.ui.door_words import BUS_AWAY
from server.bus import WorkerPlace
from server.bus_limits import BusGate, BusRates
from server.bus_server import BusServer
from server.config import Limits
from server.service import MoonServer
from tests.test_lobby import join
from tests.test_ssh_access import claims
from tests.test_ssh_game import FAST
from tests.test_ssh_places import said, turned_away, welcomed
from tools.probe import ScreenClient, enter_lobby, new_key, open_bot_table, refused, running_server

pytestmark = pytest.mark.ssh


@contextlib.asynccontextmanager
async def two_workers(bus: BusServer, data: Path, **options: object
                      ) -> AsyncIterator[tuple[MoonServer, MoonServer]]:
    """Workers 0 and 1 of a club on `bus`, each on a port of its own (the test chooses
    where each player lands)."""
    options.setdefault("lobby_config", FAST)
    async with contextlib.AsyncExitStack() as stack:
        w0, w1 = [await stack.enter_async_context(running_server(
            data, place=WorkerPlace(index, bus.url), **options)) for index in range(2)]
        yield w0, w1


async def test_an_address_has_one_budget_of_sessions_and_failed_logins_on_two_workers(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    limits = Limits(sessions_per_address_max=2, failed_logins_per_address=2,
                    failure_backoff_seconds=600)
    async with two_workers(valkey_bus, tmp_path, limits=limits) as (w0, w1):
        ann_key, cat_key = new_key(), new_key()
        ann = await welcomed(w0.port, "ann", key=ann_key)
        bob = await welcomed(w1.port, "bob", key=new_key())
        # One session here, one there: the address holds its two places.
        assert "already has 2 sessions open" in await turned_away(w0.port, "cat",
                                                                 key=cat_key)
        await bob.close()
        cat = await welcomed(w1.port, "cat", key=cat_key)  # bob's place came back
        await cat.close()
        await ann.close()

        # One refused name on each worker: the address waits on both.
        for worker in (w0, w1):
            assert "not a valid player name" in await refused(worker.port, "9lives",
                                                              new_key())
        for worker in (w0, w1):
            assert "Too many failed logins" in await refused(worker.port, "dan", new_key())
        ann = await welcomed(w1.port, "ann", key=ann_key)  # her own key: in all the same
        await ann.close()


async def test_an_address_claims_its_new_names_of_the_hour_once_on_two_workers(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    limits = Limits(new_names_per_address_per_hour=1)
    async with two_workers(valkey_bus, tmp_path, limits=limits) as (w0, w1):
        await claims(w0, "ann", new_key())
        assert "Too many new names from your address" in await refused(
            w1.port, "bob", new_key())


async def test_the_guests_of_an_address_open_their_tables_of_the_hour_once_on_two_workers(
    valkey_bus: BusServer, tmp_path: Path,
) -> None:
    # Every guest of one address is one person for the lobby's `tables_per_hour`.
    async with two_workers(valkey_bus, tmp_path,
                           lobby_config=replace(FAST, tables_per_hour=1)) as (w0, w1):
        first = await ScreenClient.connect(w0.port, "visitor")
        await enter_lobby(first, timeout=30)
        await open_bot_table(first, timeout=30)
        second = await ScreenClient.connect(w1.port, "visitor2")
        await enter_lobby(second, timeout=30)
        await second.press("n")
        await second.wait_for("Create (ctrl+s)")
        await second.press("\x13")
        await second.wait_for("within the hour")
        assert "you opened 1 table within the hour" in said(second)
        for client in (first, second):
            await client.close()


async def test_while_the_bus_is_away_members_get_in_and_strangers_wait(
    valkey_bus: BusServer,
) -> None:
    bus_server = valkey_bus
    bus = valkey.Valkey.from_url(bus_server.url)
    gate = BusGate(Limits(sessions_per_address_max=2))
    gate.attach(bus, "w0.1")
    try:
        bus_server.stop()
        assert await gate.restriction("10.0.0.1") == BUS_AWAY
        assert await gate.claim_refusal("10.0.0.1") == BUS_AWAY
        assert await gate.admit("guest-0001", "10.0.0.1", guest=True) == BUS_AWAY
        await gate.failed("10.0.0.1")  # not counted, and no harm done
        # A member is let in, counted here, and still bounded here.
        assert await gate.admit("ann", "10.0.0.1") is None
        assert await gate.admit("ann", "10.0.0.1") is None
        assert "already has 2 sessions open" in (await gate.admit("bob", "10.0.0.1") or "")
        # The bus is back (empty): the next renewal puts ann's sessions on it.
        bus_server.start()
        await gate.renew()
        assert await bus.hgetall(gate.sessions_key) == {b"n:ann": b"2", b"a:10.0.0.1": b"2"}
        assert "already has 2 sessions open" in (await gate.admit("bob", "10.0.0.1") or "")
        await gate.left("ann", "10.0.0.1")
        assert await gate.admit("bob", "10.0.0.1") is None
        assert await gate.restriction("10.0.0.1") is None
    finally:
        await bus.aclose()


async def test_a_guest_name_is_held_on_one_worker_until_it_lets_it_go(
    valkey_bus: BusServer,
) -> None:
    bus = valkey.Valkey.from_url(valkey_bus.url)
    here, there = BusGate(Limits()), BusGate(Limits())
    here.attach(bus, "w0.names")
    there.attach(bus, "w1.names")
    try:
        assert await here.reserve_guest_name("guest-4242") is True
        assert await there.reserve_guest_name("guest-4242") is False
        assert await here.reserve_guest_name("guest-4242") is False  # here too
        # A session's name is held as well (a guest who came in before the reservations).
        assert await here.admit("guest-4343", "10.0.0.9", guest=True) is None
        assert await there.reserve_guest_name("guest-4343") is False
        # The bus restarts empty: the next renewal puts the reservation back.
        valkey_bus.stop()
        assert await there.reserve_guest_name("guest-4444") is None  # cannot tell: refused
        valkey_bus.start()
        await here.renew()
        assert await there.reserve_guest_name("guest-4242") is False
        # Nothing holds the name here any more: free for the club at the next renewal.
        here.release_guest_names(["guest-4242", "guest-never-given"])
        await here.renew()
        assert await there.reserve_guest_name("guest-4242") is True
        assert "guest-4242" not in here.guest_names
    finally:
        await bus.aclose()


async def test_a_code_guesser_has_one_minute_of_guesses_on_two_workers(
    valkey_bus: BusServer,
) -> None:
    # Before, each worker's lobby counted wrong codes alone: a guesser who reconnected
    # and landed on the other worker had a fresh minute of guesses there.
    bus = valkey.Valkey.from_url(valkey_bus.url)
    try:
        async with asyncio.TaskGroup() as tg, \
                Lobby(FAST, rates=BusRates(bus, "w0.1")) as here, \
                Lobby(FAST, rates=BusRates(bus, "w1.2")) as there:
            first = await join(here, tg, "guesser")
            for _ in range(CODE_GUESSES - 1):
                first.handle.send(JoinByCode("nope12"))
            await first.wait_for(lambda e: len(first.of_type(Rejected)) == CODE_GUESSES - 1)
            await first.handle.close()
            second = await join(there, tg, "guesser")
            for _ in range(2):
                second.handle.send(JoinByCode("nope12"))
            await second.wait_for(lambda e: len(second.of_type(Rejected)) == 2)
            # The two codes were counted at once: either may be the one that fit.
            assert sorted(r.code for r in second.of_type(Rejected)) == sorted(
                [Refusal.NO_SUCH_CODE, Refusal.TOO_MANY_CODES])
            await second.handle.close()
    finally:
        await bus.aclose()
