"""Process-wide adjustments to Textual (and two to asyncssh) so that many apps can
share one server process.

A patch that makes drawing cheaper stays only while it saves at least 2% of a club
server's CPU: each says what it was measured to save with `bench/patch_gains.py` (CPU
per table update with every patch but that one, against all of them, alternating in one
game; "N apps": the player's and N-1 watching tables of computers), an upper bound of
its share of a server's CPU, which also pays for SSH and sockets. Patches that mend a
bug of Textual are reported upstream in docs/UPSTREAM.md.

Textual assumes one app per process. Measured over SSH:

1. `App._process_messages` wraps each app in `redirect_stdout`/`redirect_stderr`, which
   swap the *process-wide* `sys.stdout`; with overlapping sessions the server's stdout was
   left pointing at a dead app and logs vanished.
2. Colour codes are cached on shared objects whatever the console's colour system:
   `Strip.render_style` reuses `style._ansi` (styles are shared between apps through
   class-level caches) and `Strip.render` keeps its string on the strip (`Strip.blank` is
   shared too): a 16-colour `xterm` player got another player's 256-colour codes. Here
   the codes come from `Strip.render_ansi(style, color_system)` (an lru_cache keyed on
   both), the strip cache is tagged with the colour system, and `Strip.join` no longer
   glues cached strings together (they would carry the tags).

3. Every app parses the same CSS again (its `Stylesheet` caches parses per instance):
   about a sixth of a session's start-up. Parses are shared here between apps whose
   CSS variables (theme) are the same; Textual already reuses a parse within one app.

4. Restyling a widget with component classes (a DataTable's cursor, an Input's
   placeholder...) built new "virtual" DOM nodes each time and dropped the old ones:
   about 70 objects in reference cycles per node, which in a long-running server end up
   in the garbage collector's frozen set (see `memory.py`) instead of being freed. Here
   each component keeps its one virtual node, restyled in place.

5. `StylesCache.get_inner_outer` is an `lru_cache` on a method meant to be a classmethod,
   so its keys hold the instance: up to 1,024 widgets' style caches of ended sessions, and
   every line they had rendered, stayed alive for good (~5,000 objects per ended session,
   measured, reachable and so never collected). Here it is cached on its colours alone.

6. A `Strip` cached itself (`crop_extend` to its own length, `divide` with no cut): a
   reference cycle for most rendered lines, so each line a widget drops is garbage only
   a collection finds, and lines frozen while on screen stayed until a reclaim (playing
   a hand left ~16,000 such objects per player, measured). Here those calls return the
   strip without caching it.

7. A widget restyled itself (and its descendants) whenever a class changed before it was
   mounted: `Input(compact=True)`, `Button(compact=True)`... each applied the whole
   stylesheet once in the constructor and again when mounted. About a third of the
   styling work of opening the new-table dialog, measured. Here a node that is not in
   the DOM yet is left alone: mounting styles it.

8. A screen laid itself out twice as it opened, and laid out the screen under it again:
   its first layout sends it a Resize event (it was just "shown"), which Textual takes
   for a change of the terminal's size. Here a screen (or one under a dialog) whose
   size has not changed is not laid out again; a real resize still is.

9. A message pump with a backlog handled all of it in one pass of the event loop, and so
   did every other busy app: while a few players opened tables, one pass took 30-60 ms,
   and a login, which needs about ten passes (one per round trip), waited 300-500 ms for
   its welcome. Here app work yields to the loop once a pass has run `PASS_BUDGET` of it:
   a pump's next message, or a timer's tick (a screen's refresh), waits for the next
   pass, after the network has been served. A single long step (composing a dialog,
   ~25 ms) still runs whole. Nothing is done
   twice or dropped, only interleaved; when the server is not busy no pass reaches the
   budget and nothing changes. The app of a player who has just typed (`ANSWER_WINDOW`
   in driver.py) goes on to `ANSWER_BUDGET`: on a busy server a key is answered first,
   and other players' screens showing what they did not ask for (another's move, the
   lobby's news) wait a pass. With 300 club players on a full 2-core machine, key ->
   screen p50/p99 went from 145/685 and 230/1052 ms to 101/621 and 168/679 (two pairs
   of runs). At first the app of a player who had typed never waited, and a pass in
   which many had typed kept logins waiting: with 300 club players arriving, the first
   screen p50 was 1.96-2.20 s and the p99 3.5-5.9 s in four runs without
   `ANSWER_BUDGET`, 1.65-1.96 s and 2.6-4.0 s in four with it (two rounds in the order
   without, with, with, without); the keys at tables were no slower.
   And an app's next step gives way, for a few passes at most (`GIVE_WAY_PASSES`),
   while another player's input waits for its frame (`driver.Asks`), unless its own
   player has just typed: four guests building tables held a calm player's chat
   letter up by a 25-40 ms step at each of its passes. `bench/attacks.py 4`: the calm
   player's p99 66, 86, 52, 62 ms (before: 140, 61, 47, 56, 26, 71, 92 ms; then with
   the memory ticks' change of the same day 167, 76, 51 ms); attacks 1, 2 and 7: 8, 6
   and 9 ms (before: 52-102, 18-90, 26-36).

10. asyncssh re-reads its sshd-style config for each user who logs in, in a worker thread:
    a trip there and back, two passes of the loop, for nothing when no such file is
    loaded (moon-server loads none). Here that trip is skipped when there is no file.

11. Each `Strip` (a line of a widget, made by the thousand per frame) made seven empty
    caches when it was built (`FIFOCache`s, each with its dict): 16 objects per line for
    the garbage collector to track, most of them never used. About 5% of a club server's
    CPU went to building them (py-spy), and more to collecting them. Here each cache is
    made the first time it is used.
    Measured: +40.3% of CPU per table update with Textual's `Strip.__init__` back (9
    apps; an upper bound: the slots that make a cache when first read stay in both).

12. A frame rendered every widget in the rectangle around all that changed, and each of
    them whole, though only the changed cells are sent: when the table's prompt and its
    key bar both changed, every widget between them was rendered again, the screen and
    the containers behind them too (from their line caches mostly, each line still run
    through the colour filter and cut to pieces), about 90 lines for a frame that sends
    a few. Here a frame renders a widget only on the changed rows where it covers a
    changed column that no widget in front of it has drawn, and only those rows; what
    is sent is the same, byte for byte (tests/test_server_patches.py).
    Measured: +22.6% of CPU per table update without it (1 app), +24.3% (9 apps).

13. A widget's repaint reached its screen through two messages: the widget woke its own
    message pump (a `Prompt`) only to find, once idle, that it must tell its screen (an
    `Update`). A table update repaints five or six widgets: about ten messages and task
    wake-ups for what one set of the screen's dirty widgets holds. Here a widget with
    nothing else to do when idle (no layout, scroll, restyle or queued callback pending,
    no idle handler of its own) marks its screen at once, as the screen would on that
    `Update`, and resumes the screen's frame timer, as the screen's idle would on the
    `Prompt` that marking sends it (a pass of the event loop sooner); anything else
    takes Textual's way.
    Measured: +20.5% of CPU per table update without it (1 app), +7.0% (9 apps).

14. Every line a widget draws goes through a filter that turns ANSI colours (and dim
    text) into true colours: a new segment for every segment, each style looked up in
    a cache shared by all apps and keyed on the app's own filter too, so with a few
    hundred sessions most lookups missed and recomputed the style (5-6% of a club
    server's CPU at 300 players, py-spy). Here each app's filter keeps what each of its
    styles becomes, and a line whose styles need no change is handed back as it is. A
    style made for one line only (it carries its cell's place) is not looked up at all
    when it needs no conversion (~30% of the filter's time, bench/ui.py).
    Measured: -0.2% of CPU per table update without it (1 app: the shared cache
    holds all it needs), +1.4% (9 apps), +6.7% (31 apps).

15. A widget's lines went through Textual's general drawing of borders, outlines,
    padding, tint, hatching and opacity, line by line, whatever the widget had of them:
    about a fifth of a table update's CPU (bench/ui.py, py-spy), for widgets that have
    at most padding and a side border. Here a widget with no top or bottom border,
    outline, hatch, tint or text opacity, fully opaque, has its lines drawn by that
    drawing's own steps for such a widget only (its content, cut or filled to the
    width, padded, between its side borders made once), the same strips; any other
    widget takes Textual's way.
    Measured: +6.4% of CPU per table update without it (1 app), +9.5% (9 apps),
    +8.1% (31 apps).

16. (Removed: `DOMNode.screen` without its import at each read measured +2.0%, +3.3%
    and -1.5% of the CPU per table update with 1, 9 and 31 apps, less than the 2% of a
    club server's CPU a patch must be worth; bench/patch_gains.py.)

17. (Removed: a frame's cursor moves written without a Rich `Control` each measured
    +3.5%, +3.2% and -0.7% of the CPU per table update with 1, 9 and 31 apps, less than
    the 2% of a club server's CPU a patch must be worth; bench/patch_gains.py.)

18. A screen drew its frames on a grid of 1/60 s: a change made a few milliseconds after
    the last frame (a table's answer right after the key's own echo) waited for the
    next line of the grid, up to 17 ms. Here the grid is `FRAME_PERIOD` (4 ms); changes
    made in one pass of the event loop are still drawn as one frame.

19. A key went to the focused widget, then bubbled to its screen, then to the app, where
    the bindings act on it: a pass of the event loop at each step, 20-30 ms each on a
    busy server. Here a key skips the nodes that would only pass it on (no handler for
    it of their own, nothing queued before it) and goes straight to the first that would
    do something with it: the app (whose bindings take it), or a widget or screen with
    a handler for it (a chat line's Input; a screen's `_key_escape`, which clears a
    text selection). With patch 13, an arrow key in the waiting room
    is drawn two passes after the driver reads it instead of six (bench/passes.py).

20. asyncssh put an empty SSH_MSG_IGNORE packet before every packet it sent once the
    connection was encrypted: the counter-measure RFC 4251 (9.3.1) gives against an
    attack on CBC ciphers, which moon-server does not offer (asyncssh's defaults leave
    them out). Each frame was two packets, each padded with fresh random bytes,
    encrypted and written: 57 us of CPU per frame, 33 us without the empty one
    (bench/ssh_send.py, 400-byte frames). Here it is sent only when the connection
    encrypts with a CBC cipher; RFC 4253 (11.2) requires no implementation to send it.

`install()` checks that textual and asyncssh are the versions these were written for
(`internals.py`) and refuses otherwise; `uninstall()` undoes it. The server installs them
while it runs (`MoonServer.start` to `stop`); tests that need them use the
`server_patches` fixture (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, cast

import textual.app as textual_app
import textual.screen as textual_screen
from asyncssh.connection import SSHConnection, SSHServerConnection
from asyncssh.constants import MSG_IGNORE
from asyncssh.packet import SSHPacketLogger
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual._border import get_box
from textual._compositor import ChopsUpdate, Compositor
from textual._context import active_app
from textual._segment_tools import line_pad, make_blank
from textual._styles_cache import StylesCache
from textual.cache import FIFOCache
from textual.color import Color
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode, NoScreen
from textual.filter import ANSIToTruecolor
from textual.geometry import Region, Size
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style as TextualStyle
from textual.timer import Timer
from textual.widget import Widget

from .driver import SSHDriver
from .internals import Internal, Patch, Patches

_TAG = {system: chr(int(system)) for system in ColorSystem}


def _no_redirect(_target: object) -> contextlib.nullcontext[None]:
    return contextlib.nullcontext()


def _render(self: Strip, console: Console) -> str:
    color_system = console._color_system or ColorSystem.TRUECOLOR
    tag = _TAG[color_system]
    cached = self._render_cache
    if cached is not None and cached[:1] == tag:
        return cached[1:]
    render = _render_style
    text = "".join(
        [
            text if style is None else render(style, text, color_system=color_system)
            for text, style, _ in self._segments
        ]
    )
    self._render_cache = tag + text
    return text


def _render_style(style: Style, text: str, color_system: ColorSystem) -> str:
    # Textual reuses `style._ansi`, computed for whichever colour system came first.
    ansi = Strip.render_ansi(style, color_system)
    output = f"\x1b[{ansi}m{text}\x1b[0m" if ansi else text
    if style._link:
        output = f"\x1b]8;id={style._link_id};{style._link}\x1b\\{output}\x1b]8;;\x1b\\"
    return output


def _render_style_method(
    _cls: type[Strip], style: Style, text: str, color_system: ColorSystem
) -> str:
    return _render_style(style, text, color_system)


_original_join: Any = Strip.join.__func__  # type: ignore[attr-defined]


def _join(cls: type[Strip], strips: Iterable[Strip | None]) -> Strip:
    joined: Strip = _original_join(cls, strips)
    joined._render_cache = None
    return joined


_original_parse_rules: Any = Stylesheet._parse_rules
_shared_parses: dict[tuple[tuple[str, str], ...], dict[tuple[Any, ...], Any]] = {}


def _parse_rules(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> Any:
    variables = tuple(sorted(self._variables.items()))
    shared = _shared_parses.setdefault(variables, {})
    key = (css, read_from, is_default_rules, tie_breaker, scope)
    rules = shared.get(key)
    if rules is None:
        rules = _original_parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        shared[key] = rules
    return rules


def _process_component_classes(self: Stylesheet, node: DOMNode) -> None:
    # Textual's version, but restyling the virtual node a component already has.
    component_classes = node._get_component_classes()
    if not component_classes:
        return
    refresh_node = False
    component_styles = node._component_styles
    for component in sorted(component_classes):
        old = component_styles.get(component)
        virtual = None if old is None else old.node
        before = None
        if old is None or virtual is None:
            virtual = DOMNode(classes=component)
            virtual._attach(node)
        else:
            before = (dict(old._base_styles._rules), dict(old._inline_styles._rules))
        self.apply(virtual, animate=False)
        styles = virtual.styles
        if before != (styles._base_styles._rules, styles._inline_styles._rules):
            refresh_node = True
        component_styles[component] = styles
    if refresh_node:
        node.refresh()


@lru_cache(1024)
def _inner_outer(
    base_background: Color, background: Color
) -> tuple[TextualStyle, TextualStyle]:
    return (
        TextualStyle(background=base_background + background),
        TextualStyle(background=base_background),
    )


def _get_inner_outer(
    _self: StylesCache, base_background: Color, background: Color
) -> tuple[TextualStyle, TextualStyle]:
    return _inner_outer(base_background, background)


_original_crop_extend: Any = Strip.crop_extend
_original_divide: Any = Strip.divide


def _crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    if start <= 0 and end == self.cell_length:
        return self  # what Textual returns too, but without caching it in itself
    result: Strip = _original_crop_extend(self, start, end, style)
    return result


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = [cut for cut in cuts if cut <= self.cell_length]
    if cuts == [self.cell_length]:
        return [self]
    result: Sequence[Strip] = _original_divide(self, cuts)
    return result


_original_strip_init: Any = Strip.__init__
_STRIP_CACHES = {"_divide_cache": 4, "_crop_cache": 16, "_style_cache": 16,
                 "_filter_cache": 4, "_line_length_cache": 4, "_crop_extend_cache": 4,
                 "_offsets_cache": 4}
"""The caches `Strip.__init__` makes, and their sizes there."""


def _strip_init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None
                ) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


class _CacheOnFirstUse:
    """A `Strip` cache slot that makes its `FIFOCache` when first read."""

    def __init__(self, slot: Any, size: int) -> None:
        self.slot = slot
        """The slot's own descriptor (where the cache is kept)."""
        self.size = size

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        try:
            return self.slot.__get__(strip, owner)
        except AttributeError:
            cache: FIFOCache[Any, Any] = FIFOCache(self.size)
            self.slot.__set__(strip, cache)
            return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self.slot.__set__(strip, value)


