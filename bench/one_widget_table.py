"""What drawing the table screen as one widget would save: a what-if for issue 15.

Plays bench/ui.py's game (the real MoonApp at 80x24 with the server's patches, 3
players, random computers) and measures the CPU the app spends per table update on its
screen: taking the update in (`MoonApp.take`) and drawing frames
(`Screen._on_timer_update`, which `draw_now` calls too). It records the table updates,
then replays them into `Board`, a sketch of the table screen as one widget. `Board`
builds the header, the seats and the centre with the real text builders
(`moon_tui.ui.table_text`) and the hand with the real tile art. It lays out the 24
lines, keeps each drawn part of a line and each hand by its content, and repaints only
the lines that changed. Its frames go through the same compositor and ANSI step. The
lobby, the computers and the bench are in neither figure.

The sketch has no focus, no clicks, no dialogs, no chat, and a prompt and key bar of
fixed words, so what it saves is the most a real one-widget screen could save.

Run: PYTHONPATH=. .venv/bin/python bench/one_widget_table.py [--plays 200]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from bench import ui as ui_bench  # its game and its ANSI step
from moon_tui.app import MoonApp
from moon_tui.lobby.messages import TableUpdate
from moon_tui.rules import Phase
from moon_tui.ui.dominoes import HandTile, Mark, tile_rows
from moon_tui.ui.table_text import centre_panel, header, seats_panel

WIDTH, HEIGHT = 80, 24
KEPT = 2000
"""Drawn parts and lines kept before the caches start again."""


class Spent:
    """CPU of the real app's screen work, and the table updates it took in."""

    def __init__(self) -> None:
        self.take = 0.0
        self.frames = 0.0
        self.updates: list[TableUpdate] = []

    def watch(self) -> None:
        take, frame = MoonApp.take, Screen._on_timer_update
        spent = self

        def timed_take(app: MoonApp, event: Any) -> None:
            began = time.process_time()
            take(app, event)
            spent.take += time.process_time() - began
            if isinstance(event, TableUpdate) and event.view is not None:
                spent.updates.append(event)

        def timed_frame(screen: Screen[Any]) -> None:
            began = time.process_time()
            frame(screen)
            spent.frames += time.process_time() - began

        MoonApp.take = timed_take  # type: ignore[method-assign]
        Screen._on_timer_update = timed_frame  # type: ignore[method-assign]


Part = tuple[Text, int]
"""A piece of a line: its text, and the cells it takes."""


