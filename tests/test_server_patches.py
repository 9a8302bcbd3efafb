"""The process-wide adjustments to Textual (server/patches.py), each on its own."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from rich.segment import Segment
from textual._styles_cache import StylesCache
from textual.color import Color
from textual.strip import Strip
from textual.timer import Timer

from server import patches
from server.driver import SSHDriver

pytestmark = pytest.mark.usefixtures("server_patches")


def garbage_left_by(work: Callable[[], None]) -> int:
    """Objects that `work` left in reference cycles (found by a collection)."""
    gc.collect()
    gc.disable()
    try:
        work()
        return gc.collect()
    finally:
        gc.enable()


def test_a_rendered_line_is_freed_without_the_garbage_collector() -> None:
    # Textual cached a strip inside itself (a cycle per rendered line): with the server's
    # frozen garbage collector those lines stayed until a full reclaim.
    def render() -> None:
        strip = Strip([Segment("hello "), Segment("world")], 11)
        assert strip.crop_extend(0, 11, None) is strip
        assert list(strip.divide([11])) == [strip]
        assert strip.crop_extend(0, 14, None).cell_length == 14
        assert [s.text for s in strip.divide([5, 11])] == ["hello", " world"]

    assert garbage_left_by(render) == 0


def test_style_caches_do_not_keep_their_widgets_alive() -> None:
    # StylesCache.get_inner_outer was cached per instance: it kept up to 1,024 widgets'
    # caches (and their rendered lines) alive for good.
    import weakref

    cache = StylesCache()
    inner, outer = cache.get_inner_outer(Color(0, 0, 0), Color(10, 20, 30, 0.5))
    assert inner != outer
    alive = weakref.ref(cache)
    del cache
    assert alive() is None


async def test_restyling_a_widget_keeps_its_component_style_nodes() -> None:
    # Textual built new virtual nodes (~70 cyclic objects each) at every restyle.
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    class OneTable(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable[str]()

    app = OneTable()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        before = {name: styles.node for name, styles in table._component_styles.items()}
        table.focus()  # :focus restyles the table and its components
        table.add_class("restyled")
        await pilot.pause()
        after = {name: styles.node for name, styles in table._component_styles.items()}
    assert before and before.keys() == after.keys()
    assert all(after[name] is node for name, node in before.items())


async def test_a_widget_is_styled_once_when_mounted_not_also_when_built() -> None:
    # `Button(compact=True)` set a class in its constructor, which restyled the widget
    # before it was in the DOM; mounting styles it again anyway.
    from textual.app import App
    from textual.css.stylesheet import Stylesheet
    from textual.widgets import Button

    styled: list[object] = []
    original = Stylesheet.apply

    def counting(self: Stylesheet, node: object, *args: object, **kwargs: object) -> None:
        styled.append(node)
        original(self, node, *args, **kwargs)  # type: ignore[arg-type]

    app = App[None]()
    async with app.run_test() as pilot:
        Stylesheet.apply = counting  # type: ignore[method-assign]
        try:
            button = Button("ok", compact=True)
            assert styled.count(button) == 0  # built, not mounted: nothing to style yet
            await app.screen.mount(button)
            await pilot.pause()
        finally:
            Stylesheet.apply = original  # type: ignore[method-assign]
        assert button.has_class("-textual-compact") and button.styles.border_top[0] == ""
        assert styled.count(button) == 1


async def test_a_dialog_opening_does_not_lay_out_again_for_a_resize_that_did_not_happen() -> None:
    # Its first layout sent the dialog a Resize, taken for a new terminal size: the
    # dialog and the screen under it were laid out again for nothing.
    from textual.app import App, ComposeResult
    from textual.screen import ModalScreen, Screen
    from textual.widgets import Label

    class Dialog(ModalScreen[None]):
        def compose(self) -> ComposeResult:
            yield Label("hello")

    laid_out: list[str] = []
    original = Screen._refresh_layout

    def counting(self: Screen[object], *args: object, **kwargs: object) -> None:
        laid_out.append(type(self).__name__)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    app = App[None]()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        Screen._refresh_layout = counting  # type: ignore[method-assign]
        try:
            await app.push_screen(Dialog())
            await pilot.pause()
            opened = list(laid_out)
            laid_out.clear()
            await pilot.resize_terminal(100, 30)
            await pilot.pause()
        finally:
            Screen._refresh_layout = original  # type: ignore[method-assign]
    # as it is shown, and once more for what its mounting asked for (was: 3 times, and
    # the screen under it once)
    assert "Screen" not in opened and 1 <= opened.count("Dialog") <= 2, opened
    assert sorted(set(laid_out)) == ["Dialog", "Screen"]  # the screen under it follows too


async def test_an_app_with_a_backlog_lets_other_work_run_in_between() -> None:
    # A message pump handled its whole backlog in one pass of the event loop, and nothing
    # else ran meanwhile: a login's next round trip waited behind another player's screen.
    import asyncio
    import time

    from textual.app import App
    from textual.message import Message

    class Busy(App[None]):
        class Work(Message):
            pass

        handled = 0

        def on_busy_work(self, _message: Busy.Work) -> None:
            until = time.perf_counter() + 0.002
            while time.perf_counter() < until:
                pass
            self.handled += 1

    app = Busy()
    async with app.run_test():
        for _ in range(40):
            app.post_message(Busy.Work())
        seen: list[int] = []

        async def other_work() -> None:
            while app.handled < 40:
                seen.append(app.handled)
                await asyncio.sleep(0)

        await asyncio.wait_for(other_work(), 30)
    # the other work ran while the backlog was being handled, and nothing was dropped
    assert len({n for n in seen if 0 < n < 40}) >= 3, seen
    assert app.handled == 40


async def test_a_timer_waits_a_pass_once_the_pass_has_run_its_budget() -> None:
    # Textual's timers (a screen's refresh among them) ran whenever due, however much
    # app work the pass had already done; now they wait for the next pass, as pumps do.
    import asyncio
    import time

    from textual._context import active_app
    from textual.app import App
    from textual.timer import Timer

    app = App[None]()
    async with app.run_test():
        order: list[str] = []
        timer = Timer(app, 1.0, callback=lambda: order.append("timer"))
        token = active_app.set(app)
        try:
            loop = asyncio.get_running_loop()
            for spent in (False, True):
                order.clear()
                patches._pass._loop = loop
                patches._pass._began = time.perf_counter() - (
                    patches.PASS_BUDGET * 2 if spent else 0.0)
                loop.call_soon(order.append, "next pass")
                await timer._tick(next_timer=0.0, count=1)
                await asyncio.sleep(0)
                assert order == (["next pass", "timer"] if spent else ["timer", "next pass"])
        finally:
            active_app.reset(token)


@asynccontextmanager
async def an_app_over_ssh() -> AsyncIterator[tuple[Timer, list[str], SSHDriver]]:
    """A running app whose driver is an `SSHDriver` (only what `answering` reads: its
    player typed long ago), made the active app, with a timer that writes "timer" in the
    list given when it runs."""
    from types import SimpleNamespace

    from textual._context import active_app
    from textual.app import App

    app = App[None]()
    async with app.run_test():
        order: list[str] = []
        driver = SSHDriver.__new__(SSHDriver)
        driver._terminal = SimpleNamespace(last_input=0.0)
        headless, app._driver = app._driver, driver
        token = active_app.set(app)
        try:
            yield Timer(app, 1.0, callback=lambda: order.append("timer")), order, driver
        finally:
            active_app.reset(token)
            app._driver = headless


async def test_the_app_of_a_player_who_just_typed_goes_on_past_the_pass_budget() -> None:
    # On a busy server a key waited its turn behind every other app's work (another
    # player's move drawn, a lobby redrawn): the app of a player who has just typed
    # now goes on past the pass's budget; once the moment has passed, it waits again.
    # Not without end: a pass in which many had typed held everyone else (and the
    # network) for hundreds of ms, so past `ANSWER_BUDGET` it waits too.
    import asyncio
    import time
    from types import SimpleNamespace

    from server.driver import ANSWER_WINDOW

    async with an_app_over_ssh() as (timer, order, driver):
        loop = asyncio.get_running_loop()
        between = (patches.PASS_BUDGET + patches.ANSWER_BUDGET) / 2
        for typed_ago, spent, expected in (
                (0.0, between, ["timer", "next pass"]),
                (0.0, patches.ANSWER_BUDGET * 2, ["next pass", "timer"]),
                (ANSWER_WINDOW * 2, between, ["next pass", "timer"])):
            driver._terminal = SimpleNamespace(last_input=time.monotonic() - typed_ago)
            order.clear()
            patches._pass._loop = loop
            patches._pass._began = time.perf_counter() - spent
            loop.call_soon(order.append, "next pass")
            await timer._tick(next_timer=0.0, count=1)
            await asyncio.sleep(0)
            assert order == expected, (typed_ago, spent)


async def test_an_app_gives_way_while_another_players_key_is_being_answered() -> None:
    # Four guests building tables (25-40 ms a step) held another player's chat letter
    # up by a step at each pass it needs (read, handled, drawn): 150-200 ms. Now an app's
    # step waits a few passes while another player's fresh input waits for its frame,
    # unless its own player has just typed; a key that nothing answered is forgotten.
    import asyncio
    import time

    from server.driver import ASKS, FRESH_ASK, LONG_ASK

    async with an_app_over_ssh() as (timer, order, builder):
        typist = SSHDriver.__new__(SSHDriver)
        loop = asyncio.get_running_loop()

        async def tick_order() -> list[str]:
            order.clear()
            patches._pass._loop = None  # a fresh pass: no budget spent

            def next_pass(n: int) -> None:  # one a pass
                order.append(f"pass {n}")
                if "timer" not in order:
                    loop.call_soon(next_pass, n + 1)

            loop.call_soon(next_pass, 1)
            await timer._tick(next_timer=0.0, count=1)
            await asyncio.sleep(0)
            await asyncio.sleep(0)  # the passes counted stop
            return order[:order.index("timer") + 1]

        try:
            assert await tick_order() == ["timer"]  # nobody waits
            now = time.monotonic()
            ASKS.asked(typist, now)
            waited = await tick_order()
            assert waited[-1] == "timer" and len(waited) == patches.GIVE_WAY_PASSES + 1
            ASKS.asked(builder, time.monotonic())  # its own player has just typed
            assert await tick_order() == ["timer"]
            ASKS.answered(builder)
            ASKS.answered(typist)  # the typist's frame went out
            assert await tick_order() == ["timer"]
            ASKS.asked(typist, time.monotonic() - FRESH_ASK)  # a key that changed nothing
            assert await tick_order() == ["timer"]
            assert typist not in ASKS.waiting
            ASKS.asked(builder, time.monotonic() - LONG_ASK)  # working on it a while
            ASKS.asked(typist, time.monotonic())
            assert len(await tick_order()) == patches.GIVE_WAY_PASSES + 1
        finally:
            ASKS.waiting.clear()


def test_a_strip_makes_each_cache_when_first_used_and_keeps_it(server_patches: None) -> None:
    from rich.segment import Segment
    from textual.strip import Strip

    strip = Strip([Segment("domino")])
    assert not any(_slot_set(strip, name)
                   for name in ("_crop_cache", "_style_cache", "_filter_cache"))
    first = strip.crop(1, 4)
    assert strip.crop(1, 4) is first  # cached, as Textual's own
    assert _slot_set(strip, "_crop_cache") and not _slot_set(strip, "_style_cache")
    assert first.text == "omi"


def _slot_set(strip: object, name: str) -> bool:
    """Whether the slot holds a value, read past the patch's make-on-read descriptor."""
    from textual.strip import Strip

    from server.patches import PATCHES

    patch = next(p for p in PATCHES.patches if p.internal.owner is Strip
                 and p.internal.name == name)
    try:
        patch.replacement.slot.__get__(strip, Strip)
    except AttributeError:
        return False
    return True


