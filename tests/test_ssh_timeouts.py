"""Login timeout and keepalives: connections that stop talking do not hold the server's slots.

A connection that never finishes logging in is cut off after `login_timeout_seconds`; a
logged-in client that stops answering is cut off after a few unanswered keepalives
(`keepalive_seconds` apart), and its session ends as for any dropped connection.

Timings here are short on purpose, but nothing asserts how fast: every wait polls for the
behaviour with a generous deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import asyncssh
import pytest

from moon_tui.lobby import LobbyConfig
from server.auth import MoonSSHServer
from server.config import Limits
from tools.probe import ScreenClient, enter_lobby, eventually, new_key, running_server

pytestmark = pytest.mark.ssh

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                   bot_time_budget=0.05,
                   grace_seconds=60)
DEADLINE = 20.0
LOOPBACK = "127.0.0.1"


@pytest.fixture
def close_reasons(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Why the server's side of each connection ended (asyncssh's reason, in words)."""
    reasons: list[str] = []
    original = MoonSSHServer.connection_lost

    def spy(self: MoonSSHServer, exc: Exception | None) -> None:
        reasons.append(str(exc) if exc is not None else "closed")
        original(self, exc)

    monkeypatch.setattr(MoonSSHServer, "connection_lost", spy)
    return reasons


# --- login timeout ---------------------------------------------------------------------