_original_update_node_styles = DOMNode.update_node_styles


def _update_node_styles(self: DOMNode, animate: bool = True) -> None:
    if self._parent is None and not isinstance(self, textual_app.App):
        return  # not mounted yet: `App._register` applies the stylesheet when it is
    _original_update_node_styles(self, animate)


def _screen_resized(self: Screen[Any], size: Size) -> None:
    if self.stack_updates and self.is_attached and size != self._size:
        self._refresh_layout(size)


PASS_BUDGET = 0.010
"""Seconds of app work in one pass of the event loop before the rest waits a pass."""
GIVE_WAY_PASSES = 4
"""Passes of the loop an app's step waits at most for other players' fresh input to be
answered (`driver.Asks`): a key takes three or four (read, handled, drawn)."""
ANSWER_BUDGET = 0.030
"""The same for the app of a player who has just typed: it goes on past `PASS_BUDGET`,
but not without end (a pass where many had typed held logins back, see patch 9)."""


class _Pass:
    """How long app work has run in the event loop's current pass.

    The pass is taken to begin at the first check in it; a callback queued then runs in
    the next pass and starts a new count. A stale count (a loop that stopped, or another
    loop) is never trusted."""

    def __init__(self) -> None:
        self._began = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None

    def spent(self) -> float:
        """Seconds of app work the current pass has run so far."""
        now = time.perf_counter()
        loop = asyncio.get_running_loop()
        if self._loop is not loop or now - self._began > 1.0:
            self._loop, self._began = loop, now
            loop.call_soon(self._new_pass)
            return 0.0
        return now - self._began

    def _new_pass(self) -> None:
        self._loop = None


