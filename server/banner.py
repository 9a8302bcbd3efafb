"""The welcome banner, drawn over SSH before the player's app starts.

Starting a Textual app costs ~0.1 s of server CPU, so when players arrive together
their first screens queued behind one another for seconds (measured: 2 s p99 at 5
arrivals a second). The banner costs next to nothing: every player sees it at once,
and the app starts when they press Enter (or ?), already in the lobby.
"""

from __future__ import annotations

import asyncio
import io
from typing import Literal

import asyncssh
from rich.align import Align
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from moon_tui.ui.door_words import BANNER_KEYS, TAGLINE, WELCOME_KEYS, welcome_words
from moon_tui.ui.plain import printable

from .driver import OUTPUT_LIMIT
from .terminal import TerminalProfile

Choice = Literal["lobby", "help", "lesson", "quit", "idle"]

BANNER = r"""
 __  __
|  \/  | ___   ___  _ __
| |\/| |/ _ \ / _ \| '_ \
| |  | | (_) | (_) | | | |
|_|  |_|\___/ \___/|_| |_|
"""


def _block(art: str) -> str:
    """Pad every line of `art` to one width, so centring the text keeps the letters aligned."""
    lines = art.strip("\n").splitlines()
    width = max(len(line) for line in lines)
    return "\n".join(line.ljust(width) for line in lines)


def welcome_lines(name: str, motd: str) -> list[tuple[str, str]]:
    """(line, style) pairs: the banner, a greeting, the message of the day, the keys.

    Drawn by the server before the player's app starts. Lines are appended to a `Text`,
    never parsed as markup (a `[/]` in the message of the day is shown as written), and
    control characters are dropped (`ui.plain`)."""
    lines = [(line, "bold") for line in _block(BANNER).splitlines()]
    lines += [("", ""), (TAGLINE, ""), ("", ""), (welcome_words(name), "bold"), ("", "")]
    if motd:
        lines += [(printable(line, lines=False), "italic")
                  for line in motd.strip().splitlines()] + [("", "")]
    lines.append((WELCOME_KEYS, ""))
    return lines


KEYS = f" {BANNER_KEYS}"
_QUIT = (b"q", b"Q", b"\x03", b"\x04")  # q, Ctrl+C, Ctrl+D
REPAINT_DELAY = 0.1
"""Seconds between a window change and the banner's repaint: the changes that arrive
meanwhile make one repaint (a full 500x200 banner is ~100 KB and ~5 ms of CPU)."""
DRAIN_CHECK = 0.25
"""Seconds between looks at a client's output buffer while it is too full to draw."""


def render(name: str, motd: str, profile: TerminalProfile, width: int, height: int) -> str:
    """The whole screen: the banner in the middle, the keys on the last line."""
    color_system = None if profile.no_color else profile.color_system
    console = Console(file=io.StringIO(), width=width, height=height, force_terminal=True,
                      color_system=color_system, legacy_windows=False, emoji=False)
    lines = welcome_lines(name, motd)
    inner = max(len(line) for line, _ in lines)
    text = Text(no_wrap=True, overflow="crop")
    for index, (line, style) in enumerate(lines):
        text.append(("\n" if index else "") + line.center(inner), style=style)
    panel = Panel(text, expand=False, padding=(1, 4), border_style="bold")
    with console.capture() as capture:
        console.print(Align.center(panel, vertical="middle", height=max(1, height - 1)),
                      end="")
    screen = capture.get().split("\n")[: max(1, height - 1)]
    return ("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J" + "\r\n".join(screen)
            + f"\x1b[{height};1H\x1b[7m{KEYS[:width]}\x1b[0m")


def status_line(text: str, height: int) -> str:
    """Replace the keys line with `text` (e.g. `door_words.STARTING`), as it is drawn."""
    return f"\x1b[{height};1H\x1b[2K\x1b[7m {text}\x1b[0m"


class BannerPainter:
    """Draws the banner on one channel with the game's output bounds (server/driver.py).

    A client sending 33,000 window changes in 20 s without reading once cost a server
    400 MB and others' typing seconds: each change drew a whole banner into the
    channel's buffer. Here window changes are coalesced into one repaint per
    `REPAINT_DELAY`, and nothing is drawn while more than `OUTPUT_LIMIT` bytes wait for
    the client: the banner is drawn again, whole, once it has read most of them.
    """

    def __init__(self, process: asyncssh.SSHServerProcess[bytes], name: str, motd: str,
                 profile: TerminalProfile) -> None:
        self._process = process
        self._name = name
        self._motd = motd
        self._profile = profile
        self.width, self.height = profile.width, profile.height
        self._timer: asyncio.TimerHandle | None = None
        self._draining = False
        self.frames = 0
        self.skipped_frames = 0

    def paint(self) -> None:
        """Draw now if the client has room for it, else once it has read."""
        self._timer = None
        channel = self._process.channel
        if channel.is_closing():
            return
        limit = OUTPUT_LIMIT // 4 if self._draining else OUTPUT_LIMIT
        if channel.get_write_buffer_size() > limit:
            self._draining = True
            self.skipped_frames += 1
            self._later(DRAIN_CHECK)
            return
        self._draining = False
        self.frames += 1
        channel.write(render(self._name, self._motd, self._profile,
                             self.width, self.height).encode())

    def resize(self, width: int, height: int) -> None:
        self.width, self.height = max(1, width), max(1, height)
        self._later(REPAINT_DELAY)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _later(self, delay: float) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(delay, self.paint)


async def show(
    process: asyncssh.SSHServerProcess[bytes], name: str, motd: str,
    profile: TerminalProfile, *, idle_seconds: float,
) -> tuple[Choice, int]:
    """Draw the banner and wait for a key: Enter (the lobby), ? (help), l (the first
    lesson) or q (quit).

    Returns the choice and the terminal's height (for the status line): "idle" when the
    client said nothing for `idle_seconds`, "quit" too when it closed its input."""
    painter = BannerPainter(process, name, motd, profile)
    painter.paint()
    try:
        return await _wait_for_choice(process, painter, idle_seconds)
    finally:
        painter.close()


async def _wait_for_choice(
    process: asyncssh.SSHServerProcess[bytes], painter: BannerPainter, idle_seconds: float
) -> tuple[Choice, int]:
    # One deadline for the whole wait: bytes the banner ignores (garbage, arrows, the
    # mouse) or window changes do not push it back (issue 36: any byte did).
    deadline = asyncio.get_running_loop().time() + idle_seconds
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                data = await process.stdin.read(1024)
        except asyncssh.TerminalSizeChanged as change:
            painter.resize(change.width, change.height)
            continue
        except TimeoutError:
            return "idle", painter.height
        except (asyncssh.BreakReceived, asyncssh.SignalReceived, OSError,
                asyncssh.Error):
            return "quit", painter.height
        if not data or data in _QUIT:
            return "quit", painter.height
        if data in (b"\r", b"\n", b"\r\n"):
            return "lobby", painter.height
        if data == b"?":
            return "help", painter.height
        if data in (b"l", b"L"):
            return "lesson", painter.height
        # anything else (arrows, mouse, garbage) is ignored