async def read_until_closed(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection; fails after DEADLINE."""
    received = bytearray()

    async def read_all() -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                received.extend(data)

    try:
        await asyncio.wait_for(read_all(), DEADLINE)
    except TimeoutError:
        raise AssertionError(
            f"the server kept a connection that never logged in open for {DEADLINE:g} s"
        ) from None
    return bytes(received)


async def silent_client(port: int) -> bytes:
    """Connects over TCP and never sends a byte."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    try:
        return await read_until_closed(reader)
    finally:
        writer.close()


async def version_only_client(port: int) -> bytes:
    """Sends its SSH version line, then nothing: no key exchange."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    try:
        writer.write(b"SSH-2.0-Stalling_1.0\r\n")
        await writer.drain()
        return await read_until_closed(reader)
    finally:
        writer.close()


async def test_a_silent_socket_is_closed_before_the_login_timeout(
    tmp_path: Path, close_reasons: list[str]
) -> None:
    """A socket that never says it speaks SSH goes after `version_timeout_seconds`; one
    that does (a client on a slow link, say) still has the whole login timeout."""
    limits = Limits(version_timeout_seconds=0.5, login_timeout_seconds=600)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        talker_reader, talker = await asyncio.open_connection(LOOPBACK, server.port)
        talker.write(b"SSH-2.0-Slow_1.0\r\n")
        await talker.drain()
        reader, writer = await asyncio.open_connection(LOOPBACK, server.port)
        assert (await read_until_closed(reader)).startswith(b"SSH-2.0-moon")
        writer.close()
        # The talker's wait, which began first, is over too: still logging in.
        assert close_reasons == ["closed"]
        await talker_reader.readline()  # the server's version line
        assert await talker_reader.read(1)  # then its key exchange: still served
        talker.close()


class StuckInAuth(asyncssh.SSHClient):
    """Completes the key exchange, starts authenticating, then never offers a key."""

    def __init__(self, reached: asyncio.Event) -> None:
        self.reached = reached

    async def public_key_auth_requested(self) -> asyncssh.SSHKey | None:
        self.reached.set()
        await asyncio.Event().wait()  # forever (cancelled when the connection goes)
        return None


async def stuck_in_auth_client(port: int, reached: asyncio.Event) -> BaseException:
    """A real SSH client that gets as far as authentication; returns how it ended."""
    try:
        conn, _ = await asyncio.wait_for(
            asyncssh.create_connection(
                lambda: StuckInAuth(reached), LOOPBACK, port, username="stuck",
                client_keys=None, agent_path=None, known_hosts=None,
            ),
            DEADLINE,
        )
    except TimeoutError:
        raise AssertionError(
            f"the server kept a client stuck in authentication for {DEADLINE:g} s"
        ) from None
    except (asyncssh.Error, OSError) as error:
        return error
    conn.close()
    raise AssertionError("a client that never authenticated was logged in")


async def test_a_connection_that_never_logs_in_is_cut_off_and_others_are_served(
    tmp_path: Path, close_reasons: list[str]
) -> None:
    limits = Limits(login_timeout_seconds=2.0)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        reached_auth = asyncio.Event()
        stalled = asyncio.gather(
            silent_client(server.port),
            version_only_client(server.port),
            stuck_in_auth_client(server.port, reached_auth),
        )
        # Meanwhile a player logs in; the login timeout does not apply to them.
        ann = await ScreenClient.connect(server.port, "ann", key=new_key())
        await ann.wait_for("go to the lobby")

        silent, version_only, stuck = await stalled  # each returns once cut off
        assert silent.startswith(b"SSH-2.0-moon"), silent[:40]
        assert version_only.startswith(b"SSH-2.0-moon"), version_only[:40]
        assert reached_auth.is_set(), "the stuck client never got as far as authentication"
        assert isinstance(stuck, asyncssh.ConnectionLost), repr(stuck)
        await eventually(
            lambda: close_reasons.count("Login timeout expired") == 3,
            f"three login timeouts on the server's side (got {close_reasons})",
        )
        # Their slots are given back: only ann's connection is counted for the address.
        await eventually(
            lambda: server.gate.connections[LOOPBACK] == 1,
            f"only ann's connection counted (got {server.gate.connections[LOOPBACK]})",
        )

        assert not ann.closed.is_set()
        await enter_lobby(ann)  # ann, logged in well before the cut-off, plays on
        bea = await ScreenClient.connect(server.port, "bea", key=new_key())
        await enter_lobby(bea)
        assert server.sessions.count == 2
        await bea.close()
        await ann.close()


# --- keepalive -------------------------------------------------------------------------


class StallingProxy:
    """A TCP relay to the server that can stop passing on what the client sends.

    Once `stall()` is called, bytes from the client are read and thrown away, while the
    server's bytes still reach the client and every socket stays open: to the server the
    client looks alive at the TCP level but never answers again.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.stalled = False
        self._listener: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> None:
        self._listener = await asyncio.start_server(self._relay, LOOPBACK, 0)
        self.port = self._listener.sockets[0].getsockname()[1]

    def stall(self) -> None:
        self.stalled = True

    async def _relay(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(LOOPBACK, self.target_port)
        self._writers += [client_w, server_w]
        for pump in (self._to_server(client_r, server_w), self._to_client(server_r, client_w)):
            task = asyncio.create_task(pump)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _to_server(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await source.read(65536):
                if not self.stalled:
                    sink.write(data)
                    await sink.drain()
        if not self.stalled:
            sink.close()

    async def _to_client(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        """Passes the server's bytes on; when the server closes, so does the client's end."""
        with contextlib.suppress(ConnectionError):
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        sink.close()

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        for writer in self._writers:
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def test_a_client_that_stops_answering_is_dropped_by_keepalives(
    tmp_path: Path, close_reasons: list[str]
) -> None:
    key = new_key()
    limits = Limits(keepalive_seconds=0.5)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        proxy = StallingProxy(server.port)
        await proxy.start()
        try:
            client = await ScreenClient.connect(proxy.port, "ann", key=key)
            await enter_lobby(client)
            await client.press("n")
            await client.wait_for("Create (ctrl+s)")
            await client.press("\x13")
            await client.wait_for("waiting room")  # ann holds seat 0 of her own table
            # Keepalives are answered while the client talks: it outlives several intervals.
            # A sleep on purpose: the time passing is what is tested. It can fail: unanswered
            # keepalives close the connection after 3 intervals (keepalive_count_max).
            await asyncio.sleep(4 * limits.keepalive_seconds)
            assert server.sessions.count == 1 and not client.closed.is_set()

            proxy.stall()
            await eventually(client.closed.is_set, "the server hung up on the silent client")
            await eventually(lambda: server.sessions.count == 0, "the session count is 0")
        finally:
            await proxy.close()

        assert "Client not responding to keepalive" in close_reasons, close_reasons
        # Released as for any dropped connection: the name is free, the address's
        # connection and the session slot are given back, the seat waits (grace period).
        assert "ann" not in server.sessions
        await eventually(lambda: "ann" not in server.lobby.online(), "ann is offline")
        assert server.gate.connections[LOOPBACK] == 0
        assert server.gate.sessions == 0
        await eventually(
            lambda: any(
                seat.name == "ann" and seat.away
                for table in server.lobby.tables()
                for seat in table.seats
            ),
            f"ann's seat is kept for her, marked away (tables: {server.lobby.tables()})",
        )

        back = await ScreenClient.connect(server.port, "ann", key=key)
        await back.wait_for("waiting room")  # straight back to her seat
        assert server.sessions.count == 1
        await back.close()