_pass = _Pass()


def _must_wait(driver: SSHDriver | None) -> bool:
    """Whether the running app's next step waits for the next pass of the loop: the pass
    has run its budget, and the app's player (`driver`) has not just typed (its work then
    goes on up to `ANSWER_BUDGET`, so what a player typed answers first)."""
    spent = _pass.spent()
    return spent > PASS_BUDGET and (
        spent > ANSWER_BUDGET or driver is None or not driver.answering())


def _running_driver() -> SSHDriver | None:
    """The running app's driver, if the app runs over SSH."""
    app = active_app.get(None)
    driver = None if app is None else app._driver
    return driver if isinstance(driver, SSHDriver) else None


_original_get_message = MessagePump._get_message


async def _get_message(self: MessagePump) -> Message:
    ready = self._pending_message is not None or not self._message_queue.empty()
    # (With none ready, the pump waits for one anyway.)
    if ready:
        await _wait_turn()
    return await _original_get_message(self)


_original_tick = Timer._tick


async def _tick(self: Timer, *, next_timer: float, count: int) -> None:
    await _wait_turn()
    await _original_tick(self, next_timer=next_timer, count=count)


async def _wait_turn() -> None:
    """Before an app's next step: wait a pass if this one has run its budget, and give
    way (a few passes at most) while another player's fresh input is being answered."""
    driver = _running_driver()
    if _must_wait(driver):
        await asyncio.sleep(0)
    if driver is None:
        return
    for _ in range(GIVE_WAY_PASSES):
        if not driver.gives_way():
            return
        await asyncio.sleep(0)


