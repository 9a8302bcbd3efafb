"""Adding a key to a name takes proof: a login with that key types a code from the dialog.

Before, the keys dialog took a pasted public key: a player pasted the operator's, and the
operator's every login was refused from then on ("the name was just claimed by someone
else"), even after a restart.
"""

from __future__ import annotations

import re
from pathlib import Path

import asyncssh
import pytest

from moon_tui.ui import door_words
from server import linking
from server.config import Limits
from server.identity import fingerprint, openssh_line
from server.service import MoonServer
from tests.support.settings import FAST
from tools.probe import (
    ScreenClient,
    enter_lobby,
    eventually,
    new_key,
    refused,
    running_server,
)

pytestmark = pytest.mark.ssh

PROMPT = door_words.CODE_PROMPT
CODE = re.compile(r"Your code: ([A-Z0-9]{4}-[A-Z0-9]{4})")


class Clock:
    """The codes' clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def claim(server: MoonServer, name: str, key: asyncssh.SSHKey) -> None:
    client = await ScreenClient.connect(server.port, name, key=key)
    await client.wait_for(f"Welcome, {name}")
    await client.close()


async def owner(server: MoonServer, key: asyncssh.SSHKey) -> str | None:
    return await server.db.key_owner(fingerprint(key))


async def test_a_code_from_the_keys_dialog_adds_the_key_that_types_it(tmp_path: Path) -> None:
    ann_key, laptop = new_key(), new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        ann = await ScreenClient.connect(server.port, "ann", key=ann_key)
        await enter_lobby(ann)
        await ann.press("k")
        await ann.wait_for("Your SSH keys")
        await ann.press("a")
        screen = await ann.wait_for(CODE.search)
        found = CODE.search(screen)
        assert found is not None
        assert f"ssh -p {server.port} ann@this-server" in screen

        other = await ScreenClient.connect(server.port, "ann", key=laptop)
        await other.wait_for(f"If ann is you, type {PROMPT}")
        assert await owner(server, laptop) is None
        await other.press(found.group(1).lower(), "enter")
        await other.wait_for("Welcome, ann")
        assert await owner(server, laptop) == "ann"
        await other.close()

        again = await ScreenClient.connect(server.port, "ann", key=laptop)
        screen = await again.wait_for("Welcome, ann")
        assert PROMPT not in screen
        await again.close()
        await ann.close()
        account = await server.db.account("ann")
        assert account is not None
        assert account.fingerprints == (fingerprint(ann_key), fingerprint(laptop))


async def test_a_wrong_code_adds_nothing_and_counts_as_a_failed_login(tmp_path: Path) -> None:
    ann_key, stranger = new_key(), new_key()
    limits = Limits(link_code_tries=2, failed_logins_per_address=1)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        await claim(server, "ann", ann_key)
        code = server.link_codes.issue("ann")
        wrong = "AAAAAAAA" if code != "AAAAAAAA" else "BBBBBBBB"
        client = await ScreenClient.connect(server.port, "ann", key=stranger)
        await client.wait_for(PROMPT)
        await client.press(wrong, "enter")
        await client.wait_for("1 try left")
        await client.press(wrong, "enter")
        await client.wait_closed()
        assert "The key was not added" in client.text()
        await client.close()
        assert await owner(server, stranger) is None
        await eventually(lambda: not server.gate.connections, "the connection to end")
        # The wrong codes made the address wait: a new name from there is refused, while
        # ann's own key still gets in (what others at an address did never stops a key).
        assert "Too many failed logins" in await refused(server.port, "newcomer", new_key())
        await claim(server, "ann", ann_key)


async def test_an_expired_code_adds_nothing(tmp_path: Path) -> None:
    ann_key, laptop = new_key(), new_key()
    clock = Clock()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        server.link_codes.clock = clock
        await claim(server, "ann", ann_key)
        code = server.link_codes.issue("ann")
        client = await ScreenClient.connect(server.port, "ann", key=laptop)
        await client.wait_for(PROMPT)
        clock.now += server.config.limits.link_code_minutes * 60  # expires while typing
        await client.press(code, "enter")
        await client.wait_for("That is not the code (or it was used, or it expired)")
        await client.close()
        assert await owner(server, laptop) is None
        # With no code waiting any more, the new key reads the same prompt (nobody can
        # tell whether a code waits), and no code adds it.
        again = await ScreenClient.connect(server.port, "ann", key=laptop)
        await again.wait_for(PROMPT)
        await again.press(code, "enter")
        await again.wait_for("That is not the code (or it was used, or it expired)")
        await again.close()
        assert await owner(server, laptop) is None


async def test_the_code_prompt_reads_a_typed_line_and_nothing_else(tmp_path: Path) -> None:
    ann_key, laptop, other = new_key(), new_key(), new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await claim(server, "ann", ann_key)
        code = server.link_codes.issue("ann")
        client = await ScreenClient.connect(server.port, "ann", key=laptop)
        await client.wait_for(PROMPT)
        # Empty lines, an erased letter, an arrow and a mouse click around the code, all
        # in one write: none of it costs a try or lands in the code.
        client.send(f"\r\n\rx\x7f\x1b[A{code[:4]}\x1b[<0;3;4M-\x1bOP{code[4:]}\r\n")
        await client.wait_for("Welcome, ann")
        await client.close()
        assert await owner(server, laptop) == "ann"

        server.link_codes.issue("ann")
        flood = await ScreenClient.connect(server.port, "ann", key=other)
        await flood.wait_for(PROMPT)
        flood.send("A" * (linking.INPUT_BYTES + 1))
        await flood.wait_closed()
        assert "The key was not added." in flood.text()
        await flood.close()


async def test_no_code_in_time_ends_the_connection(tmp_path: Path) -> None:
    ann_key, laptop = new_key(), new_key()
    limits = Limits(login_timeout_seconds=1)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        await claim(server, "ann", ann_key)
        server.link_codes.issue("ann")
        client = await ScreenClient.connect(server.port, "ann", key=laptop)
        await client.wait_for(PROMPT)
        await client.press("AB")  # typing, but never Enter
        await client.wait_closed()
        assert "No code in time: the key was not added." in client.text()
        await client.close()
        assert await owner(server, laptop) is None


async def test_a_key_of_another_name_or_a_banned_key_is_never_added(tmp_path: Path) -> None:
    ann_key, bob_key, banned = new_key(), new_key(), new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await claim(server, "ann", ann_key)
        await claim(server, "bob", bob_key)
        await server.db.ban("key", fingerprint(banned), "spam")
        server.link_codes.issue("ann")
        assert "never moves to another name" in await refused(server.port, "ann", bob_key)
        assert await owner(server, bob_key) == "bob"
        assert "banned" in await refused(server.port, "ann", banned)
        # And a key of a name cannot claim a second, free name either.
        assert "never moves to another name" in await refused(server.port, "bobby", bob_key)


async def test_a_player_cannot_take_the_operators_key_and_the_operator_still_logs_in(
    tmp_path: Path,
) -> None:
    op_key, mallory_key = new_key(), new_key()
    operators = {"olga": (openssh_line(op_key),)}
    async with running_server(tmp_path, lobby_config=FAST, operators=operators) as server:
        mallory = await ScreenClient.connect(server.port, "mallory", key=mallory_key)
        await enter_lobby(mallory)
        await mallory.press("k")
        await mallory.wait_for("Your SSH keys")
        # Pasted as the old dialog took it; wait for the dialog's answer (the old one added
        # the key; this one only makes a code, for the 'a' in the line).
        await mallory.press(openssh_line(op_key), "enter")
        await mallory.wait_for(lambda s: "added key" in s or "Your code" in s)
        await mallory.press("escape")
        await mallory.wait_for("new table")
        await mallory.close()
        assert await owner(server, op_key) is None

        olga = await ScreenClient.connect(server.port, "olga", key=op_key)
        await olga.wait_for("Welcome, olga")
        await olga.close()
    async with running_server(tmp_path, lobby_config=FAST, operators=operators) as server:
        olga = await ScreenClient.connect(server.port, "olga", key=op_key)
        await olga.wait_for("Welcome, olga")
        await olga.close()
        assert await owner(server, op_key) == "olga"


async def test_an_operator_key_already_on_another_name_still_logs_in(tmp_path: Path) -> None:
    # A database from before: the operator's key attached to a player's name (a key is
    # never moved, so it stays there) - the operator's logins were refused for good.
    op_key = new_key()
    operators = {"olga": (openssh_line(op_key),)}
    for _restart in range(2):
        async with running_server(tmp_path, lobby_config=FAST, operators=operators) as server:
            if _restart == 0:
                assert await server.db.claim("mallory", fingerprint(op_key), openssh_line(op_key))
            olga = await ScreenClient.connect(server.port, "olga", key=op_key)
            await olga.wait_for("Welcome, olga")
            await enter_lobby(olga)
            assert server.sessions.all()[0].player.operator
            if _restart == 1:
                # Her keys dialog shows the key she logged in with, from the config, and
                # will not remove it (it said "No key yet").
                await olga.press("k")
                screen = await olga.wait_for(fingerprint(op_key)[:20])
                row = next(line for line in screen.splitlines()
                           if fingerprint(op_key)[:20] in line)
                assert "config" in row and "this login" in row
                assert "No key yet" not in screen
                await olga.press("d", "d")
                await olga.wait_for(lambda s: "configuration: it is removed" in s)
                await olga.press("escape")
            await olga.close()
            assert await server.db.account("olga") is not None


async def test_an_operator_adds_a_key_the_same_way(tmp_path: Path) -> None:
    op_key, laptop = new_key(), new_key()
    operators = {"olga": (openssh_line(op_key),)}
    async with running_server(tmp_path, lobby_config=FAST, operators=operators) as server:
        await claim(server, "olga", op_key)
        code = server.link_codes.issue("olga")
        client = await ScreenClient.connect(server.port, "olga", key=laptop)
        await client.wait_for(PROMPT)
        await client.press(code, "enter")
        await enter_lobby(client)
        assert server.sessions.all()[0].player.operator
        await client.close()
        assert await owner(server, laptop) == "olga"


async def test_a_guest_has_no_keys_dialog(tmp_path: Path) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        guest = await ScreenClient.connect(server.port, "bob")
        screen = await enter_lobby(guest)
        assert "k keys" not in screen
        await guest.close()


async def new_key_screen(server: MoonServer, name: str, **options: object) -> str:
    """What a fresh key logging in as `name` reads, with the name taken out."""
    client = await ScreenClient.connect(server.port, name, key=new_key(), **options)
    screen = await client.wait_for(PROMPT)
    await client.close()
    return screen.replace(name, "NAME")


async def test_a_new_key_reads_the_same_whether_or_not_a_code_waits(tmp_path: Path) -> None:
    # Before, a key new to a name was let in only while the name had a code waiting (and
    # refused "already taken" otherwise): anyone could tell which names had one.
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await claim(server, "ann", new_key())
        await claim(server, "bob", new_key())
        server.link_codes.issue("ann")
        assert await new_key_screen(server, "ann") == await new_key_screen(server, "bob")


async def test_wrong_codes_cost_the_guesser_not_the_owner(tmp_path: Path) -> None:
    # Before, 20 wrong codes for a name from anywhere withdrew its codes: the owner's
    # real new key then typed a code that no longer existed. Now each wrong code is a
    # failed login of the guesser's address, which soon waits; the owner's code stays.
    ann_key, laptop = new_key(), new_key()
    limits = Limits(failed_logins_per_address=3, link_code_tries=3)
    guessers = [f"127.0.0.{n}" for n in range(2, 9)]  # 7 addresses x 3 codes: 21 misses
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        await claim(server, "ann", ann_key)
        code = server.link_codes.issue("ann")
        wrong = "AAAAAAAA" if code != "AAAAAAAA" else "BBBBBBBB"
        for address in guessers:
            guesser = await ScreenClient.connect(server.port, "ann", key=new_key(),
                                                 local_addr=(address, 0))
            for _ in range(3):
                await guesser.wait_for(PROMPT)
                await guesser.press(wrong, "enter")
            await guesser.wait_closed()
            await guesser.close()
        # Each guesser's address waits now, for new keys as for guests and new names.
        assert "Too many failed logins" in await refused(
            server.port, "ann", new_key(), local_addr=(guessers[0], 0))
        owner_laptop = await ScreenClient.connect(server.port, "ann", key=laptop)
        await owner_laptop.wait_for(PROMPT)
        await owner_laptop.press(code, "enter")
        await owner_laptop.wait_for("Welcome, ann")
        await owner_laptop.close()
        assert await owner(server, laptop) == "ann"
