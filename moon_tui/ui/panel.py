"""Widgets of the table that draw again only what changed: a text panel that repaints
only the lines an update changed (`LinePanel`), lines kept for each text a widget
showed (`KeepsDrawn`: the prompt, the header, the bars).

The table's seats and centre panels change a line or two per move (the turn marker, a
tile played), but a Static repaints every line, and the compositor every line again:
about a tenth of a table update's CPU (bench/ui.py, measured). Here the new text is
rendered to lines when the frame is drawn (once, however many updates came since the
last frame), compared with the lines on screen, and only those that differ are marked
for repainting; a line drawn recently is not drawn again either (the lines of the
text and the last `LINES_KEPT` others are kept, by line number, text and style).

This leans on private parts of Textual (`RELIES_ON`, watched by
tests/test_server_internals.py). It was safe only once nothing beside it moved without
a dirty region: the hand and the words in its place are one widget (`hand.py`). Every
frame of played hands is checked against Textual's own drawing through a terminal
emulator, and every kept line against a fresh drawing (tests/test_ui_frames.py).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Hashable
from typing import Any, TypeVar

from rich.text import Span, Text
from textual.content import Content, _FormattedLine
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.visual import Visual, VisualType
from textual.widget import Widget, _RenderCache
from textual.widgets import Static

RELIES_ON = (
    (Static, "update", "keeps the content under _Static__content and _Static__visual"),
    (Widget, "_exchange_repaint_regions", "hands the frame the regions to repaint"),
    (Widget, "render_lines", "draws from _render_cache unless _dirty_regions (_set_dirty)"),
    (Widget, "_render_content", "what a dirty widget renders (_RenderCache)"),
    (Widget, "refresh", "what update(layout=False) does beside the content: _repaint_required"),
    (Visual, "to_strips", "what it adds to Content.render_strips (a line drawn alone)"),
    (Content, "render_strips", "what a line drawn alone is given (the panel's text rules)"),
    (Content, "_wrap_and_format", "formats each line alone, numbered by its place"),
    (_FormattedLine, "to_strip", "the line number given to the styles, from .y"),
    (Widget, "_get_style", "the style lookup to_strips gives render_strips"),
)
"""Private parts of Textual `LinePanel` and `KeepsDrawn` use: (owner, name, what it
relies on)."""


LINES_KEPT = 16
"""Drawn lines a `LinePanel` keeps beside those of its text, the most recent: lines shown
a moment ago (a seat's line with and without the turn marker: on a bench game, the
seats panel drew 2.4 lines an update keeping only its text's lines, 0.9 keeping 16)."""


class LinePanel(Static):
    """A Static of fixed size that repaints only the lines an update changed. An update
    that asks for a layout, or comes before the panel was drawn at its size, repaints
    it whole."""

    _diff_pending = False
    _lines_key: tuple[object, ...] = ()
    _lines_cache: dict[tuple[object, ...], list[Strip]] = {}
    """Lines drawn, by number, text and style, the most recent last (a new dict per
    panel, see `_text_lines`)."""

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        # (A panel not drawn at its size yet is drawn whole: see _repaint_changed_lines.)
        if layout or not self.is_mounted:
            self._diff_pending = False
            super().update(content, layout=layout)
            return
        # What Static.update keeps (under its private names): the content, its visual.
        self.__dict__["_Static__content"] = content
        self.__dict__["_Static__visual"] = None
        self._diff_pending = True  # drawn in the next frame, see below
        # A repaint, but no region marked dirty: the frame finds the changed lines.
        self._repaint_required = True
        self.refresh(repaint=False)

    def _exchange_repaint_regions(self) -> Collection[Region]:
        if self._diff_pending:
            self._diff_pending = False
            self._repaint_changed_lines()
        return super()._exchange_repaint_regions()

    def render_lines(self, crop: Region) -> list[Strip]:
        # Drawn before its frame (a layout, a screen shown again): the new lines first.
        if self._diff_pending:
            self._diff_pending = False
            self._repaint_changed_lines()
        return super().render_lines(crop)

    def _repaint_changed_lines(self) -> None:
        cache, size = self._render_cache, self.size
        if cache.size != size or self._dirty_regions:
            self._set_dirty()
            return
        lines = self._padded(self._text_lines(size.width, size.height), size)
        old_lines = self._padded(cache.lines, size)
        if len(lines) != len(old_lines):
            self._set_dirty()
            return
        changed = [Region(0, y, size.width, 1)
                   for y, (old, new) in enumerate(zip(old_lines, lines, strict=True))
                   if old != new]
        self._render_cache = _RenderCache(size, lines)
        if changed:
            self._set_dirty(*changed)
            self._dirty_regions.clear()  # the lines are rendered: not again

    def _text_lines(self, width: int, height: int) -> list[Strip]:
        """What `Visual.to_strips` draws of the panel's text, a line of text at a time,
        each line taken from a cache while it has not changed: rendering the whole text
        again was most of an update's cost here, for the one or two lines that differ.

        Textual renders each line of a text on its own (wrapped or cut to the width); only
        a selection (which knows its lines by number), an alignment other than top left
        (which moves lines by the whole text's size) and links (styled by to_strips) need
        the whole text at once, as does content other than a Rich `Text` (not split)."""
        text = self.content
        styles = self.styles
        style = self.visual_style
        if not isinstance(text, Text) or self.text_selection is not None \
                or styles.content_align != ("left", "top"):
            return Visual.to_strips(self, self.visual, width, height, style)
        key = (width, style, styles.text_wrap, styles.text_overflow, styles.text_align,
               styles.line_pad)
        if key != self._lines_key:
            self._lines_key = key
            self._lines_cache = {}
        cache = self._lines_cache
        lines: list[Strip] = []
        # Only a line not drawn before is made a Text, then a Content, and drawn.
        source = split_lines(text)
        for y, (plain, spans) in enumerate(source):
            line_key = (y, plain, spans, text.style)
            strips = cache.pop(line_key, None)
            if strips is None:
                line = Text(plain, style=text.style, justify=text.justify,
                            overflow=text.overflow, spans=list(spans))
                content = Content.from_rich_text(line, self.app.console)
                if self.auto_links and any(_may_act(span.style) for span in content.spans):
                    return Visual.to_strips(self, self.visual, width, height, style)
                strips = self._draw_line(content, y, width)
            cache[line_key] = strips  # (the most recent last)
            lines.extend(strips)
            if len(lines) >= height:
                break
        for old in list(cache)[:len(cache) - len(source) - LINES_KEPT]:
            del cache[old]
        return lines[:height]

    def _draw_line(self, line: Content, y: int, width: int) -> list[Strip]:
        """Line `y` of the text, as `Content.render_strips` draws it in the whole text:
        formatted alone, then given its line number (the style of each cell holds its
        offset, line number included). Drawing it after `y` empty lines cost four times
        as much as the line itself (measured)."""
        rules = self.styles
        formatted = line._wrap_and_format(
            width, align=rules.text_align, overflow=rules.text_overflow,
            no_wrap=rules.text_wrap == "nowrap", line_pad=rules.line_pad, tab_size=8,
            get_style=self._get_style)
        style = self.visual_style
        strips = []
        for part in formatted:
            part.y = y
            strips.append(Strip(*part.to_strip(style)))
        return strips

    def _padded(self, lines: list[Strip], size: Size) -> list[Strip]:
        """`lines` to the panel's height with the blank lines `Widget.render_line` draws
        past the last one: text that grew or shrank by a line (a trick played) is a
        change of that line, not of the whole panel."""
        width, height = size
        if len(lines) >= height:
            return lines
        return [*lines, *[Strip.blank(width, self.visual_style.rich_style)]
                * (height - len(lines))]


def split_lines(text: Text) -> list[tuple[str, tuple[Span, ...]]]:
    """Each line of `text` as its words and its spans, as `text.split("\\n",
    allow_blank=True)` makes them (a span is cut to each line it covers, and kept in
    its order), without making a Text per line: splitting the table's panels into
    Texts was a fifth of what finding their changed lines cost (py-spy)."""
    plain = text.plain
    words = plain.split("\n")
    if not text.spans:
        return [(line, ()) for line in words]
    starts = []
    at = 0
    for line in words:
        starts.append(at)
        at += len(line) + 1
    cut: list[list[Span]] = [[] for _ in words]
    for start, end, style in text.spans:
        y = bisect_right(starts, start) - 1  # (starts[0] is 0: never before the first)
        while y < len(words) and starts[y] < end:
            first, last = starts[y], starts[y] + len(words[y])
            if min(end, last) > max(start, first):
                cut[y].append(Span(max(start, first) - first, min(end, last) - first, style))
            y += 1
    return [(line, tuple(spans)) for line, spans in zip(words, cut, strict=True)]


def _may_act(style: object) -> bool:
    """Whether a span's style may hold a click action (meta; `@click` in markup)."""
    if isinstance(style, str):
        return "@" in style
    return getattr(style, "_meta", None) is not None or bool(getattr(style, "link", None))


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def recall(kept: dict[K, V], key: K) -> V | None:
    """`kept[key]` (None: not kept), now the most recently used: `kept` holds its keys
    least recently used first (see `keep`)."""
    value = kept.pop(key, None)
    if value is not None:
        kept[key] = value
    return value


def keep(kept: dict[K, V], key: K, value: V, limit: int) -> None:
    """Keep `value` under `key` as the most recently used, dropping the least recently
    used past `limit`. A plain dict in use order, not Textual's `LRUCache`, whose
    linked entries are reference cycles: every session holds a few of these, and what
    an ended session leaves in cycles waits for the garbage collector
    (server/memory.py)."""
    if len(kept) >= limit:
        del kept[next(iter(kept))]
    kept[key] = value


DRAWN_KEPT = 12
"""Contents a `KeepsDrawn` widget keeps drawn, the most recently shown (a prompt or a key
bar has a few states; every session holds them). Dropping them all once there were 12
drew the key bar again at 198 of its 655 changes in bench/ui.py's 300 tiles; dropping
the least recent, at 33."""


def content_key(content: object) -> Hashable | None:
    """What makes `content` (a Text, a Content or a str) draw as it does; None when
    it cannot be told."""
    if isinstance(content, str):
        return ("str", content)
    if isinstance(content, Content):
        return ("content", content.plain, tuple(content.spans))
    if isinstance(content, Text):
        return ("text", content.plain, tuple(content.spans), content.style, content.justify,
                content.overflow, content.no_wrap, content.end, content.tab_size)
    return None


class KeepsDrawn(Widget):
    """A widget that keeps the lines Textual drew for each content it showed: a prompt,
    a header, a bar of keys go back and forth between a few texts, and drawing a text
    again through Textual's content layer cost about as much as the rest of a frame
    for those lines (bench/ui.py, measured).

    What is kept is what `Widget._render_content` drew, for the same content, size,
    style and text rules: the same strips. `drawn_content()` says what is shown."""

    _drawn: dict[Hashable, list[Strip]] = {}
    """Drawn lines by content, size and style, the most recently shown last (a new dict
    per widget, made when first drawn)."""

    def drawn_content(self) -> object:
        """What the widget shows now (a Text, Content or str), for `content_key`."""
        return None

    def _render_content(self) -> None:
        key = content_key(self.drawn_content())
        if key is None or self.text_selection is not None:
            super()._render_content()
            return
        styles = self.styles
        size = self.size
        key = (key, size, self.visual_style, styles.text_wrap, styles.text_overflow,
               styles.text_align, styles.content_align, styles.line_pad)
        drawn = self.__dict__.get("_drawn")
        if drawn is None:
            drawn = self._drawn = {}
        lines = recall(drawn, key)
        if lines is None:
            super()._render_content()
            keep(drawn, key, self._render_cache.lines, DRAWN_KEPT)
            return
        self._render_cache = _RenderCache(size, lines)
        self._dirty_regions.clear()


class Line(KeepsDrawn, Static):
    """A Static that keeps the lines drawn for each text it showed (`KeepsDrawn`)."""

    def drawn_content(self) -> Any:
        return self.content