_original_check_idle = MessagePump.check_idle


def _check_idle(self: MessagePump) -> None:
    if not (isinstance(self, Widget) and _marked_its_screen(self)):
        _original_check_idle(self)


def _marked_its_screen(widget: Widget) -> bool:
    """Do now what the widget's next idle would have done, when that is only to have its
    screen repaint it (`Widget._check_refresh` and `Screen._on_update`); False when it
    has more to do, or no screen."""
    if (not widget._repaint_required or widget._layout_required or widget._scroll_required
            or widget._refresh_styles_required or widget._next_callbacks
            or not widget._is_mounted or widget._closing or widget._parent is None
            or isinstance(widget, Screen) or _idles_itself(type(widget))):
        return False
    try:
        screen = widget.screen
    except NoScreen:
        return False
    widget._repaint_required = False
    if widget.display and screen in screen._compositor:
        screen._dirty_widgets.add(widget)
        _wake(screen)
    return True


def _wake(screen: Screen[Any]) -> None:
    """Do now what the screen's idle would do about a dirty widget (`Screen._on_idle`):
    resume its update timer, a pass of the event loop sooner than through a `Prompt`. A
    screen with messages waiting, not shown, or in a batch update is told as Textual
    tells it."""
    if screen._running and screen._message_queue.empty() and screen.is_current \
            and not screen.app._batch_count:
        screen._update_timer.resume()
    else:
        screen.check_idle()


