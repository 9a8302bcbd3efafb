"""Breaking an ended session's reference cycles, so that reference counting frees it.

A Textual app is a web of cycles (every widget and its parent, its styles, its signals,
its message queue): when a session ends, its ~10,000 objects wait for a full garbage
collection, and in a long-running server most of them sit in the collector's frozen
set (see `memory.py`), where only a full unfreeze-and-collect pass — a pause of the
whole server — would find them. Once the app has stopped, nothing uses those objects
again, so emptying the attribute dictionaries of its DOM nodes, the app and its driver
breaks the cycles and lets reference counting free most of it at once.

A screen the player left goes the same way while the session goes on: the new-table
form, the waiting room, a table left each stayed in their cycles (2,000-4,000 objects a
screen), and a club's 150 players arriving left ~1,700 objects each that the freeze
kept, until reclaims that walked all 1.4 million frozen objects held everyone for
1.3-1.5 s (bench/ssh_load.py --mix club). `SCREEN_GRACE` seconds after a screen is
removed (looked at every second by the server, `empty_left_screens`), if it is still
alive (only its cycles hold it), the nodes it had are emptied
too, and each becomes a `Left`: a callback still queued for one (an after-refresh
callback waits on the screen that was current when it was asked for, possibly under
the player's table for minutes) reads nothing and does nothing instead of failing the
session (tried: emptied and nothing more, 21 of 150 club players' sessions crashed on a
closed dialog's `refresh_bindings`). The screen itself keeps its attributes (its
signals check that it is no longer attached).

Three more cycles are broken as they form: a removed widget's component-style nodes
(a closed dialog's Input placeholder...), a cancelled worker's traceback (its frames hold
the worker), and Textual's LRU caches (a ring of entries) when an app is dismantled.

Measured (a session through the lobby and the help dialog): cyclic garbage left per
ended session went from ~4,400 objects without any of this to ~520 with the dismantling,
and to ~130 with the three above; 30 sessions of the load benchmark left ~680 each, now
~140. The reclaim when nobody is connected (`memory.py`) walks that garbage: after 100
sessions it took 150-200 ms, now 80 ms.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from collections.abc import Iterator
from typing import Any

from textual.app import App
from textual.cache import LRUCache
from textual.css.styles import RenderStyles, Styles
from textual.dom import DOMNode, NoScreen
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker

from .internals import Internal, Patch, Patches

_original_register: Any = App._register


def _register(self: App[Any], parent: DOMNode, *widgets: Any, **options: Any) -> Any:
    # Not `App._registry`: it forgets a widget once removed, and a closed dialog still
    # alive in its cycles is exactly what `dismantle` should reach too.
    _remember(self, widgets)
    home = parent if isinstance(parent, Screen) else _screen_of(parent)
    if home is not None:
        _remember(home, widgets)  # a screen's own nodes, for `_empty_left_screen`
    return _original_register(self, parent, *widgets, **options)


def _remember(holder: DOMNode, widgets: tuple[Any, ...]) -> None:
    nodes = holder.__dict__.get("_moon_nodes")
    if nodes is None:
        nodes = holder.__dict__["_moon_nodes"] = weakref.WeakSet()
    nodes.update(widgets)


def _screen_of(node: DOMNode) -> Screen[Any] | None:
    try:
        return None if isinstance(node, App) else node.screen
    except NoScreen:
        return None


_original_worker_run: Any = Worker._run


async def _worker_run(self: Worker[Any], app: App[Any]) -> None:
    # A cancelled worker keeps its CancelledError, whose traceback holds the worker's own
    # frames, whose locals hold the worker (and the app): a cycle per ended session
    # that only a full collection finds. The error is kept, without its traceback.
    await _original_worker_run(self, app)
    error = self._error
    if error is not None:
        error.__traceback__ = None


_original_message_loop_exit: Any = Widget._message_loop_exit


async def _message_loop_exit(self: Widget) -> None:
    # A removed widget drops its component styles (an Input's placeholder, a screen's
    # selection...), each a virtual node in a cycle with its styles: ~35 objects that
    # only a full collection found, for every widget with one, at every dialog closed.
    virtual = [styles.node for styles in self._component_styles.values()]
    await _original_message_loop_exit(self)
    for node in virtual:
        if node is not None:
            node.__dict__.clear()
    if isinstance(self, Screen):
        _LEFT.note(self)


SCREEN_GRACE = 5.0
"""Seconds after a screen was removed before its nodes are emptied, if it is still alive:
whatever was still handling its last messages (a dialog's result, a key bar's refresh)
has long finished."""


class _LeftScreens:
    """The removed screens waiting for `SCREEN_GRACE`, oldest first (`empty_left_screens`
    empties those due: the server calls it every second, `service._empty_left_screens`)."""

    def __init__(self) -> None:
        self.waiting: deque[tuple[float, weakref.ref[Screen[Any]]]] = deque()

    def note(self, screen: Screen[Any]) -> None:
        self.waiting.append((time.monotonic() + SCREEN_GRACE, weakref.ref(screen)))

    def empty_due(self) -> None:
        now = time.monotonic()
        while self.waiting and self.waiting[0][0] <= now:
            _empty_left_screen(self.waiting.popleft()[1])


_LEFT = _LeftScreens()


def empty_left_screens() -> None:
    """Empty the screens removed `SCREEN_GRACE` ago or more that are still alive."""
    _LEFT.empty_due()


def _empty_left_screen(ref: weakref.ref[Screen[Any]]) -> None:
    """Empty the nodes of a removed screen still alive: only cycles hold it now (it is
    never shown again), and they go through them."""
    screen = ref()
    if screen is None or not screen.__dict__ or screen.is_attached:
        return  # freed, or its app was dismantled meanwhile
    left = [node for node in screen.__dict__.get("_moon_nodes", ())
            if not isinstance(node, Left) and node.__dict__ and not node.is_attached]
    for node in left:
        try:
            node.__class__ = Left
        except TypeError:  # a node class with slots of its own: left whole
            continue
        _empty(node)


class Left:
    """A node of a screen the player left, emptied: whatever still reaches it gets
    `NOTHING` (and no parent: a walk up the DOM ends there)."""

    def __getattr__(self, name: str) -> Nothing | None:
        return None if name in _NO_PARENT else NOTHING


class Nothing:
    """Any attribute of it, its call, its await: itself, or nothing."""

    def __getattr__(self, name: str) -> Nothing | None:
        return None if name in _NO_PARENT else self

    def __call__(self, *args: object, **kwargs: object) -> Nothing:
        return self

    def __await__(self) -> Iterator[None]:
        return iter(())

    def __bool__(self) -> bool:
        return False

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __len__(self) -> int:
        return 0


NOTHING = Nothing()
_NO_PARENT = frozenset({"_parent", "parent"})


PATCHES = Patches("server/teardown.py", [
    Patch(Internal("textual", App, "_register", "every node an app had, for dismantle"),
          _register),
    Patch(Internal("textual", Worker, "_run", "a cancelled worker's traceback"), _worker_run),
    Patch(Internal("textual", Widget, "_message_loop_exit", "a removed widget's virtual nodes"),
          _message_loop_exit),
])


def install() -> None:
    """Make every app remember (weakly) the nodes it registers, for `dismantle`; let
    removed widgets' component-style nodes and cancelled workers go without a cycle.
    Raises `internals.UnsupportedVersion` (nothing replaced) for another textual."""
    PATCHES.install()


def uninstall() -> None:
    """Undo one `install()` (the last one puts Textual's own code back); the screens
    left meanwhile are not emptied (the garbage collector frees them)."""
    PATCHES.uninstall()
    _LEFT.waiting.clear()


DISMANTLE_SLICE = 0.01
"""Seconds of dismantling after which the loop turns before it goes on. An app holds every
screen its player left that is still in its cycles: a guest who had cycled tables took
~150 ms to dismantle, and four ending at once held every player for 250 ms (measured,
bench/attacks.py 4). The freeing is the same, in slices."""


async def dismantle(app: App[Any], slice_seconds: float = DISMANTLE_SLICE) -> None:
    """Empty the app, its driver and every DOM node it had that is still alive, letting
    the loop turn after each `slice_seconds` of it.

    Only for an app that has finished running and that no code will touch again."""
    driver = app.__dict__.get("_driver")
    if driver is not None:
        driver.__dict__.clear()
    # The app is a DOM node too (the root): emptied the same way.
    todo: list[DOMNode] = [app, *app.__dict__.get("_moon_nodes", ())]
    seen: set[int] = set()
    began = time.perf_counter()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if len(seen) % 32 == 0 and time.perf_counter() - began > slice_seconds:
            await asyncio.sleep(0)
            began = time.perf_counter()
        todo.extend(_empty(node))


def _empty(node: DOMNode) -> list[DOMNode]:
    """Empty one node's attributes; returns the nodes it held."""
    held: list[DOMNode] = []
    for value in node.__dict__.values():
        if isinstance(value, _HOLDERS):  # most attributes are not: one check for those
            held.extend(_nodes_in(value))
        elif isinstance(value, LRUCache):
            _unlink(value)
    node.__dict__.clear()
    return held


def _unlink(cache: LRUCache[Any, Any]) -> None:
    """Textual's LRUCache keeps its entries in a ring of [prev, next, key, value] lists:
    a cycle as soon as it holds anything (a widget has several)."""
    for entry in cache._cache.values():
        entry.clear()
    cache.clear()


_HOLDERS = (DOMNode, RenderStyles, Styles, dict, list, tuple, set, frozenset)


def _nodes_in(value: Any) -> list[DOMNode]:
    """DOM nodes held by one attribute: a node, a style's node, or those in a container
    (scrollbars, component-style nodes, children lists)."""
    if isinstance(value, DOMNode):
        return [value]
    if isinstance(value, RenderStyles | Styles):
        node = value.node
        return [] if node is None else [node]
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list | tuple | set | frozenset):
        return []
    found: list[DOMNode] = []
    for item in value:
        if isinstance(item, DOMNode | RenderStyles | Styles):
            found.extend(_nodes_in(item))
    return found
