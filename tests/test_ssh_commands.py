"""Commands over plain ssh (server/commands.py): the same identity and limits as a login,
one line and exit status 2 for what does not exist (issues 34 and 35 add the commands)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from server import commands
from server.commands import Answer, CommandContext
from server.config import Limits
from tests.support.settings import FAST
from tools.probe import new_key, open_connection, running_server

pytestmark = pytest.mark.ssh

Waiter = tuple[asyncio.Event, asyncio.Event]
"""`whoami --wait` has started; let it answer."""


@pytest.fixture
def whoami() -> Iterator[Waiter]:
    """A command of the test's own: who the server thinks asked, while it holds a place."""
    started, release = asyncio.Event(), asyncio.Event()

    @commands.command("whoami", "who you are logged in as")
    async def _whoami(context: CommandContext, args: list[str]) -> Answer:
        assert context.player is not None
        if args == ["--wait"]:
            started.set()
            await release.wait()
        kind = "guest" if context.player.guest else "key"
        return Answer(f"{context.player.name} ({kind})\n")

    yield started, release
    del commands.COMMANDS["whoami"]


async def test_help_lists_the_commands_and_unknown_ones_get_one_line(
    tmp_path: Path, whoami: Waiter
) -> None:
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=new_key())
        listed = await conn.run("help", encoding="utf-8", timeout=10)
        assert listed.exit_status == 0
        assert "whoami  who you are logged in as" in str(listed.stdout)
        for line, error in (("frob --x", "unknown command 'frob': try 'help'"),
                            ("'unclosed", "the command could not be read: No closing quotation"),
                            ("x " * 600, "the command is longer than 1000 characters"),
                            ("help me", "help takes no arguments"),
                            ("\x1b[2J", "unknown command '\\x1b[2J': try 'help'")):
            result = await conn.run(line, encoding="utf-8", timeout=10)
            assert (result.exit_status, result.stderr, result.stdout) == (2, error + "\n", ""), \
                line
        conn.close()


async def test_a_command_runs_as_whoever_the_login_proved(
    tmp_path: Path, whoami: Waiter
) -> None:
    ann_key = new_key()
    async with running_server(tmp_path, lobby_config=FAST) as server:
        conn = await open_connection(server.port, "ann", key=ann_key)
        assert (await conn.run("whoami", encoding="utf-8", timeout=10)).stdout == "ann (key)\n"
        conn.close()
        guest = await open_connection(server.port, "visitor")
        said = str((await guest.run("whoami", encoding="utf-8", timeout=10)).stdout)
        assert said.startswith("guest-") and said.endswith(" (guest)\n")
        guest.close()
        # Another key for ann's name proves nothing: it must add itself with a terminal.
        stranger = await open_connection(server.port, "ann", key=new_key())
        refused = await stranger.run("whoami", encoding="utf-8", timeout=10)
        assert refused.exit_status == 1 and "ann" not in str(refused.stdout)
        assert "log in with a terminal first" in str(refused.stdout)
        stranger.close()


async def test_a_running_command_holds_a_place_as_a_session_does(
    tmp_path: Path, whoami: Waiter
) -> None:
    started, release = whoami
    limits = Limits(sessions_per_name_max=1)
    async with running_server(tmp_path, lobby_config=FAST, limits=limits) as server:
        key = new_key()
        first = await open_connection(server.port, "ann", key=key)
        waiting = asyncio.create_task(first.run("whoami --wait", encoding="utf-8", timeout=20))
        await asyncio.wait_for(started.wait(), 10)
        second = await open_connection(server.port, "ann", key=key)
        refused = await second.run("whoami", encoding="utf-8", timeout=10)
        assert refused.exit_status == 1 and "sessions open" in str(refused.stdout)
        release.set()
        assert (await waiting).stdout == "ann (key)\n"
        again = await second.run("whoami", encoding="utf-8", timeout=10)
        assert again.exit_status == 0
        first.close()
        second.close()


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client")
async def test_openssh_runs_a_command_and_gets_its_exit_status(tmp_path: Path) -> None:
    key = new_key()
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)
    async with running_server(tmp_path / "data", lobby_config=FAST) as server:
        options = ["-p", str(server.port), "-i", str(key_file), "-o", "IdentitiesOnly=yes",
                   "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                   "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "ann@127.0.0.1"]
        for line, status, marker in (("help", 0, b"Commands"),
                                     ("nothing-here", 2, b"unknown command")):
            process = await asyncio.create_subprocess_exec(
                "ssh", *options, line, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE)
            out, err = await asyncio.wait_for(process.communicate(), 30)
            assert process.returncode == status, (out, err)
            assert marker in out + err