@lru_cache(256)
def _idles_itself(cls: type[Widget]) -> bool:
    """Whether a widget class has idle work of its own (a DataTable, a Tree)."""
    return any("_on_idle" in vars(base) or "on_idle" in vars(base)
               for base in _own_bases(cls))


def _own_bases(cls: type[Widget]) -> tuple[type, ...]:
    """The classes of a widget's class that come before Textual's `Widget` (a screen's
    include `Screen`): where handlers of its own may be."""
    return cls.__mro__[:cls.__mro__.index(Widget)]


def _render_partial_update(self: Compositor) -> ChopsUpdate | None:
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if not update_regions:
        return None
    spans = list(self._regions_to_spans(update_regions))
    return ChopsUpdate(_render_spans(self, spans), spans,
                       [cut_set[1:] for cut_set in self.cuts])


def _render_spans(self: Compositor,
                  spans: list[tuple[int, int, int]]) -> Sequence[Mapping[int, Strip]]:
    """`Compositor._render_chops` for the changed cells only: `spans` are (y, x1, x2),
    sorted. The chops (pieces of a row between two cuts) that `ChopsUpdate` sends are
    those overlapping a span; each is drawn by the front-most widget covering it, so a
    widget is rendered on a row only where it has such a chop still empty."""
    cuts = self.cuts
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    spans_of: dict[int, list[tuple[int, int]]] = {}
    for y, x1, x2 in spans:
        spans_of.setdefault(y, []).append((x1, x2))
    rows = sorted(spans_of)
    top, bottom = rows[0], rows[-1]
    for widget, (region, clip) in self.visible_widgets.items():  # front to back
        x, y, width, height = region.intersection(clip)
        if not width or not height or y > bottom or y + height <= top:
            continue
        end = x + width
        wanted: list[int] = []
        for row in rows[bisect_left(rows, y):bisect_left(rows, y + height)]:
            chops_line = chops[row]
            row_cuts = cuts[row]
            for x1, x2 in spans_of[row]:
                if x1 >= end or x2 <= x:
                    continue
                # The widget's empty chops in this span (a chop runs to the next cut).
                start = bisect_left(row_cuts, max(x, x1))
                if start and row_cuts[start] > max(x, x1):
                    start -= 1
                if any(chops_line.get(cut, 0) is None
                       for cut in row_cuts[start:bisect_left(row_cuts, min(end, x2))]):
                    wanted.append(row)
                    break
        first_cut, last_cut = x, end
        for run_top, run_bottom in _runs(wanted):
            strips = widget.render_lines(
                Region(x - region.x, run_top - region.y, width, run_bottom - run_top + 1))
            for row, strip in zip(range(run_top, run_bottom + 1), strips, strict=False):
                chops_line = chops[row]
                final_cuts = [cut for cut in cuts[row] if last_cut >= cut >= first_cut]
                # Painted front to back: the first strip for a cut wins.
                for cut, piece in zip(final_cuts,
                                      strip.divide([c - x for c in final_cuts[1:]]),
                                      strict=False):
                    if chops_line.get(cut) is None:
                        chops_line[cut] = piece
    return cast("Sequence[Mapping[int, Strip]]", chops)