async def test_a_repaint_marks_the_screen_without_waking_the_widget() -> None:
    # A widget's repaint went through two messages (a Prompt to the widget, then an
    # Update to its screen); now it marks the screen at once, and the frame shows it.
    from textual.app import App, ComposeResult
    from textual.message import Message
    from textual.widgets import Static

    class Counted(Static):
        received: list[str] = []

        async def _on_message(self, message: Message) -> None:
            self.received.append(type(message).__name__)
            await super()._on_message(message)

    class Shows(App[None]):
        def compose(self) -> ComposeResult:
            yield Counted("before", id="text")

    app = Shows()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        text = app.query_one(Counted)
        text.received.clear()
        text.update("after", layout=False)
        assert text in app.screen._dirty_widgets  # marked at once
        # ... and the screen's frame is due at once too: no Prompt for the screen to idle on.
        assert app.screen._message_queue.empty()
        assert app.screen._update_timer._active.is_set()
        # Frames come up to FRAME_PERIOD apart, not Textual's 1/60 s.
        assert app.screen._update_timer._interval == patches.FRAME_PERIOD
        await pilot.pause()
        assert "Prompt" not in text.received and "Update" not in text.received
        assert not app.screen._dirty_widgets  # the frame was drawn
        assert "after" in app.export_screenshot()
        text.update("lengthened_text", layout=True)  # a layout goes Textual's way
        assert text not in app.screen._dirty_widgets and text._repaint_required
        await pilot.pause()
        assert "lengthened_text" in app.export_screenshot()


