"""A scripted SSH player: a real asyncssh client with a PTY, its screen read through pyte.

Used by the tests and by `bench/` (`ssh_load.py`, `attacks.py`, `passes.py`); needs `pyte`
(in the test extras), which is why it lives here and not in the `server` package.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import asyncssh
import pyte
from wcwidth import wcwidth

from server.config import ServerConfig
from server.service import MoonServer
from tools.fast_terminal import FastByteStream, FastScreen


def new_key() -> asyncssh.SSHKey:
    """A fresh ed25519 key, as a player's `ssh-keygen` would make."""
    return asyncssh.generate_private_key("ssh-ed25519")


class ProbeClient(asyncssh.SSHClient):
    """Like OpenSSH: offers keyboard-interactive (how guests get in), keeps auth banners."""

    def __init__(self, banners: list[str]) -> None:
        self.banners = banners
        self._kbdint_tries = 0

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banners.append(msg)

    def kbdint_auth_requested(self) -> str | None:
        self._kbdint_tries += 1
        return "" if self._kbdint_tries == 1 else None


async def open_connection(
    port: int,
    username: str,
    *,
    key: asyncssh.SSHKey | None = None,
    host: str = "127.0.0.1",
    banners: list[str] | None = None,
    **options: Any,
) -> asyncssh.SSHClientConnection:
    """A client connection as a player's ssh would make it (banners land in `banners`)."""
    banner_list = banners if banners is not None else []
    conn, _client = await asyncssh.create_connection(
        lambda: ProbeClient(banner_list),
        host,
        port,
        username=username,
        client_keys=[key] if key is not None else None,
        known_hosts=None,
        agent_path=None,
        **options,
    )
    return conn


async def refused(
    port: int, username: str, key: asyncssh.SSHKey | None = None, **options: Any
) -> str:
    """Try to log in, expect a refusal; return the banners and reason the client got."""
    banners: list[str] = []
    try:
        conn = await open_connection(port, username, key=key, banners=banners, **options)
    except (asyncssh.PermissionDenied, asyncssh.DisconnectError) as error:
        return " ".join(banners) + " " + str(error)
    conn.close()
    raise AssertionError(f"{username!r} was let in; a refusal was expected")


class ScreenClient:
    """One terminal connected to the server: send keys, read the screen as text."""

    def __init__(
        self,
        conn: asyncssh.SSHClientConnection,
        *,
        width: int = 80,
        height: int = 24,
        term: str = "xterm-256color",
    ) -> None:
        self.conn = conn
        self.width = width
        self.height = height
        self.term = term
        self.screen = FastScreen(width, height)
        self.stream = FastByteStream(self.screen)
        self.process: asyncssh.SSHClientProcess[bytes] | None = None
        self.raw = bytearray()
        self.keep_raw = False
        self._unparsed: list[bytes] = []
        self._text: str | None = None
        self._lines: list[str] = []
        self.updates = 0
        self.last_update = 0.0
        self.closed = asyncio.Event()
        self._changed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    @classmethod
    async def connect(
        cls,
        port: int,
        username: str,
        *,
        key: asyncssh.SSHKey | None = None,
        host: str = "127.0.0.1",
        width: int = 80,
        height: int = 24,
        term: str | None = "xterm-256color",
        env: dict[str, str] | None = None,
        command: str | None = None,
        **options: Any,
    ) -> ScreenClient:
        conn = await open_connection(port, username, key=key, host=host, **options)
        client = cls(conn, width=width, height=height, term=term or "")
        client.process = await conn.create_process(
            command,
            term_type=term,
            term_size=(width, height) if term else None,
            encoding=None,
            env=env or {},
        )
        client._reader = asyncio.create_task(client._read())
        return client

    async def _read(self) -> None:
        assert self.process is not None
        try:
            while True:
                data = await self.process.stdout.read(65536)
                if not data:
                    break
                if self.keep_raw:
                    self.raw.extend(data)
                # pyte is fed when the screen is read, so a client only measuring
                # how fast output arrives does not spend its CPU on terminal emulation.
                self._unparsed.append(data)
                self.updates += 1
                self.last_update = time.perf_counter()
                self._changed.set()
        except (asyncssh.Error, OSError):
            pass
        finally:
            self.closed.set()
            self._changed.set()

    # --- reading --------------------------------------------------------------------

    def _parse(self) -> None:
        if self._unparsed:
            data = b"".join(self._unparsed)
            self._unparsed.clear()
            self.stream.feed(data)
            self._text = None

    def text(self) -> str:
        # Kept until new output arrives: building pyte's display was a third of a load
        # benchmark's client CPU, most of it for screens read again unchanged.
        self._parse()
        if self._text is None:
            self._text = "\n".join(line.rstrip() for line in self._display())
        return self._text

    def row(self, index: int) -> str:
        """One screen row (negative counts from the bottom)."""
        self._parse()
        return self._display()[index]

    def _display(self) -> list[str]:
        """`pyte.Screen.display`, drawing again only the lines pyte marked changed (a
        frame changes a few; the whole display was a fifth of the club bench's clients'
        CPU)."""
        screen = self.screen
        if len(self._lines) != screen.lines:
            self._lines = [""] * screen.lines
            screen.dirty.update(range(screen.lines))
        for y in screen.dirty:
            if y < screen.lines:
                self._lines[y] = _line_text(screen, y)
        screen.dirty.clear()
        return self._lines

    async def wait_for(
        self, what: str | Callable[[str], bool], timeout: float = 10.0
    ) -> str:
        """Wait until the screen contains `what` (or the predicate holds); return it."""
        check: Callable[[str], bool] = (lambda s: what in s) if isinstance(what, str) else what
        deadline = time.monotonic() + timeout
        while True:
            screen = self.text()
            if check(screen):
                return screen
            left = deadline - time.monotonic()
            if left <= 0 or (self.closed.is_set() and not self._changed.is_set()):
                raise AssertionError(f"timed out waiting for {what!r}; screen:\n{screen}")
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))

    async def wait_closed(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self.closed.wait(), timeout)

    # --- writing --------------------------------------------------------------------

    def send(self, data: str | bytes) -> None:
        assert self.process is not None
        self.process.stdin.write(data.encode() if isinstance(data, str) else data)

    async def press(self, *keys: str, pause: float = 0.0) -> None:
        for key in keys:
            self.send(KEYS.get(key, key))
            if pause:
                await asyncio.sleep(pause)

    def resize(self, width: int, height: int) -> None:
        assert self.process is not None
        self._parse()
        self.width, self.height = width, height
        self.screen.resize(height, width)
        self._text = None
        self.process.change_terminal_size(width, height)

    async def close(self) -> None:
        self.conn.close()
        with contextlib.suppress(Exception):
            await self.conn.wait_closed()
        if self._reader is not None:
            with contextlib.suppress(BaseException):
                await self._reader