def _runs(rows: list[int]) -> Iterable[tuple[int, int]]:
    """Sorted row numbers as (first, last) of each run of consecutive rows."""
    if not rows:
        return
    first = last = rows[0]
    for row in rows[1:]:
        if row != last + 1:
            yield first, last
            first = row
        last = row
    yield first, last


_original_truecolor_apply = ANSIToTruecolor.apply
TRUECOLOR_KEPT = 256
"""Styles an app's colour filter keeps converted (the table's screens use a few dozen)."""


def _truecolor_apply(self: ANSIToTruecolor, segments: list[Segment],
                     background: Color) -> list[Segment]:
    # Textual's conversion (`truecolor_style`, control codes dropped), each style's
    # result kept by this filter under the style's id (the entry holds the style, so the
    # id cannot be reused while kept); `segments` itself when nothing changes.
    kept_by_background: dict[Color, dict[int, tuple[Style, Style]]] | None = \
        self.__dict__.get("_kept")
    if kept_by_background is None:
        kept_by_background = self.__dict__["_kept"] = {}
    kept = kept_by_background.get(background)
    if kept is None or len(kept) >= TRUECOLOR_KEPT:
        if len(kept_by_background) >= TRUECOLOR_KEPT:
            kept_by_background.clear()
        kept = kept_by_background[background] = {}
    rich_background = background.rich_color
    changed: list[Segment] | None = None
    for index, segment in enumerate(segments):
        text, style, control = segment
        new = None
        if style is not None and style._meta:
            # A style carrying its cell's place (text drawn through Content) is made
            # anew for each line drawn: not worth keeping. Most need no conversion:
            # colours that are triplets already, and no dim on a colour (as in
            # `truecolor_style`, which would give the style back).
            color, bgcolor = style.color, style.bgcolor
            if (color is None or color.triplet is not None) and (
                    bgcolor is None or bgcolor.triplet is not None) and not (
                    style.dim and color is not None):
                new = style
            else:
                new = self.truecolor_style(style, rich_background)
        elif style is not None:
            entry = kept.get(id(style))
            if entry is None or entry[0] is not style:
                converted = self.truecolor_style(style, rich_background)
                # (an equal style from the shared cache is this one: unchanged)
                entry = kept[id(style)] = (style, style if converted == style else converted)
            new = entry[1]
        if changed is None and (new is not style or control is not None):
            changed = segments[:index]
        if changed is not None:
            changed.append(Segment(text, new))
    return segments if changed is None else changed


_original_render_widget = StylesCache.render_widget
_EMPTY = Color(0, 0, 0, 0)


def _render_widget(self: StylesCache, widget: Widget, crop: Region) -> list[Strip]:
    # Textual's `render_widget`, `render` and `render_line` for a widget drawn without
    # top or bottom border, outline, hatch, tint, text opacity or transparency (see
    # `_plain`); its side borders and padding drawn once for all its lines.
    styles = widget.styles
    if not _plain(styles):
        return _original_render_widget(self, widget, crop)
    # `widget.background_colors` and `widget.opacity` in one walk up the tree.
    base_background = background = _EMPTY
    opacity = 1.0
    for node in reversed(widget.ancestors_with_self):
        node_styles = node.styles
        base_background = background
        opacity *= node_styles.opacity
        background += node_styles.background.tint(
            node_styles.background_tint).multiply_alpha(opacity)
    if opacity != 1.0:
        return _original_render_widget(self, widget, crop)
    self._simple_strip = None
    region = widget.region
    width, height = region.size
    gutter = styles.gutter
    content_width, content_height = region.shrink(gutter).size
    pad_top, pad_right, pad_bottom, pad_left = styles.padding
    inner, outer = self.get_inner_outer(base_background, background)
    inner_style = inner.rich_style
    _, (border_right, right_colour), _, (border_left, left_colour) = styles.border
    left = right = None
    if border_left:
        left = get_box(border_left, inner, outer, TextualStyle(
            foreground=base_background + left_colour.multiply_alpha(opacity)))[1][0]
    if border_right:
        right = get_box(border_right, inner, outer, TextualStyle(
            foreground=base_background + right_colour.multiply_alpha(opacity)))[1][2]
    render_content_line = widget.render_line
    filters = widget.get_line_filters()
    if width != self._width:
        self.clear()
        self._width = width
    cache, dirty = self._cache, self._dirty_lines
    strips: list[Strip] = []
    for y in crop.line_range:
        strip = None if y in dirty else cache.get(y)
        if strip is None:
            if (pad_top and y < gutter.top) or (pad_bottom and y >= height - gutter.bottom):
                strip = self._simple_strip
                if strip is None:
                    blank = make_blank(width - (left is not None) - (right is not None),
                                       inner_style)
                    strip = self._simple_strip = Strip(_sides(left, [blank], right), width)
            else:
                content_y = y - gutter.top
                if content_y < content_height:
                    line = render_content_line(content_y).adjust_cell_length(
                        content_width, inner_style)
                else:
                    line = Strip.blank(content_width, inner_style)
                segments: Iterable[Segment] = line
                if pad_left or pad_right:
                    segments = line_pad(line, pad_left, pad_right, inner_style)
                strip = Strip(_sides(left, segments, right), width)
            cache[y] = strip
        for line_filter in filters:
            strip = strip.apply_filter(line_filter, background)
        strips.append(strip)
    dirty.difference_update(crop.line_range)
    if crop.column_span != (0, width):
        x1, x2 = crop.column_span
        strips = [strip.crop(x1, x2) for strip in strips]
    if widget.auto_links:
        hover_style = widget.hover_style
        if hover_style._link_id and hover_style._meta and "@click" in hover_style.meta:
            link_style_hover = widget.link_style_hover
            if link_style_hover:
                strips = [strip.style_links(hover_style.link_id, link_style_hover)
                          for strip in strips]
    return strips


