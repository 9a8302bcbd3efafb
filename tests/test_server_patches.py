"""The process-wide adjustments to Textual (server/patches.py), each on its own."""

from __future__ import annotations

import gc
from collections.abc import Callable

from rich.segment import Segment
from textual._styles_cache import StylesCache
from textual.color import Color
from textual.strip import Strip

from server import patches

patches.install()


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