async def test_a_key_goes_straight_to_the_bindings_past_widgets_that_ignore_it() -> None:
    # A key went to the focused widget, then bubbled to its screen, then to the app, whose
    # bindings act on it: a pass of the event loop each. Past nodes with no key handler
    # of their own and nothing queued, it now goes to the app at once.
    from textual import events
    from textual.app import App, ComposeResult
    from textual.message import Message
    from textual.widgets import Static

    class Quiet(Static, can_focus=True):
        BINDINGS = [("x", "mark")]

        def __init__(self, text: str, **options: str) -> None:
            super().__init__(text, **options)
            self.received: list[str] = []
            self.marks = 0

        async def _on_message(self, message: Message) -> None:
            self.received.append(type(message).__name__)
            await super()._on_message(message)

        def action_mark(self) -> None:
            self.marks += 1

    class Listens(Quiet):
        def __init__(self, text: str, **options: str) -> None:
            super().__init__(text, **options)
            self.heard: list[str] = []

        def on_key(self, event: events.Key) -> None:
            self.heard.append(event.key)

    class Keys(App[None]):
        def compose(self) -> ComposeResult:
            yield Quiet("quiet", id="quiet")
            yield Listens("listens", id="listens")

    app = Keys()
    async with app.run_test(size=(40, 5)) as pilot:
        quiet, listens = app.query_one(Quiet), app.query_one(Listens)
        quiet.focus()
        await pilot.pause()
        quiet.received.clear()
        await pilot.press("x")
        assert quiet.marks == 1  # its binding ran
        assert "Key" not in quiet.received  # without the key passing through it
        # A widget that handles keys itself still gets them first, then its bindings run.
        listens.focus()
        await pilot.pause()
        await pilot.press("x")
        assert listens.heard == ["x"] and listens.marks == 1
        # A widget with messages waiting gets the key after them, as before.
        class Note(Message):
            pass

        x = events.Key("x", "x")
        quiet.post_message(Note())
        assert patches._first_to_hear(quiet, x) is quiet
        await pilot.pause()
        assert patches._first_to_hear(quiet, x) is app
        # Escape stops at the screen, whose `_key_escape` clears a text selection.
        assert patches._first_to_hear(quiet, events.Key("escape", None)) is app.screen