class Board(Widget):
    """The table screen as one widget of kept lines (see the module's docstring)."""

    DEFAULT_CSS = f"Board {{ width: {WIDTH}; height: {HEIGHT}; }}"

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[Strip] = []
        self.keys: list[object] = []
        self.parts: dict[object, list[Segment]] = {}
        self.kept: dict[object, Strip] = {}
        self.hands: dict[object, list[Strip]] = {}
        self.columns: dict[object, list[Segment]] = {}

    def show(self, update: TableUpdate) -> None:
        view, table = update.view, update.table
        assert view is not None
        seats = seats_panel(view, table, None, 29, 10).split("\n", allow_blank=True)
        centre = centre_panel(view, table, 10, None).split("\n", allow_blank=True)
        edge = Text("▏")
        rows: list[tuple[Part, ...]] = [((Text.assemble(" ", header(view, table, WIDTH)),
                                          WIDTH),)]
        for y in range(11):
            side = Text("c: chat at this table" if y == 10 else "")
            rows.append(((Text("  "), 2), (_at(seats, y), 29), (edge, 1), (Text(" "), 1),
                         (_at(centre, y), 23), (edge, 1), (side, 23)))
        prompt = " Your turn: play a tile (←→ Enter, or 1-7)." if view.my_turn \
            else f" Waiting for seat {view.to_move}…"
        rows += [((Text(prompt), WIDTH),), ((Text(""), WIDTH),)]
        drawn = [self._line(row) for row in rows]
        drawn += self._hand(view)
        drawn.append(self._line(((Text(" 1234567 choose tile  t played  s scores  c chat  "
                                       "? help  q leave", style="reverse"), WIDTH),)))
        for cache in (self.parts, self.kept):
            if len(cache) > KEPT:
                cache.clear()
        old, self.keys = self.keys, [key for key, _ in drawn]
        self.lines = [line for _, line in drawn]
        if len(old) != len(self.keys):
            self.refresh()
            return
        changed = [Region(0, y, WIDTH, 1)
                   for y, (was, now) in enumerate(zip(old, self.keys, strict=True))
                   if was != now]
        if changed:
            self.refresh(*changed)

    def _part(self, text: Text, width: int) -> tuple[object, list[Segment]]:
        key = (text.plain, tuple(text.spans), text.style, width)
        segments = self.parts.get(key)
        if segments is None:
            cut = text.copy()
            cut.truncate(width, overflow="ellipsis", pad=True)
            segments = [s for s in cut.render(self.app.console) if s.text != "\n"]
            self.parts[key] = segments
        return key, segments

    def _line(self, parts: tuple[Part, ...]) -> tuple[object, Strip]:
        drawn = [self._part(text, width) for text, width in parts]
        key = tuple(part_key for part_key, _ in drawn)
        line = self.kept.get(key)
        if line is None:
            line = Strip([s for _, segments in drawn for s in segments])
            line = line.adjust_cell_length(WIDTH)
            self.kept[key] = line
        return key, line

    def _hand(self, view: Any) -> list[tuple[object, Strip]]:
        """The hand's 9 lines, kept by the tiles, their marks and the cursor."""
        legal = {a.tile for a in view.legal}
        choosing = view.my_turn and view.phase in (Phase.PLAY, Phase.DISCARD)
        key = tuple((HandTile(tile, Mark.PLAIN if not choosing else
                              Mark.LEGAL if tile in legal else Mark.ILLEGAL, str(i + 1)),
                     choosing and i == 0) for i, tile in enumerate(view.hand))
        lines = self.hands.get(key)
        if lines is None:
            columns = [self._column(tile, cursor) for tile, cursor in key]
            lines = [Strip([Segment(" " * 8), *(s for column in columns
                                                 for s in (column[row], Segment(" ")))])
                     .adjust_cell_length(WIDTH) for row in range(9)]
            if len(self.hands) > 64:
                self.hands.clear()
            self.hands[key] = lines
        return [(("hand", key, row), line) for row, line in enumerate(lines)]

    def _column(self, tile: HandTile, cursor: bool) -> list[Segment]:
        column = self.columns.get((tile, cursor))
        if column is None:
            column = [Segment(text, style) for text, style in tile_rows(tile, cursor=cursor)]
            self.columns[(tile, cursor)] = column
        return column

    def render_line(self, y: int) -> Strip:
        return self.lines[y] if y < len(self.lines) else Strip.blank(WIDTH)


def _at(lines: list[Text], y: int) -> Text:
    return lines[y] if y < len(lines) else Text()


class BoardApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Board()


async def replay(updates: list[TableUpdate], spent: Spent,
                 show_last: bool = False) -> tuple[float, float]:
    """CPU of `Board.show` and of the frames (counted by `spent`), over `updates`, a
    frame for each."""
    app = BoardApp()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        ui_bench.render_frames(app, lambda: None)  # the ANSI step, as for MoonApp
        board = app.query_one(Board)
        await pilot.pause()
        spent.frames = 0.0
        shown = 0.0
        for update in updates:
            began = time.process_time()
            board.show(update)
            shown += time.process_time() - began
            await asyncio.sleep(0.006)  # a frame per update, as at a table
        if show_last:
            print("\n".join(line.text for line in board.lines))
    return shown, spent.frames


async def main(plays: int, show_last: bool) -> None:
    from server import patches, teardown

    patches.install()
    teardown.install()
    spent = Spent()
    spent.watch()
    await ui_bench.measure(plays, (WIDTH, HEIGHT), trace=False, bot_delay=0.02)
    n = len(spent.updates)
    real = (spent.take + spent.frames) / n * 1000
    print(f"the table screen: {n} table updates, {spent.take / n * 1000:.2f} ms taking each "
          f"in + {spent.frames / n * 1000:.2f} ms of frames = {real:.2f} ms per update")
    shown, frames = await replay(spent.updates, spent, show_last)
    sketch = (shown + frames) / n * 1000
    print(f"one widget (sketch): {shown / n * 1000:.2f} ms taking each in + "
          f"{frames / n * 1000:.2f} ms of frames = {sketch:.2f} ms per update "
          f"({100 * (1 - sketch / real):.0f}% less)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plays", type=int, default=200, help="tiles played by key")
    parser.add_argument("--show-last", action="store_true",
                        help="print the sketch's last screen (to see what it draws)")
    args = parser.parse_args()
    asyncio.run(main(args.plays, args.show_last))