def _sides(left: Segment | None, segments: Iterable[Segment],
           right: Segment | None) -> Iterable[Segment]:
    """A line between its side borders (None: no border on that side)."""
    if left is None and right is None:
        return segments
    return [*([] if left is None else [left]), *segments, *([] if right is None else [right])]


def _plain(styles: Any) -> bool:
    """Whether Textual would draw a widget with these styles as content, padding and side
    borders only (its opacity aside): no top or bottom border, no outline, hatch, tint
    or text opacity. Kept on the styles until they change."""
    key = styles._cache_key
    kept = styles.__dict__.get("_moon_plain")
    if kept is not None and kept[0] == key:
        return bool(kept[1])
    top, _, bottom, _ = styles.border
    plain = (not top[0] and not bottom[0]
             and not any(edge for edge, _ in styles.outline)
             and not (styles.has_rule("hatch") and styles.hatch != "none")
             and not styles.tint.a and styles.text_opacity == 1.0)
    styles.__dict__["_moon_plain"] = (key, plain)
    return plain


_original_forward_event = Widget._forward_event


def _forward_event(self: Widget, event: events.Event) -> None:
    if isinstance(event, events.Key):
        target = _first_to_hear(self, event)
        if target is not self:
            event._set_forwarded()
            target.post_message(event)
            return
    _original_forward_event(self, event)


def _first_to_hear(widget: Widget, key: events.Key) -> MessagePump:
    """Where `key`, given to `widget`, is first handled or waits behind other messages:
    the first node from it up to its app with a handler for it (`on_key`, or a
    `key_...` method for that key, such as a screen's `_key_escape`), messages queued,
    or not running; the app (whose bindings then take the key) when there is none. A
    widget not linked to its app keeps the key, as it would not pass it on
    (`MessagePump._on_message`)."""
    if not widget.is_attached:
        return widget
    names = tuple(key.name_aliases)
    node: Widget = widget
    while True:
        parent = cast(MessagePump, node._parent)  # attached: parents up to the app
        if (_hears(type(node), names) or not node._message_queue.empty()
                or node._pending_message is not None or not node._running
                or parent._closing or parent._closed):
            return node
        if not isinstance(parent, Widget):
            return parent  # the app
        node = parent


@lru_cache(1024)
def _hears(cls: type[Widget], names: tuple[str, ...]) -> bool:
    """Whether a widget class handles a key of these names itself: a key handler of its
    own (beside Textual's `Widget._on_key`, which only calls the `key_...` methods), or
    the `key_...` method `dispatch_key` would call for it."""
    return any(getattr(cls, f"key_{name}", None) or getattr(cls, f"_key_{name}", None)
               for name in names) or any(
        events.Key in getattr(base, "_decorated_handlers", {})
        or "on_key" in vars(base) or "_on_key" in vars(base)
        for base in _own_bases(cls))


_original_reload_config = SSHServerConnection.reload_config
_original_send_packet = SSHConnection.send_packet


async def _reload_config(self: SSHServerConnection) -> None:
    if self._options.config.loaded:
        await _original_reload_config(self)


def _send_packet(self: SSHConnection, pkttype: int, *args: bytes,
                 handler: SSHPacketLogger | None = None) -> None:
    if pkttype == MSG_IGNORE and not _cbc(self):
        return  # (asyncssh sends MSG_IGNORE only before a packet: patch 20)
    _original_send_packet(self, pkttype, *args, handler=handler)