def test_the_colour_filter_converts_as_textual_does_and_keeps_unchanged_lines() -> None:
    # Each app's filter keeps its styles' conversions; a line that needs none comes back
    # as it was. What it gives is what Textual's own filter gives, segment for segment.
    from rich.style import Style
    from rich.terminal_theme import MONOKAI
    from textual.filter import ANSIToTruecolor

    original = patches.PATCHES.original(
        next(p for p in patches.PATCHES.patches if p.internal.name == "apply"))
    styles = [None, Style(bold=True), Style(color="red"), Style(bgcolor="blue", dim=True),
              Style(color="#102030", dim=True), Style(color="#ffffff", bgcolor="#000000"),
              Style.parse("italic green on #303030"),
              Style(color="red", meta={"offset": (3, 1)}),
              Style(color="#102030", dim=True, meta={"offset": (1, 2)}),
              Style(dim=True, meta={"offset": (2, 2)}),
              Style(color="#102030", bgcolor="#000000", bold=True, meta={"offset": (0, 4)}),
              Style(bgcolor="blue", meta={"offset": (5, 1)})]
    lines = [[Segment(f"t{i}", styles[(i * k) % len(styles)]) for i in range(6)]
             for k in range(1, 8)]
    lines.append([Segment("ctl", Style(bold=True), [(1,)])])  # type: ignore[list-item]
    filter_ = ANSIToTruecolor(MONOKAI)
    for background in (Color(0, 0, 0), Color(200, 100, 50)):
        for _ in range(2):  # converted, then kept
            for line in lines:
                assert filter_.apply(line, background) == original(filter_, line, background)
    plain = [Segment("a", Style(bold=True)), Segment("b", Style(color="#102030"))]
    assert filter_.apply(plain, Color(0, 0, 0)) is plain


