"""Who may play under which name: keys claim names, guests, operators, bans, limits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from moon_tui.lobby import Ban, LobbyConfig
from moon_tui.ui.door_words import CODE_PROMPT
from server.config import Limits
from tests.support.settings import FAST
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


async def test_a_key_claims_a_free_name_and_only_that_key_gets_it_back(tmp_path: Path) -> None:
    ann_key, other_key = new_key(), new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await client.wait_for("Welcome, ann")
        await client.close()
        account = await server.db.account("ann")
        assert account is not None
        assert account.fingerprints == (ann_key.get_fingerprint("sha256"),)

        again = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await again.wait_for("Welcome, ann")
        await again.close()

        # Another key only gets the prompt for a code from ann's keys dialog.
        stranger = await ScreenClient.connect(server.port, "ann", key=other_key)
        await stranger.wait_for(CODE_PROMPT)
        await stranger.close()
        account = await server.db.account("ann")
        assert account is not None and len(account.fingerprints) == 1
        # Keyless under a claimed name is refused too (not silently made a guest).
        message = await refused(server.port, "ann")
        assert "belongs to a player with a key" in message


async def test_a_login_does_not_wait_for_a_config_file_that_is_not_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # asyncssh re-read its sshd-style config (none here) for each user, in a worker
    # thread: two passes of the event loop per login for nothing.
    from asyncssh.connection import SSHServerConnectionOptions

    built: list[object] = []
    original = SSHServerConnectionOptions.construct

    async def counting(*args: object, **kwargs: object) -> object:
        built.append(kwargs.get("username"))
        return await original(*args, **kwargs)  # type: ignore[arg-type]

    async with running_server(tmp_path, lobby_config=FAST) as server:
        monkeypatch.setattr(SSHServerConnectionOptions, "construct", counting)
        client = await ScreenClient.connect(server.port, "bob")
        await client.wait_for("Welcome, guest-")
        await client.close()
    assert built == []


async def test_a_keyless_player_is_a_guest_and_nothing_is_kept(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "bob")
        screen = await client.wait_for("Welcome, guest-")
        assert "bob" not in screen
        await client.close()
        assert await server.db.account("bob") is None


async def test_guests_can_be_turned_off(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST, guests=False) as server:
        message = await refused(server.port, "bob")
        assert "guests are off" in message


@pytest.mark.parametrize("name", ["a", "Ann", "x" * 17, "root", "guest-0001", "9lives", "an n"])
async def test_invalid_or_reserved_names_are_refused_with_the_rule(
    tmp_path: Path, name: str
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        message = await refused(server.port, name, new_key())
        assert "not a valid player name" in message or "reserved" in message


async def test_an_operator_name_needs_the_configured_key(tmp_path: Path) -> None:
    op_key = new_key()
    line = op_key.export_public_key("openssh").decode()
    async with running_server(
        tmp_path, lobby_config=FAST, operators={"olga": (line,)}
    ) as server:
        stranger = await ScreenClient.connect(server.port, "olga", key=new_key())
        await stranger.wait_for(CODE_PROMPT)  # and no code waits
        await stranger.close()
        assert "belongs to a player with a key" in await refused(server.port, "olga")
        client = await ScreenClient.connect(server.port, "olga", key=op_key)
        await client.wait_for("Welcome, olga")
        await enter_lobby(client)
        assert server.sessions.all()[0].player.operator
        await client.close()


async def test_a_ban_ends_the_session_and_refuses_the_account_and_its_key(
    tmp_path: Path,
) -> None:
    ann_key = new_key()
    async with running_server(
        tmp_path,
        lobby_config=LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0,
                                 operators=frozenset({"olga"})),
    ) as server:
        client = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await enter_lobby(client)  # banned from the list of who is online
        operator = await server.lobby.connect("olga", operator=True)
        operator.send(Ban("ann", "cheating"))
        await client.wait_closed(timeout=15)
        await operator.close()
        assert "banned" in await refused(server.port, "ann", ann_key)
        # The key is banned too, whatever name it tries next.
        assert "banned" in await refused(server.port, "annie", ann_key)


async def test_bans_survive_a_restart(tmp_path: Path) -> None:
    ann_key = new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await client.wait_for("Welcome, ann")
        await client.close()
        await server.db.ban("account", "ann", "spam")
    async with running_server(tmp_path, lobby_config=FAST) as server:
        assert "spam" in await refused(server.port, "ann", ann_key)


async def test_too_many_connections_logging_in_from_one_address(tmp_path: Path) -> None:
    # Connections that logged in no longer count: only those still logging in do, and
    # past the limit only guests and new names wait (tests/test_ssh_access.py has more).
    limits = Limits(connections_per_address=2)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        conns = []
        for i in range(3):
            conns.append(await open_connection(server.port, f"p{i}x", key=new_key()))
            # The client hears "success" before the server has saved the new name (it
            # counts as logging in until then): on a busy machine the next one came first.
            await eventually(lambda: server.gate.logging_in("127.0.0.1") == 0,
                             "the login finished on the server")
        sockets = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(2)]
        message = await refused(server.port, "p9x", new_key())
        assert "Too many connections" in message
        for conn in conns:
            conn.close()
        for _reader, writer in sockets:
            writer.close()


async def test_failed_logins_make_the_address_wait(tmp_path: Path) -> None:
    # Guests and new names wait; a player's own key never does (it did before).
    limits = Limits(failed_logins_per_address=2, failure_backoff_seconds=60)
    ann_key = new_key()
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        client = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await client.wait_for("Welcome, ann")
        await client.close()
        for name in ("Ann", "9lives"):
            assert "not a valid player name" in await refused(server.port, name, new_key())
        message = await refused(server.port, "bob")
        assert "Too many failed logins" in message
        conn = await open_connection(server.port, "ann", key=ann_key)
        conn.close()


async def test_the_server_full_message(tmp_path: Path) -> None:
    async with running_server(
        tmp_path, lobby_config=FAST, limits=Limits(max_sessions=1)
    ) as server:
        first = await ScreenClient.connect(server.port, "ann", key=new_key())
        await first.wait_for("Welcome")
        second = await ScreenClient.connect(server.port, "bea", key=new_key())
        await second.wait_closed()
        assert "server is full" in second.text()
        await first.close()


async def test_guests_waiting_to_start_never_share_a_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by the load benchmark: a guest is online only once its game starts, so two
    # guests logging in while games were queued for start could draw the same name, and
    # the second then took over the first's session. The draw is forced to collide here.
    import secrets

    from server.auth import AuthContext, MoonSSHServer
    from server.config import ServerConfig
    from server.limits import Gate
    from server.store import Database

    draws = iter([7, 7, 7, 8])
    monkeypatch.setattr(secrets, "randbelow", lambda _n: next(draws))
    config = ServerConfig(data=tmp_path)
    context = AuthContext(config, Database(config.database_path), Gate(config.limits), {},
                          online=frozenset)
    names = []
    for _ in range(2):
        server = MoonSSHServer(context)
        server._conn = object()  # type: ignore[assignment]  # logged in, game not started
        server._guest = True
        await server._identify()
        assert server.player is not None
        names.append(server.player.name)
    assert names == ["guest-0007", "guest-0008"]
    assert context.guests == {"guest-0007", "guest-0008"}
