"""Who gets in from where: guest names and seats, per-address limits, bans, bare logins.

Other addresses are other loopback addresses (127.0.0.2): the server listens on 127.0.0.1
and sees the client's source address. Time-based rules (backoff, ban expiry) move the
server's clocks instead of waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncssh
import pytest

from moon_tui.lobby import Ban, LobbyConfig
from server.auth import AuthContext, MoonSSHServer
from server.config import Limits, ServerConfig
from server.identity import guest_name
from server.limits import Gate
from server.service import MoonServer
from server.store import Database
from tools.probe import (
    ScreenClient,
    enter_lobby,
    eventually,
    new_key,
    open_connection,
    refused,
    running_server,
)

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                   bot_time_budget=0.05,
                   grace_seconds=60, operators=frozenset({"olga"}))
HOME = "127.0.0.1"
AWAY = "127.0.0.2"
"""A second address on the loopback network: another player's house."""
FROM_AWAY = {"local_addr": (AWAY, 0)}
DEADLINE = 20.0
DAY = 86400.0


async def logs_in(port: int, username: str, key: asyncssh.SSHKey | None = None,
                  **options: object) -> None:
    conn = await open_connection(port, username, key=key, **options)
    conn.close()
    await conn.wait_closed()


async def soon(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """`eventually` for a condition that has to be awaited (a database read: polled, as
    nothing announces a write)."""
    async with asyncio.timeout(DEADLINE):
        while not await check():
            await asyncio.sleep(0.05)


async def claims(server: MoonServer, name: str, key: asyncssh.SSHKey) -> None:
    """A first login that claims `name`, and the claim saved: the client may leave before
    the server has written it, and until then the name is still free (a new name)."""
    await logs_in(server.port, name, key)
    await soon(lambda: has_account(server, name), f"{name}'s claim saved")


async def has_account(server: MoonServer, name: str) -> bool:
    return await server.db.account(name) is not None


def draws(*numbers: int) -> Callable[[int], int]:
    """A random draw that returns `numbers` in turn."""
    queue = iter(numbers)
    return lambda _below: next(queue)


def guest_of(screen: str) -> str:
    found = re.search(r"Welcome, (guest-\d+)", screen)
    assert found, screen
    return found.group(1)


async def seat_then_drop(server: MoonServer, username: str, **options: object) -> str:
    """A guest opens a table, sits at it, and drops: the seat is kept for the grace."""
    client = await ScreenClient.connect(server.port, username, **options)
    name = guest_of(await client.wait_for("Welcome, guest-"))
    await enter_lobby(client)
    await client.press("n")
    await client.wait_for("Create (ctrl+s)")
    await client.press("\x13")
    await client.wait_for("waiting room")
    await client.close()
    await eventually(
        lambda: any(seat.name == name and seat.away
                    for table in server.lobby.tables() for seat in table.seats),
        f"{name}'s seat is kept, marked away",
    )
    await eventually(lambda: name not in server.sessions, f"{name} is offline")
    return name


class SilentSockets:
    """TCP connections that never say a word (asyncio streams, not SSH)."""

    def __init__(self) -> None:
        self.readers: list[asyncio.StreamReader] = []
        self.writers: list[asyncio.StreamWriter] = []

    async def open(self, port: int, count: int) -> None:
        for _ in range(count):
            reader, writer = await asyncio.open_connection(HOME, port)
            self.readers.append(reader)
            self.writers.append(writer)

    async def first_bytes(self, index: int) -> bytes:
        """What the server sent before it closed connection `index` (b"": nothing)."""
        received = bytearray()
        with contextlib.suppress(ConnectionError):
            async with asyncio.timeout(DEADLINE):
                while data := await self.readers[index].read(65536):
                    received.extend(data)
        return bytes(received)

    def close(self) -> None:
        for writer in self.writers:
            writer.close()


# --- 5: a guest's name is never given while anything holds it --------------------------


async def test_a_held_guest_name_is_never_given_and_its_seat_goes_back_only_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        held = await seat_then_drop(server, "bob")
        number = int(held.removeprefix("guest-"))
        # Every draw tries the held name first (1 in 10,000 by chance: found by cycling
        # keyless logins), then a free one.
        monkeypatch.setattr(secrets, "randbelow", draws(number, number, number, 4242))

        stranger = await ScreenClient.connect(server.port, "bob", **FROM_AWAY)
        screen = await stranger.wait_for("Welcome, guest-")
        assert guest_of(screen) == "guest-4242", screen  # not the seat's name
        await enter_lobby(stranger)
        await stranger.close()

        # The same address and user name within the grace: back to the seat.
        back = await ScreenClient.connect(server.port, "bob")
        await back.wait_for("waiting room")
        assert server.sessions.all()[0].player.name == held
        await back.close()


async def test_a_guest_at_home_under_another_user_name_does_not_get_the_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        held = await seat_then_drop(server, "bob")
        number = int(held.removeprefix("guest-"))
        monkeypatch.setattr(secrets, "randbelow", draws(number, number, 4242))
        other = await ScreenClient.connect(server.port, "carl")
        assert guest_of(await other.wait_for("Welcome, guest-")) == "guest-4242"
        await other.close()


def test_guest_names_widen_before_they_run_out() -> None:
    four = {f"guest-{n:04d}" for n in range(10_000)}
    assert re.fullmatch(r"guest-\d{5}", guest_name(four))
    half = {f"guest-{n:04d}" for n in range(5_000)}
    assert len(guest_name(half)) == len("guest-00000")
    few = {f"guest-{n:04d}" for n in range(4_999)}
    assert guest_name(few, draw=draws(17, 5_000)) == "guest-5000"
    # Never a held name, whatever the draws say.
    assert guest_name({"guest-0007"}, draw=draws(7, 7, 7, 8)) == "guest-0008"


async def test_a_seat_held_in_the_grace_keeps_its_name_from_a_new_guest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rule on its own: what the lobby's tables hold is never drawn.
    monkeypatch.setattr(secrets, "randbelow", draws(9, 9, 10))
    config = ServerConfig(data=tmp_path)
    context = AuthContext(config, Database(config.database_path), Gate(config.limits), {},
                          online=frozenset, held=lambda: frozenset({"guest-0009"}))
    server = MoonSSHServer(context)
    server._conn = object()  # type: ignore[assignment]  # logged in, nothing else needed
    server._guest = True
    await server._identify()
    assert server.player is not None and server.player.name == "guest-0010"


# --- 7: per-address limits slow down strangers, never a player's key ---------------------


async def test_silent_sockets_do_not_lock_a_player_out(tmp_path: Path) -> None:
    limits = Limits(connections_per_address=2, failed_logins_per_address=2,
                    login_timeout_seconds=1.0)
    ann = new_key()
    silent = SilentSockets()
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        await claims(server, "ann", ann)
        await silent.open(server.port, 3)
        await eventually(lambda: server.gate.logging_in(HOME) == 3, "three logging in")
        try:
            await logs_in(server.port, "ann", ann)  # her key: whatever the others do
            assert "Too many connections" in await refused(server.port, "bob")
            assert "Too many connections" in await refused(server.port, "newbie", new_key())
            for index in range(3):  # cut off at the login timeout
                assert (await silent.first_bytes(index)).startswith(b"SSH-2.0-moon")
        finally:
            silent.close()
        await eventually(lambda: not server.gate.pending, "nobody is logging in")
        # Neither the silent sockets nor the refusals were failed logins.
        await logs_in(server.port, "bob")
        await logs_in(server.port, "newbie", new_key())


async def test_a_burst_is_capacity_not_failed_logins_and_a_key_still_gets_in(
    tmp_path: Path,
) -> None:
    # The login timeout is long: only the limit can close the silent sockets.
    limits = Limits(connections_per_address=2, connections_per_address_max=3,
                    failed_logins_per_address=1, login_timeout_seconds=600)
    ann = new_key()
    silent = SilentSockets()
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        await claims(server, "ann", ann)
        await silent.open(server.port, 6)
        try:
            for index in range(3):  # the oldest are closed to make room for the newest
                assert await silent.first_bytes(index) == b"SSH-2.0-moon\r\n"
            await eventually(lambda: server.gate.logging_in(HOME) == 3, "three logging in")
            await logs_in(server.port, "ann", ann)  # every slot taken: her key gets in
            assert await silent.first_bytes(3) == b"SSH-2.0-moon\r\n"  # made room for her
        finally:
            silent.close()
        await eventually(lambda: not server.gate.pending, "nobody is logging in")
        await logs_in(server.port, "bob")  # one failure would have made the address wait


async def test_failed_logins_slow_guests_and_new_names_never_a_players_key(
    tmp_path: Path,
) -> None:
    limits = Limits(failed_logins_per_address=2, failure_backoff_seconds=60)
    ann = new_key()
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        now = [1000.0]
        server.gate.clock = lambda: now[0]
        await claims(server, "ann", ann)
        for name in ("Ann", "9lives"):  # refused names (a new key for ann gets a prompt)
            assert "not a valid player name" in await refused(server.port, name, new_key())
        assert "Too many failed logins" in await refused(server.port, "bob")
        assert "Too many failed logins" in await refused(server.port, "newbie", new_key())
        await logs_in(server.port, "ann", ann)
        await logs_in(server.port, "ann", ann, **FROM_AWAY)
        await logs_in(server.port, "bob", **FROM_AWAY)  # another address is not touched
        now[0] += 61
        await logs_in(server.port, "bob")
        await logs_in(server.port, "newbie", new_key())


async def test_the_backoff_doubles_and_a_quiet_hour_forgives() -> None:
    now = [0.0]
    gate = Gate(Limits(failed_logins_per_address=2, failure_backoff_seconds=30),
                clock=lambda: now[0])
    for wait in (30, 60):
        await gate.failed(HOME)
        await gate.failed(HOME)
        assert f"try again in {wait + 1} seconds" in (await gate.restriction(HOME) or "")
        now[0] += wait + 1
        assert await gate.restriction(HOME) is None
    now[0] += 3600
    await gate.failed(HOME)
    await gate.failed(HOME)
    assert "try again in 31 seconds" in (await gate.restriction(HOME) or "")


# --- 12: a ban holds -----------------------------------------------------------------------


async def ban(server: MoonServer, name: str, reason: str) -> None:
    operator = await server.lobby.connect("olga", operator=True)
    operator.send(Ban(name, reason))
    await operator.close()


async def test_a_banned_player_cannot_come_back_as_a_guest_or_a_new_name(
    tmp_path: Path,
) -> None:
    ann, bea = new_key(), new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await logs_in(server.port, "bea", bea, **FROM_AWAY)  # bea shares ann's address
        client = await ScreenClient.connect(server.port, "ann", key=ann, **FROM_AWAY)
        await enter_lobby(client)
        await ban(server, "ann", "cheating")
        await client.wait_closed(timeout=DEADLINE)
        await soon(lambda: _banned(server.db, AWAY), "ann's address is banned")

        assert "banned" in await refused(server.port, "ann", ann, **FROM_AWAY)
        assert "banned" in await refused(server.port, "ann", **FROM_AWAY)
        # A guest or a new name there reads that a ban shuts them out, not its reason
        # (that is for ann alone).
        for message in (await refused(server.port, "nobody", **FROM_AWAY),
                        await refused(server.port, "annie", new_key(), **FROM_AWAY)):
            assert "ban" in message and "cheating" not in message
        await logs_in(server.port, "bea", bea, **FROM_AWAY)  # her own key still gets in
        await logs_in(server.port, "nobody")  # other addresses: guests as ever

        server.bans.clock = lambda: time.time() + 7 * DAY + 60
        await logs_in(server.port, "nobody", **FROM_AWAY)  # the address ban has ended
        assert "banned" in await refused(server.port, "ann", ann, **FROM_AWAY)  # not hers


async def test_a_ban_of_a_player_who_is_away_reaches_the_addresses_they_used(
    tmp_path: Path,
) -> None:
    ann = new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await logs_in(server.port, "ann", ann, **FROM_AWAY)
        await ban(server, "ann", "cheating")
        await soon(lambda: _banned(server.db, AWAY), "ann's last address is banned")
        assert "banned for now" in await refused(server.port, "nobody", **FROM_AWAY)
        await logs_in(server.port, "nobody")  # she never used this one


async def _banned(db: Database, address: str) -> bool:
    return await db.ban_reason("address", address) is not None


async def test_a_guest_ban_survives_a_restart(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "bob", **FROM_AWAY)
        name = guest_of(await client.wait_for("Welcome, guest-"))
        await enter_lobby(client)
        await ban(server, name, "rude")
        await client.wait_closed(timeout=DEADLINE)
        await soon(lambda: _banned(server.db, AWAY), "the guest's address is banned")
    async with running_server(tmp_path, lobby_config=FAST) as server:
        assert "banned for now" in await refused(server.port, "bob", **FROM_AWAY)
        await logs_in(server.port, "bob")


# --- 13: a login that opens no session ---------------------------------------------------


async def test_a_login_that_opens_no_session_is_closed(tmp_path: Path) -> None:
    limits = Limits(login_timeout_seconds=1.0)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        player = await ScreenClient.connect(server.port, "ann", key=new_key())
        await player.wait_for("Welcome, ann")
        bare = await open_connection(server.port, "bea", key=new_key())  # like ssh -N
        async with asyncio.timeout(DEADLINE):
            await bare.wait_closed()
        await eventually(lambda: sum(server.gate.connections.values()) == 1,
                         "only the player's connection is left")
        assert not player.closed.is_set()
        await enter_lobby(player)  # a session opened in time plays on
        await player.close()


# --- issue 13, item 9: a guest is told why, and offered nothing it cannot use ------------


async def test_a_guest_is_told_why_and_how_to_keep_a_name(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "guest")
        guest_of(await client.wait_for("Welcome, guest-"))
        screen = await enter_lobby(client)
        assert "You play as a guest" in screen and "ssh-keygen" in screen, screen
        footer = screen.rstrip().splitlines()[-1]
        assert " k " not in footer and "keys" not in footer, footer
        assert "operator" not in footer, footer
        await client.press("?")
        text = await client.wait_for("The rules in short")
        client.send("\x1b[F")  # End: the keys are at the bottom of the help
        text += await client.wait_for("Everywhere")
        assert "operator" not in text and "keys  " not in text, text
        await client.close()