async def test_a_plain_widget_is_drawn_as_textual_draws_it() -> None:
    # A widget with at most padding and side borders is drawn without Textual's general drawing of
    # borders and the like, to the same lines; any other widget goes Textual's way.
    from textual.app import App, ComposeResult
    from textual.geometry import Region
    from textual.widgets import Static

    original = patches.PATCHES.original(
        next(p for p in patches.PATCHES.patches if p.internal.name == "render_widget"))
    rules = ["", "padding: 0 2;", "padding: 1 1 2 3; background: red 50%;",
             "border-left: vkey white 30%; padding: 1 1;", "outline: solid red;", "tint: blue 20%;",
             "opacity: 0.5;", "text-opacity: 0.5;", "hatch: cross red;",
             "background: $boost; padding: 0 1; color: yellow;",
             "border-right: tall red; border-left: wide blue 50%; padding: 1 0 0 2;",
             "border-right: vkey green;", "border-top: solid red;", "border-bottom: ascii red;"]
    text = "[b]bold[/b] words, a longer line that will be cut or wrapped\nsecond\n\nfourth"

    class Shows(App[None]):
        CSS = "\n".join(f"#w{i} {{ height: 7; {rule} }}" for i, rule in enumerate(rules))

        def compose(self) -> ComposeResult:
            for i in range(len(rules)):
                yield Static(text, id=f"w{i}")

    app = Shows()
    async with app.run_test(size=(30, 80)) as pilot:
        await pilot.pause()
        for widget in app.query(Static):
            width, height = widget.region.size
            for crop in (Region(0, 0, width, height), Region(1, 2, width - 3, 3)):
                for _ in range(2):  # drawn, then from the cache
                    lines = widget._styles_cache.render_widget(widget, crop)
                    whole = original(StylesCache(), widget, crop)
                    assert lines == whole, widget.id
                    assert [[s.style for s in line] for line in lines] == \
                        [[s.style for s in line] for line in whole], widget.id
        plain = [patches._plain(widget.styles) for widget in app.query(Static)]
        assert plain == [True, True, True, True, False, False, True, False, False, True, True, True,
                         False, False]


@pytest.mark.parametrize(("cipher", "ignored"), [("chacha20-poly1305@openssh.com", False),
                                                 ("aes128-gcm@openssh.com", False),
                                                 ("aes128-ctr", False),
                                                 ("aes128-cbc", True)])
async def test_an_empty_packet_goes_before_each_packet_only_with_a_cbc_cipher(
    cipher: str, ignored: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncssh
    from asyncssh.connection import SSHConnection
    from asyncssh.constants import MSG_IGNORE

    # The client counts the empty packets it receives, in asyncssh's table of handlers.
    received: list[int] = []
    original = SSHConnection._packet_handlers[MSG_IGNORE]

    def counted(self: SSHConnection, *args: Any) -> Any:
        received.append(1)
        return original(self, *args)

    monkeypatch.setitem(SSHConnection._packet_handlers, MSG_IGNORE, counted)

    class Open(asyncssh.SSHServer):
        def begin_auth(self, username: str) -> bool:
            return False

    async def session(process: asyncssh.SSHServerProcess[str]) -> None:
        for _ in range(5):
            process.stdout.write("frame\n")
        process.exit(0)

    server = await asyncssh.create_server(
        Open, "127.0.0.1", 0, server_host_keys=[asyncssh.generate_private_key("ssh-ed25519")],
        process_factory=session, encryption_algs=[cipher])
    try:
        port = server.sockets[0].getsockname()[1]
        async with asyncssh.connect("127.0.0.1", port, known_hosts=None, username="x",
                                    encryption_algs=[cipher]) as client:
            result = await client.run("", check=False)
    finally:
        server.close()
        await server.wait_closed()
    assert result.stdout == "frame\n" * 5
    assert bool(received) is ignored
