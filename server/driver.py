"""A Textual driver that runs an app over one SSH channel, inside the server's event loop.

It subclasses `textual.driver.Driver`, not `LinuxDriver` (which installs process-wide
signal handlers and termios settings on the server's own stdin). Many apps share the one
loop, so everything here is a task or a callback on that loop, never a thread. It
expects the adjustments of `patches.py`, which the server installs while it runs.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import contextvars
import logging
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Literal, TextIO

import asyncssh
from textual import constants, events
from textual.app import App
from textual.dom import DOMNode
from textual.driver import Driver
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from moon_tui.ui.base import FirstScreen

from .config import Limits
from .internals import Internal
from .keyboard import InputDecoder, TokenBucket
from .logtext import shown
from .terminal import TerminalProfile

log = logging.getLogger(__name__)

OUTPUT_LIMIT = 256 * 1024
"""Bytes waiting for a client beyond which frames are skipped until it reads again."""
READ_CHUNK = 1024
EVENTS_PER_SECOND = 40.0
EVENT_BURST = 120.0
HELD_EVENTS = READ_CHUNK
"""Events past the budget wait in order, up to this many (one read's worth: the reader
waits for the budget before it reads again); typed text beyond the burst is delayed, not
lost. Only what overflows this is dropped."""
BYTES_PER_TOKEN = 64
"""Reading costs one token per this many bytes, so garbage making no events is metered too."""
DROPPED_CHARS_PER_TOKEN = 16384
"""What the decoder drops unparsed (a paste's excess, escape strings) costs this little:
charged like keys, a 1 MB paste cost 16,000 tokens and the player's own keys waited
minutes for them (over 180 s measured)."""
RESIZE_COST = 8.0
"""Tokens a window change to an ordinary terminal costs: each one lays the whole screen
out again (a key press costs 1); a flood is read at this pace, and the window changes
that arrive meanwhile are merged into one (server/channel.py)."""
RESIZE_COST_CELLS = 120 * 40
"""A window change to a terminal larger than this many cells costs more, in proportion
(up to `EVENT_BURST`): its layout and frame cost about so. At the largest size a session
is drawn at (500x200) each took ~45 ms of CPU, and 40 in two seconds held every other
player's keys past 100 ms (issue 36, bench/attacks.py 1); now they are read one in 3 s."""
ANSWER_WINDOW = 0.25
"""Seconds after a player's input during which their app's work does not wait its turn
behind other apps' on a busy server (server/patches.py, patch 9). A player typing without
pause keeps it, within the reading budget above."""
FRESH_ASK = 0.15
"""Seconds an unanswered input counts as a player waiting for their screen: other apps'
work gives way to it (`Asks`, patch 9). A key that changes nothing is never answered;
past this it is forgotten."""
LONG_ASK = 0.03
"""Seconds after which an app still working on its own player's input gives way to
fresher ones: its answer is a long one (a dialog or a table being built), theirs may be
a letter in the chat line."""
END_SLOT_LOAN = 10.0
"""Seconds an ending app may hold its end slot (`SSHTerminal.take_end_slot`)."""
ACTIVITY_RECHECK = 5.0
"""Seconds after input the app acted on during which more input is not looked at for
the idle rule (`SSHDriver._note_activity`; a tenth of `idle_minutes` if that is less)."""

OVERRIDDEN = (
    Internal("textual", App, "_build_driver", "SSHDriver built as driver_class(app, ...)"),
    Internal("textual", Driver, "__init__", "SSHDriver uses _app, _loop, _size, _mouse"),
)
"""Textual's private code the driver relies on (see internals.py)."""

_MOUSE_ON = "\x1b[?1000h\x1b[?1006h"  # clicks only (no motion tracking), SGR coordinates
_MOUSE_OFF = "\x1b[?1000l\x1b[?1006l"


def resize_cost(width: int, height: int) -> float:
    """Input tokens a window change to `width` x `height` costs (`RESIZE_COST_CELLS`)."""
    return min(EVENT_BURST, RESIZE_COST * max(1.0, width * height / RESIZE_COST_CELLS))


@dataclass(eq=False)
class SSHTerminal:
    """The SSH side of one session, handed to the driver that `App` constructs itself."""

    process: asyncssh.SSHServerProcess[bytes]
    profile: TerminalProfile
    reader: asyncio.Task[None] | None = None
    dropped_events: int = 0
    skipped_frames: int = 0
    bytes_out: int = 0
    frames: int = 0
    last_input: float = field(default_factory=time.monotonic)
    """When the client last sent anything (a player typing goes first: `answering`)."""
    last_active: float = field(default_factory=time.monotonic)
    """When the player last did something the app acts on (the idle rule: `acts_on`)."""
    on_first_frame: Callable[[], None] | None = None
    """Called (once) when the app has drawn its first frame: its start is done (the door
    gives its start slot back), whether the frame went out or was dropped because the
    client does not read (a client holding its output back must not hold a slot)."""
    end_slots: asyncio.Semaphore | None = None
    """Apps ending at once because their clients went away (see `take_end_slot`)."""
    limits: Limits = Limits()
    """The server's bounds on what a client sends (paste and escape-string lengths)."""
    _end_slot_loan: asyncio.TimerHandle | None = None
    """Set while this app holds an end slot: the timer that takes it back."""

    async def take_end_slot(self) -> None:
        """Wait for a turn to end the app. The turn is lent for at most `END_SLOT_LOAN`
        seconds, so an app stuck in its shutdown cannot keep every later one waiting."""
        if self.end_slots is None:
            return
        await self.end_slots.acquire()
        # In an empty context: a timer keeps its context until its time comes, even
        # cancelled, and the app's context holds the whole app (Textual's active_app).
        self._end_slot_loan = asyncio.get_running_loop().call_later(
            END_SLOT_LOAN, self.give_back_end_slot, context=contextvars.Context())

    def give_back_end_slot(self) -> None:
        """The app has ended (or its loan ran out): the next one may end."""
        if self._end_slot_loan is not None and self.end_slots is not None:
            self._end_slot_loan.cancel()
            self._end_slot_loan = None
            self.end_slots.release()


class Asks:
    """Players waiting for the answer to what they typed: for each driver, when its first
    input not yet followed by a frame came. Patch 9 has other apps' work give way to
    them, as an operating system's scheduler favours the process that has just woken
    for a key over the ones that have used the processor for a while: four guests
    building tables (25-40 ms a step) held a chat letter up by a step at each of the
    three or four passes of the loop it takes, 150-200 ms (bench/attacks.py 4)."""

    def __init__(self) -> None:
        self.waiting: dict[object, float] = {}
        """Who waits, since when: a driver, or a worker's end of the bus answering a
        player another worker serves (`bus_link.WorkerBus`)."""

    def asked(self, asker: object, now: float) -> None:
        self.waiting.setdefault(asker, now)

    def answered(self, asker: object) -> None:
        self.waiting.pop(asker, None)

    def gives_way(self, driver: SSHDriver, now: float) -> bool:
        """Whether the app of `driver` should let a fresher input be answered first."""
        own = self.waiting.get(driver)
        if own is not None and now - own < LONG_ASK:
            return False
        stale = [d for d, at in self.waiting.items() if now - at >= FRESH_ASK]
        for gone in stale:
            del self.waiting[gone]
        return any(d is not driver for d in self.waiting)


ASKS = Asks()
"""The server's one loop's waiting players."""


CURRENT_TERMINAL: ContextVar[SSHTerminal] = ContextVar("moon_ssh_terminal")
"""Set by the session before `app.run_async()`; `App._build_driver` passes no extra args."""


class SSHDriver(Driver):
    """Reads keys from and writes frames to one SSH channel."""

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        terminal = CURRENT_TERMINAL.get()
        super().__init__(
            app,
            debug=False,
            mouse=mouse,
            size=size or (terminal.profile.width, terminal.profile.height),
        )
        self._terminal = terminal
        self._channel = terminal.process.channel
        self._pending: list[str] = []
        self._stale = False
        self._stale_check: asyncio.TimerHandle | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._held: deque[Message] = deque()
        """Events past the budget, handed on as it refills (`_release`)."""
        self._release_handle: asyncio.TimerHandle | None = None
        limits = terminal.limits
        self._decoder = InputDecoder(
            paste_limit=limits.paste_max_chars,
            escape_limit=limits.escape_max_chars,
            escape_timeout=limits.escape_timeout_seconds,
        )
        self._budget = TokenBucket(EVENTS_PER_SECOND, EVENT_BURST)
        self._input_open = False

    # --- output ---------------------------------------------------------------------

    def write(self, data: str) -> None:
        self._pending.append(data)

    def flush(self) -> None:
        if not self._pending:
            return
        data = "".join(self._pending)
        self._pending.clear()
        channel = self._channel
        if channel.is_closing():
            return
        first_frame = self._terminal.on_first_frame
        if first_frame is not None and not self._blank_first_screen():
            # Drawn: sent now, or dropped below for a stalled client.
            self._terminal.on_first_frame = None
            self._loop.call_soon(first_frame)
        if channel.get_write_buffer_size() > OUTPUT_LIMIT:
            # The client stopped reading: drop this frame and repaint in full once it
            # catches up, so a stalled client costs a bounded amount of memory.
            self._terminal.skipped_frames += 1
            self._mark_stale()
            return
        ASKS.answered(self)
        encoded = data.encode("utf-8", "replace")
        self._terminal.bytes_out += len(encoded)
        self._terminal.frames += 1
        channel.write(encoded)

    def _blank_first_screen(self) -> bool:
        """The frame is the app's blank first screen: a returning player's table is not
        up yet, and their start is not done (`moon_tui.ui.base.FirstScreen`)."""
        shown = self._app.screen_stack[-1:]
        return bool(shown) and isinstance(shown[0], FirstScreen)

    def _mark_stale(self) -> None:
        self._stale = True
        if self._stale_check is None:
            self._stale_check = self._loop.call_later(0.25, self._check_drained)

    def _check_drained(self) -> None:
        self._stale_check = None
        if not self._stale or self._channel.is_closing():
            return
        if self._channel.get_write_buffer_size() > OUTPUT_LIMIT // 4:
            self._stale_check = self._loop.call_later(0.25, self._check_drained)
            return
        self._stale = False
        with contextlib.suppress(Exception):
            self._app.refresh(repaint=True)

    # --- application mode -----------------------------------------------------------

    def start_application_mode(self) -> None:
        self.write("\x1b[?1049h")  # alternate screen
        self.write("\x1b[?25l")  # hide cursor
        if self._mouse:
            self.write(_MOUSE_ON)
        self.write("\x1b[?2004h")  # bracketed paste
        self.write("\x1b[?7l")  # no line wrap
        self.write("\x1b[?2026$p")  # ask for synchronized output support
        # Not flushed: they go out with the first frame, whose flush gives the start slot
        # back (`on_first_frame`). Flushed here, they gave it back before the app had
        # even composed, and every app of a burst started at once (server/door.py).
        width, height = self._size or (80, 24)
        self._app.post_message(events.Resize.from_dimensions((width, height), None))
        self._input_open = True
        # Created here so the task inherits the app's context (active_app).
        self._terminal.reader = asyncio.get_running_loop().create_task(
            self._read_input(), name=f"ssh-input-{id(self):x}"
        )

    def disable_input(self) -> None:
        self._input_open = False
        ASKS.answered(self)
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        if self._release_handle is not None:
            self._release_handle.cancel()
            self._release_handle = None
        self._held.clear()
        if self._stale_check is not None:
            self._stale_check.cancel()
            self._stale_check = None
        reader = self._terminal.reader
        if reader is not None and not reader.done():
            reader.cancel()

    def stop_application_mode(self) -> None:
        self.disable_input()
        if self._mouse:
            self.write(_MOUSE_OFF)
        self.write("\x1b[?2004l\x1b[?7h\x1b[?1049l\x1b[?25h")
        self._stale = False
        self.flush()

    # --- input ----------------------------------------------------------------------

    def send_message(self, message: Message) -> None:
        # The base class assumes an input thread; this runs on the loop already.
        self._app.post_message(message)

    def process_message(self, message: Message) -> None:
        if isinstance(message, events.MouseMove):
            return  # motion is not tracked; a client sending it anyway gets nothing
        if self._held or not self._budget.take(1 + _extra_cost(message)):
            if len(self._held) >= HELD_EVENTS:
                self._terminal.dropped_events += 1
                return
            self._held.append(message)
            if self._release_handle is None:
                self._release_handle = self._loop.call_later(
                    max(self._budget.wait_time(), 0.001), self._release)
            return
        self._note_activity(message)
        super().process_message(message)

    def _release(self) -> None:
        """Hand on the held events the budget allows now, in order; wait for the rest."""
        self._release_handle = None
        while self._held and self._input_open:
            if not self._budget.take(1 + _extra_cost(self._held[0])):
                self._release_handle = self._loop.call_later(
                    max(self._budget.wait_time(), 0.001), self._release)
                return
            held = self._held.popleft()
            self._note_activity(held)
            super().process_message(held)

    def _note_activity(self, message: Message) -> None:
        """Keep the session from the idle rule if the app acts on `message`.

        Any byte used to count: a client sending a space every 29 minutes, or garbage,
        held its place for ever (issue 36). Looked at most every `ACTIVITY_RECHECK`
        seconds: the idle rule counts in minutes, and looking costs a walk of the
        screen's bindings."""
        terminal = self._terminal
        now = time.monotonic()
        recheck = min(ACTIVITY_RECHECK, terminal.limits.idle_minutes * 6)  # a tenth
        if now - terminal.last_active >= recheck and acts_on(self._app, message):
            terminal.last_active = now

    async def _read_input(self) -> None:
        stdin = self._terminal.process.stdin
        decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        try:
            while self._input_open:
                wait = self._budget.wait_time()
                if wait:
                    await asyncio.sleep(wait)
                try:
                    data = await stdin.read(READ_CHUNK)
                except asyncssh.TerminalSizeChanged as change:
                    self._budget.charge(resize_cost(change.width, change.height))
                    self._resize(change.width, change.height)
                    continue
                if not data:
                    break
                self._terminal.last_input = now = time.monotonic()
                ASKS.asked(self, now)
                dropped = self._decoder.discarded
                self._deliver(self._decoder.feed(decode(data)))
                dropped = self._decoder.discarded - dropped
                self._budget.charge(max(len(data) - dropped, 0) / BYTES_PER_TOKEN
                                    + dropped / DROPPED_CHARS_PER_TOKEN)
        except (asyncssh.Error, OSError) as error:
            log.debug("input ended: %s", shown(error))
        finally:
            if self._input_open:
                # The client went away: end the app (the session then closes the channel).
                # A hundred clients leaving at once (a network blip, the end of a club
                # evening) would otherwise shut down a hundred apps in the same loop
                # passes: wait for a turn.
                self._input_open = False
                await self._terminal.take_end_slot()
                self._app.exit()

    def answering(self) -> bool:
        """Whether the player typed in the last `ANSWER_WINDOW` seconds (see patch 9)."""
        return time.monotonic() - self._terminal.last_input < ANSWER_WINDOW

    def gives_way(self) -> bool:
        """Whether this app's work should wait while another player's input is answered
        (`Asks`, patch 9)."""
        return bool(ASKS.waiting) and ASKS.gives_way(self, time.monotonic())

    def _deliver(self, messages: Iterator[Message]) -> None:
        for message in messages:
            self.process_message(message)
        if self._decoder.cut_paste:
            self._decoder.cut_paste = 0
            self._app.notify(f"Pasted text was cut to {self._decoder.paste_limit} characters.",
                             severity="warning")
        if self._decoder.waiting and self._tick_handle is None:
            self._tick_handle = self._loop.call_later(
                constants.ESCAPE_DELAY + 0.01, self._tick
            )

    def _tick(self) -> None:
        self._tick_handle = None
        if self._input_open:
            self._deliver(self._decoder.tick())

    def _resize(self, width: int, height: int) -> None:
        width, height = max(width, 1), max(height, 1)
        self._size = (width, height)
        self._app.post_message(events.Resize.from_dimensions((width, height), None))

    # --- things a terminal app could do to the server: refused ------------------------

    def open_url(self, url: str, new_tab: bool = True) -> None:
        log.info("ignored open_url(%s) from an SSH session", shown(url))

    def deliver_binary(
        self,
        binary: BinaryIO | TextIO,
        *,
        delivery_key: str,
        save_path: Path,
        open_method: Literal["browser", "download"] = "download",
        encoding: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        binary.close()
        self._app.post_message(
            events.DeliveryFailed(
                key=delivery_key,
                exception=PermissionError("files are not saved on the game server"),
                name=name,
            )
        )


def acts_on(app: App[Any], message: Message) -> bool:
    """Whether `app` acts on this input from its player: a key bound on its screen (and
    enabled there), text typed or pasted into a text field, a click on something that
    takes clicks. Not a key nothing is bound to, nor a click on nothing."""
    try:
        screen = app.screen
    except Exception:  # no screen yet (starting) or any more (ending)
        return False
    if isinstance(message, events.Key | events.Paste) and isinstance(app.focused, Input):
        if isinstance(message, events.Paste) or message.is_printable:
            return True
    if isinstance(message, events.Key):
        bindings = screen.active_bindings
        return any(key in bindings and bindings[key].enabled for key in message.aliases)
    if isinstance(message, events.MouseDown):
        try:
            widget, _ = screen.get_widget_at(message.screen_x, message.screen_y)
        except Exception:  # outside every widget
            return False
        node: DOMNode | None = widget
        while isinstance(node, Widget) and not isinstance(node, Screen):
            if node.focusable or _takes_clicks(type(node)):
                return True
            node = node.parent
    return False


@lru_cache(256)
def _takes_clicks(cls: type[Widget]) -> bool:
    """Whether a widget class handles clicks itself (beyond Textual's base `Widget`)."""
    return any("on_click" in vars(base) or "_on_click" in vars(base)
               for base in cls.__mro__ if base is not Widget and issubclass(base, Widget))


def _extra_cost(message: Message) -> float:
    if isinstance(message, events.Paste):
        return len(message.text) / 256
    return 0.0
