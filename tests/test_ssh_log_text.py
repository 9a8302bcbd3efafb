"""What a client sends reaches the log escaped and bounded: no forged lines, no raw escapes."""

from __future__ import annotations

import logging
from pathlib import Path

import asyncssh
import pytest

from server.logtext import shown
from tests.support.settings import FAST
from tools.probe import ScreenClient, enter_lobby, eventually, running_server

pytestmark = pytest.mark.ssh

FORGED_TERM = "xterm\nlogin olga (operator) with key SHA256:x from 10.0.0.1\x1b]0;owned\x07\x1b[2J"
HUGE_TERM = "xterm-" + "A" * (32 * 1024 - 6)


def server_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The log lines the server wrote, as a log file would hold them."""
    return [line for record in caplog.records if record.name.startswith("server")
            for line in record.getMessage().split("\n")]


def test_shown_escapes_like_repr_and_cuts_with_an_ellipsis() -> None:
    assert shown("ann") == "ann"
    assert shown("a\nb\x1b[31m\\") == "a\\nb\\x1b[31m\\\\"
    assert shown("é ☾") == "é ☾"
    assert shown("\u200b\U000e0041") == "\\u200b\\U000e0041"
    cut = shown("x" * 1000, 40)
    assert len(cut) == 40 and cut.endswith("…")
    assert len(shown("\x00" * 1000, 40)) <= 40


@pytest.mark.parametrize("term", [FORGED_TERM, HUGE_TERM], ids=["newline-and-escapes", "32KB"])
async def test_a_hostile_term_is_logged_escaped_and_bounded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, term: str
) -> None:
    caplog.set_level(logging.INFO)
    async with running_server(tmp_path, lobby_config=FAST) as server:
        client = await ScreenClient.connect(
            server.port, "ann", key=asyncssh.generate_private_key("ssh-ed25519"), term=term
        )
        await enter_lobby(client)
        await eventually(lambda: "session start ann" in caplog.text, "the session start logged")
        await client.close()
    lines = server_lines(caplog)
    assert not [line for line in lines if line.startswith("login olga")]
    assert not [line for line in lines if "\x1b" in line or "\x07" in line]
    assert max(len(line) for line in lines) < 300
    (start,) = [line for line in lines if line.startswith("session start ann")]
    assert len(start) < 120  # TERM is cut to a plain word where it enters (server/channel.py)
