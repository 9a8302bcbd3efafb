"""LinePanel: only the lines an update changed are repainted, and they are the lines a
plain Static draws."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from moon_tui.ui.base import set_text
from moon_tui.ui.panel import DRAWN_KEPT, Line, LinePanel, split_lines

CSS = "LinePanel, Static { width: 30; height: 6; padding: 0 1; }"


class PanelApp(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        yield LinePanel(id="panel")
        yield Static(id="plain")


def lines(widget: Static) -> list[Strip]:
    """What the widget draws, text and styles."""
    return widget.render_lines(Region(0, 0, *widget.outer_size))


class CutPanelApp(PanelApp):
    """Lines cut, not wrapped, as the table's seats panel."""

    CSS = CSS.replace("}", "text-wrap: nowrap; text-overflow: ellipsis; }")


@pytest.mark.parametrize("app_class", [PanelApp, CutPanelApp])
async def test_an_update_repaints_only_its_changed_lines_as_a_static_draws_them(
        app_class: type[PanelApp]) -> None:
    app = app_class()
    async with app.run_test(size=(40, 14)) as pilot:
        panel, plain = app.query_one(LinePanel), app.query_one("#plain", Static)
        first = Text("▶ ann\n  3 pts\n  bob\n  5 pts")
        for widget in (panel, plain):
            set_text(widget, first)
        await pilot.pause()
        assert lines(panel) == lines(plain)

        repainted: list[Region] = []
        exchange = panel._exchange_repaint_regions

        def watched() -> list[Region]:
            regions = list(exchange())
            repainted.extend(regions)
            return regions

        panel._exchange_repaint_regions = watched  # type: ignore[method-assign]

        async def show(text: Text) -> list[int]:
            """Show `text` in both; the rows of the panel repainted, in order."""
            repainted.clear()
            for widget in (panel, plain):
                set_text(widget, text)
            await pilot.pause()
            assert lines(panel) == lines(plain)
            return [region.y for region in repainted]

        second = Text("  ann\n  3 pts\n▶ bob\n  5 pts", style="bold")
        assert sorted(await show(second)) == [0, 1, 2, 3]  # all restyled
        third = Text("  ann\n  3 pts\n▶ bob\n  6 pts", style="bold")
        assert await show(third) == [3]  # one line changed
        # A line more or less (a trick played, a new hand) repaints that line only.
        fourth = Text("  ann\n  3 pts\n▶ bob\n  6 pts\n  cy", style="bold")
        assert await show(fourth) == [4]
        assert await show(third) == [4]


class LineApp(App[None]):
    CSS = "Line, Static { width: 30; height: 1; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        yield Line(id="line")
        yield Static(id="plain")


async def test_a_line_shown_again_is_drawn_as_a_static_draws_it() -> None:
    app = LineApp()
    async with app.run_test(size=(40, 6)) as pilot:
        line, plain = app.query_one(Line), app.query_one("#plain", Static)
        marked = Text("Waiting for bob…")
        marked.stylize("reverse", 0, 7)
        texts = [Text("Waiting for bob…"), Text("Waiting for bob…", style="bold"),
                 Text("Your turn"), Text("Waiting for bob…"), marked, Text("Your turn")]
        for text in texts:  # same words in other styles, and each shown again
            for widget in (line, plain):
                set_text(widget, text)
            await pilot.pause()
            assert lines(line) == lines(plain)
        assert len(line._drawn) == 4


async def test_a_line_keeps_the_texts_shown_most_recently() -> None:
    # A bar going back and forth between more texts than it keeps: the one shown a
    # moment ago is still kept, the least recent goes first.
    app = LineApp()
    async with app.run_test(size=(40, 6)) as pilot:
        line, plain = app.query_one(Line), app.query_one("#plain", Static)
        texts = [Text(f"text {i}") for i in range(DRAWN_KEPT + 1)]
        for text in [*texts[:DRAWN_KEPT], texts[0], texts[DRAWN_KEPT], texts[0]]:
            for widget in (line, plain):
                set_text(widget, text)
            await pilot.pause()
            assert lines(line) == lines(plain)
        kept = [key[0][1] for key in line._drawn]  # (the content's plain text)
        assert len(kept) == DRAWN_KEPT and "text 1" not in kept
        assert kept[-2:] == [f"text {DRAWN_KEPT}", "text 0"]


@given(st.lists(st.text(alphabet="ab \n", max_size=6), max_size=6),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40),
                          st.sampled_from(["bold", "reverse", "red"])), max_size=6))
def test_a_text_splits_into_the_lines_and_spans_rich_makes(
        parts: list[str], spans: list[tuple[int, int, str]]) -> None:
    # `split_lines` stands in for `Text.split("\n", allow_blank=True)` in LinePanel.
    text = Text("\n".join(parts), style="italic")
    for start, end, style in spans:
        text.stylize(style, start, end)
    rich = [(line.plain, tuple(line.spans)) for line in text.split("\n", allow_blank=True)]
    assert split_lines(text) == rich