KEYS: dict[str, str] = {
    "enter": "\r",
    "escape": "\x1b",
    "tab": "\t",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "backspace": "\x7f",
    "space": " ",
    "f1": "\x1bOP",
}


def _line_text(screen: pyte.Screen, y: int) -> str:
    """Line `y` of the screen as `pyte.Screen.display` shows it (a wide character's
    second cell is skipped)."""
    line = screen.buffer[y]
    chars: list[str] = []
    wide = False
    for x in range(screen.columns):
        if wide:
            wide = False
            continue
        char = line[x].data
        wide = wcwidth(char[0]) == 2
        chars.append(char)
    return "".join(chars)


def cursor_on(client: ScreenClient, placeholder: str) -> bool:
    """The input showing `placeholder` has the focus: its cursor, a block of its own
    colours, sits on the placeholder's first letter. Keys typed now go into it (typed
    at once after the key that focuses it, they would reach the widget focused before)."""
    for y, line in enumerate(client.text().splitlines()):
        x = line.find(placeholder)
        if x >= 0:
            row = client.screen.buffer[y]
            return bool(row[x].bg != row[x + 1].bg)
    return False


async def eventually(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Poll until `condition()` holds; fail with `what` after `timeout` seconds.

    For server state that settles after the client's side is done (a session ending).
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        await asyncio.sleep(0.05)


def click(x: int, y: int) -> str:
    """An SGR mouse click (press and release) at column x, row y (0-based)."""
    return f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m"


def lines(screen: str) -> Sequence[str]:
    return screen.splitlines()


# --- driving the Moon interface by what the screen says ---------------------------------

_TRUMP_CHOICE = re.compile(r"(\d) \((\d)\)")
"""A suit on the trump line and how many of it the player holds: `3 (4)`."""
_LEGAL_TILE = re.compile(r"[╭┏][─━]{2}(\d)")


async def changed(client: ScreenClient, before: str, timeout: float = 3.0) -> str:
    """Wait (up to `timeout`) until the screen differs from `before`; return it."""
    with contextlib.suppress(AssertionError):
        return await client.wait_for(lambda s: s != before, timeout)
    return client.text()


async def enter_lobby(client: ScreenClient, timeout: float = 15.0) -> str:
    await client.wait_for("go to the lobby", timeout)
    await client.press("enter")
    return await client.wait_for("new table", timeout)


async def open_bot_table(client: ScreenClient, timeout: float = 15.0) -> str:
    """From the lobby: create a table, seat two computer players, start the game."""
    await client.press("n")
    await client.wait_for("Create (ctrl+s)", timeout)
    await client.press("\x13")
    await client.wait_for("waiting room", timeout)
    for _ in range(2):
        before = client.text()
        await client.press("b")
        await changed(client, before)
    await client.wait_for("Every seat is taken", timeout)
    await client.press("s")
    return await client.wait_for("hand 1", timeout)


def offered_bids(screen: str) -> list[int] | None:
    """The bids on the row of bids (`▸p pass  4  5  6  7  m moon`), or None when the screen
    has no such row (not this player's bid). The row stays when a message takes the
    prompt's place."""
    for row in screen.splitlines():
        if row.strip().lstrip("▸").startswith("p pass") and "m moon" in row:
            return [int(word.strip("▸")) for word in row.split() if word.strip("▸").isdigit()]
    return None


def next_move(screen: str) -> str | None:
    """The key a simple player presses on this screen, or None when it is not our turn. It
    passes in the auction (the computers at the table make the contracts)."""
    if offered_bids(screen) is not None:
        return "p"
    choices = [(int(count), suit) for suit, count in _TRUMP_CHOICE.findall(screen)]
    if choices:  # the trump row, `▸0 (0)  1 (0)  2 (3) ...`: the suit held most
        return max(choices)[1]
    if "choose tile" in screen or "Your turn: play" in screen or "Discard one tile" in screen:
        found = _LEGAL_TILE.search(screen)
        return found.group(1) if found else "enter"
    return None


async def decide_once(client: ScreenClient, timeout: float = 60.0) -> None:
    """Wait for this player's turn and take it: a game in which no person decided anything
    is not saved as a record."""
    screen = await client.wait_for(lambda s: next_move(s) is not None, timeout)
    key = next_move(screen)
    assert key is not None
    await client.press(key)
    await client.wait_for(lambda s: s != screen, timeout)


async def play_until(
    client: ScreenClient, done: Callable[[str], bool], timeout: float = 60.0
) -> str:
    """Play whatever the screen asks for until `done(screen)`; return that screen."""
    deadline = time.monotonic() + timeout
    while True:
        screen = client.text()
        if done(screen):
            return screen
        if time.monotonic() > deadline:
            raise AssertionError(f"game did not get there in {timeout} s; screen:\n{screen}")
        key = next_move(screen)
        if key is not None:
            await client.press(key)
        await changed(client, screen, 1.0)


@contextlib.asynccontextmanager
async def running_server(
    data: Path, **options: Any
) -> AsyncIterator[MoonServer]:
    """A real server on a free loopback port with its data in `data` (tests, benchmarks).

    `options` go to `ServerConfig` except `app_factory`, `lobby_config`, `freeze_memory`
    and `place` (`MoonServer`'s: a worker of a club on a bus). Its players are let go at
    once when it stops (no `shutdown_notice_seconds`) unless a test asks.
    """
    options.setdefault("shutdown_notice_seconds", 0.0)
    app_factory = options.pop("app_factory", None)
    lobby_config = options.pop("lobby_config", None)
    freeze_memory = options.pop("freeze_memory", False)
    place = options.pop("place", None)
    config = ServerConfig(host="127.0.0.1", port=0, data=data, **options)
    server = MoonServer(config, app_factory=app_factory, lobby_config=lobby_config,
                        freeze_memory=freeze_memory, place=place)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def operator_command_line(client: ScreenClient) -> str:
    """From the lobby, an operator opens the dashboard (`o`) and goes to its command line
    (`:`); what is typed next is a command. Returns the screen."""
    await client.press("o")
    await client.wait_for("Tab: next list")
    await client.press(":")
    return await client.wait_for(lambda s: cursor_on(client, ": a command"))


@contextlib.asynccontextmanager
async def operator_club(

    data: Path, olga_key: asyncssh.SSHKey, **options: Any
) -> AsyncIterator[MoonServer]:
    """`running_server` where olga (with `olga_key`) is an operator, playing fast (no
    computer pauses); `options` as `running_server`'s (`motd`, `limits`...)."""
    from moon_tui.lobby import LobbyConfig

    olga_line = olga_key.export_public_key("openssh").decode()
    lobby = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                        bot_time_budget=0.05, operators=frozenset({"olga"}),
                        motd=options.get("motd", ""))
    options.setdefault("lobby_config", lobby)
    async with running_server(data, operators={"olga": (olga_line,)}, **options) as server:
        yield server


async def moon_server_process(

    data: Path, *extra: str
) -> tuple[asyncio.subprocess.Process, int, list[str]]:
    """`moon-server` as an operator starts it, in a process of its own, on a free loopback
    port: the process, its port, and the log lines read until it said where it listens."""
    repo = Path(__file__).resolve().parent.parent.parent
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "--host", "127.0.0.1", "--port", "0",
        "--data", str(data), *extra, stderr=asyncio.subprocess.PIPE, cwd=repo,
    )
    assert process.stderr is not None
    log_lines: list[str] = []
    port = 0
    while not port:
        line = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        assert line, "moon-server exited early:\n" + "".join(log_lines)
        log_lines.append(line)
        if found := re.search(r"listening on \S+ port (\d+)", line):
            port = int(found.group(1))
    return process, port, log_lines
