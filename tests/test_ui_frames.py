"""Every frame the server sends of a table is exactly right: the shortcuts that draw less
(server patch 12: only the changed cells; `LinePanel`: only the changed lines of text,
each drawn once; `KeepsDrawn`: a text shown before is not drawn again; `HandView`: a tile
drawn before is not drawn again; `KeyBar`: the keys of a state seen before are not
worked out again) are checked against Textual's own drawing, through a
terminal emulator. Each widget's lines drawn by server patch 15 (a widget without
border or the like, drawn plainly) are checked against Textual's own drawing of them,
and each frame's text written out (patch 17) against Textual's.

A game is played with the server's adjustments installed. Each frame is drawn both ways
from the same changes, the shortcut's and Textual's, and each is fed to a terminal of its
own (pyte): the two screens must hold the same characters with the same styles after every
frame. The panels' lines are also checked, at every update, against a fresh drawing of their
whole text, and the kept lines of a prompt or a bar against a fresh drawing of their
content, so that a line kept from an earlier update cannot go stale unseen; and at the
end the screen equals a fresh full drawing.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pyte
import pytest
from test_ui_support import FAST, current_view, key_for_turn
from textual import events
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual._styles_cache import StylesCache
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual

from moon_tui.app import MoonApp
from moon_tui.lobby import AddBot, CreateTable, Lobby, StartGame
from moon_tui.rules import Rules
from moon_tui.ui.bars import KeyBar
from moon_tui.ui.game import GameScreen
from moon_tui.ui.hand import HandView
from moon_tui.ui.panel import KeepsDrawn, LinePanel
from server import patches

PACED = dataclasses.replace(FAST, bot_delay=0.02)
"""The computers think 20 ms: most of their moves are frames of their own."""


class Terminal:
    """A terminal the frames are written to (pyte), read back as cells with their styles."""

    def __init__(self, width: int, height: int) -> None:
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.Stream(self.screen)

    def feed(self, data: str) -> None:
        self.stream.feed(data)

    def cells(self) -> list[list[Any]]:
        buffer = self.screen.buffer
        return [[buffer[y][x] for x in range(self.screen.columns)]
                for y in range(self.screen.lines)]


def render_partial(name: str) -> Any:
    patch = next(p for p in patches.PATCHES.patches if p.internal.name == name)
    return patches.PATCHES.original(patch), patch.replacement


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_each_frame_of_a_game_is_the_one_textual_would_send(
        server_patches: None, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    original, patched = render_partial("render_partial_update")
    mine, theirs = Terminal(*size), Terminal(*size)
    frames: list[str] = []
    pending: list[str] = []
    checked_panels = [0]
    checked_contents = [0]
    checked_hands = [0]
    checked_keys = [0]
    checked_widgets = [0]
    stale_keys: list[object] = []

    def both(self: Compositor) -> ChopsUpdate | None:
        # The patched frame, then Textual's own from the same changes.
        dirty = set(self._dirty_regions)
        update = patched(self)
        self._dirty_regions.update(dirty)
        expected = original(self)
        if update is None or expected is None:
            assert update is None and expected is None
            return None
        pending.append(expected.render_segments(app.console))
        return update  # type: ignore[no-any-return]

    text_lines = LinePanel._text_lines

    def fresh_lines(panel: LinePanel, width: int, height: int) -> list[Strip]:
        lines = text_lines(panel, width, height)
        whole = Visual.to_strips(panel, panel.visual, width, height, panel.visual_style)
        assert lines == whole, f"#{panel.id}: a line kept is not the line drawn afresh"
        assert [[segment.style for segment in line] for line in lines] == \
            [[segment.style for segment in line] for line in whole]
        checked_panels[0] += 1
        return lines

    render_content = KeepsDrawn._render_content

    def fresh_content(widget: KeepsDrawn) -> None:
        render_content(widget)
        width, height = widget.size
        whole = Visual.to_strips(widget, widget._render(), width, height, widget.visual_style)
        lines = widget._render_cache.lines
        assert lines == whole, f"{widget!r}: lines kept are not the lines drawn afresh"
        assert [[segment.style for segment in line] for line in lines] == \
            [[segment.style for segment in line] for line in whole]
        checked_contents[0] += 1

    hand_lines = HandView._hand_lines

    def fresh_hand(hand: HandView) -> list[Strip]:
        lines = hand_lines(hand)
        kept, hand._pieces = hand._pieces, {}
        whole = hand_lines(hand)  # every tile drawn afresh
        hand._pieces = kept
        assert lines == whole, "a tile kept is not the tile drawn afresh"
        assert [[segment.style for segment in line] for line in lines] == \
            [[segment.style for segment in line] for line in whole]
        checked_hands[0] += 1
        return lines

    bindings_changed = KeyBar._bindings_changed

    def fresh_keys(bar: KeyBar, screen: Any) -> None:
        bindings_changed(bar, screen)
        # (Told, not asserted here: a signal's callback has its errors logged only.)
        stale_keys.extend([bar.items] if bar.items != bar._active_items(screen) else [])
        checked_keys[0] += 1

    plain_widget, textual_widget = render_partial("render_widget")

    def fresh_widget(cache: StylesCache, widget: Any, crop: Region) -> list[Strip]:
        lines: list[Strip] = plain_widget(cache, widget, crop)
        whole = textual_widget(StylesCache(), widget, crop)  # every line drawn afresh
        assert lines == whole, f"{widget!r}: lines drawn plainly are not Textual's"
        assert [[segment.style for segment in line] for line in lines] == \
            [[segment.style for segment in line] for line in whole]
        checked_widgets[0] += 1
        return lines

    monkeypatch.setattr(StylesCache, "render_widget", fresh_widget)
    monkeypatch.setattr(KeyBar, "_bindings_changed", fresh_keys)
    monkeypatch.setattr(HandView, "_hand_lines", fresh_hand)
    monkeypatch.setattr(Compositor, "render_partial_update", both)
    monkeypatch.setattr(KeepsDrawn, "_render_content", fresh_content)
    monkeypatch.setattr(LinePanel, "_text_lines", fresh_lines)

    async with Lobby(PACED, seed=3) as lobby:
        app = MoonApp(lobby, "ann")
        async with app.run_test(size=size):
            display = app._display

            def written(screen: Any, update: Any) -> None:
                display(screen, update)
                if isinstance(update, LayoutUpdate):
                    data = update.render_segments(app.console)
                    mine.feed(data)
                    theirs.feed(data)
                    pending.clear()
                    frames.append("layout")
                elif isinstance(update, ChopsUpdate):
                    data = update.render_segments(app.console)
                    mine.feed(data)
                    theirs.feed(pending.pop())
                    frames.append("chops")
                else:
                    frames.append(type(update).__name__)
                    assert mine.cells() == theirs.cells(), f"frame {len(frames)} differs"

            app._display = written  # type: ignore[method-assign]
            await until(lambda: app.handle is not None)
            app.send(CreateTable("frames", Rules.make(target=1000)))
            await until(lambda: app.current_table is not None)
            table_id = app.current_table
            assert table_id is not None
            app.send(AddBot(table_id, 1, "random"))
            app.send(AddBot(table_id, 2, "random"))
            await until(lambda: all(not seat.is_free
                                    for seat in app.model.tables[table_id].table.seats))
            app.send(StartGame(table_id))
            await until(lambda: isinstance(app.screen, GameScreen))
            hands = 0
            dialogs = ["s", "l"]  # the score sheet, then the last trick, over the table
            while hands < 3:
                view = current_view(app)
                assert view is not None
                if view.results and len(view.results) > hands:
                    hands = len(view.results)
                if view.my_turn and dialogs and view.tricks:
                    # A dialog opened and closed while the game goes on: frames of a
                    # screen over another, and of the table shown again.
                    press(app, dialogs.pop())
                    await until(lambda: not isinstance(app.screen, GameScreen))
                    await until(lambda: settled(app))
                    press(app, "escape")
                    await until(lambda: isinstance(app.screen, GameScreen))
                    await until(lambda: settled(app))
                    continue
                if view.my_turn:
                    press(app, key_for_turn(view))
                    await until(lambda v=view: current_view(app) is not v)
                elif view.phase.name == "DEAL" and view.results:
                    press(app, "enter")
                    await until(lambda v=view: current_view(app) is not v)
                else:
                    await until(lambda v=view: current_view(app) is not v)
            # The game waits for ann's next move, and the screen for nothing.
            await until(lambda: (v := current_view(app)) is not None and v.my_turn)
            for _ in range(3):
                await until(lambda: settled(app))
                await asyncio.sleep(0.05)
            # At the end: what the frames built is the screen drawn afresh, whole.
            fresh = Terminal(*size)
            fresh.feed(app.screen._compositor.render_full_update().render_segments(app.console))
            assert mine.cells() == fresh.cells()
    assert frames.count("chops") > 20 and checked_panels[0] > 20
    assert checked_contents[0] > 20 and checked_hands[0] > 10 and checked_keys[0] > 10
    assert checked_widgets[0] > 100
    assert not stale_keys, "the keys kept are not the keys active"


def settled(app: MoonApp) -> bool:
    """No widget waits to be drawn: the last frame has gone out."""
    screen = app.screen
    return not (screen._dirty_widgets or screen._layout_required or screen._repaint_required
                or any(widget._repaint_required for widget in screen.walk_children()))


def press(app: MoonApp, key: str) -> None:
    """A key as the driver hands it over (`pilot.press` would redraw the whole screen)."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


async def until(check: Any, limit: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not check():
        assert loop.time() < deadline, f"gave up waiting for {check}"
        await asyncio.sleep(0.002)