def _cbc(connection: SSHConnection) -> bool:
    """Whether `connection` encrypts what it sends with a CBC cipher."""
    sending = connection._enc_alg_sc if connection.is_server() else connection._enc_alg_cs
    return b"-cbc" in sending


def _textual(owner: Any, name: str, why: str, replacement: Any,
             watched: Any = None) -> Patch:
    return Patch(Internal("textual", owner, name, why, watched), replacement)


FRAME_PERIOD = 0.004
"""Patch 18: a screen's frames are at most this far apart (Textual: 1/60 s)."""


PATCHES = Patches("server/patches.py", [
    _textual(textual_app, "redirect_stdout", "1. stdout stays the server's", _no_redirect,
             watched=lambda: [textual_app.App._process_messages]),
    _textual(textual_app, "redirect_stderr", "1. stderr stays the server's", _no_redirect,
             watched=lambda: [textual_app.App._process_messages]),
    _textual(Strip, "render", "2. colour codes per colour system", _render),
    _textual(Strip, "render_style", "2. colour codes per colour system",
             classmethod(_render_style_method)),
    _textual(Strip, "join", "2. colour codes per colour system", classmethod(_join)),
    _textual(Stylesheet, "_parse_rules", "3. CSS parsed once per theme", _parse_rules),
    _textual(Stylesheet, "_process_component_classes", "4. one virtual node per component",
             _process_component_classes),
    _textual(StylesCache, "get_inner_outer", "5. a cache that kept widgets alive",
             _get_inner_outer),
    _textual(Strip, "crop_extend", "6. a strip that cached itself", _crop_extend),
    _textual(Strip, "divide", "6. a strip that cached itself", _divide),
    _textual(DOMNode, "update_node_styles", "7. styled once, when mounted",
             _update_node_styles),
    _textual(Screen, "_screen_resized", "8. no layout for a resize that did not happen",
             _screen_resized),
    _textual(MessagePump, "_get_message", "9. app work yields to the loop", _get_message),
    _textual(Timer, "_tick", "9. app work yields to the loop", _tick),
    _textual(MessagePump, "check_idle", "13. a repaint marks the screen at once", _check_idle,
             watched=lambda: [_original_check_idle, Widget._check_refresh, Widget._on_idle,
                              Widget.refresh, vars(Screen)["_on_update"],
                              vars(Screen)["_on_idle"]]),
    _textual(Strip, "__init__", "11. a strip's caches made on first use", _strip_init),
    _textual(Widget, "_forward_event", "19. a key reaches the bindings at once",
             _forward_event, watched=lambda: [_original_forward_event,
                                              MessagePump._on_message,
                                              vars(Widget)["_on_key"],
                                              textual_app.App.on_event]),
    _textual(textual_screen, "UPDATE_PERIOD", "18. a frame a pass after its change",
             FRAME_PERIOD, watched=lambda: [vars(Screen)["_update_timer"].fget, Timer._run,
                                            vars(Screen)["_on_idle"]]),
    *(_textual(Strip, name, "11. a strip's caches made on first use",
               _CacheOnFirstUse(vars(Strip)[name], size),
               watched=lambda: [_original_strip_init])
      for name, size in _STRIP_CACHES.items()),
    _textual(Compositor, "render_partial_update", "12. a frame renders the changed cells",
             _render_partial_update, watched=lambda: [
                 Compositor._render_chops, Compositor._get_renders,
                 vars(Compositor)["visible_widgets"].fget, vars(Compositor)["cuts"].fget,
                 ChopsUpdate]),
    _textual(ANSIToTruecolor, "apply", "14. colour conversions kept per app",
             _truecolor_apply, watched=lambda: [_original_truecolor_apply,
                                                ANSIToTruecolor.truecolor_style]),
    _textual(StylesCache, "render_widget", "15. a plain widget's lines drawn plainly",
             _render_widget, watched=lambda: [
                 _original_render_widget, StylesCache.render, StylesCache.render_line,
                 vars(DOMNode)["background_colors"].fget, vars(Widget)["opacity"].fget]),
    Patch(Internal("asyncssh", SSHServerConnection, "reload_config",
                   "10. no config re-read per login"), _reload_config),
    Patch(Internal("asyncssh", SSHConnection, "send_packet",
                   "20. no empty packet before each packet"), _send_packet),
])


def install() -> None:
    """Apply the adjustments, or raise `internals.UnsupportedVersion` (nothing applied)
    when textual or asyncssh is not the version they were written for."""
    PATCHES.install()


def uninstall() -> None:
    """Undo one `install()` (the last one puts Textual's and asyncssh's own code back)."""
    PATCHES.uninstall()
