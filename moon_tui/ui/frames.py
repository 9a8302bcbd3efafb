"""A frame drawn at once for a player who waits on it.

Textual draws a screen's changes from its update timer: a change resumes the timer, and
the frame comes in a later pass of the event loop. On a busy server a pass takes 20-40 ms
(bench/ssh_load.py, 300 club players), and the answer to a player's move waited one more
pass for it, after the ones it already took (the key to the app, the move to the table,
the journal's answer, the table's news to the app). An app that has taken in every event
that came, with a command of its player unanswered, draws the frame they made now
(`MoonApp`); others leave it to the timer, which a busy server may hold back a pass
(server/patches.py) so that what a player typed is answered first.

This leans on private parts of Textual (`RELIES_ON`, watched by
tests/test_server_internals.py).
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.timer import Timer

RELIES_ON = (
    (App, "_begin_batch", "counts open batch updates in _batch_count"),
    (Screen, "_on_idle", "a change resumes _update_timer, whose tick draws the frame"),
    (Screen, "_on_timer_update", "draws the changes and pauses _update_timer"),
    (Timer, "resume", "sets _active: the timer has a frame to draw"),
    (Timer, "pause", "clears _active"),
)
"""Private parts of Textual `draw_now` uses: (owner, name, what it relies on)."""


def draw_now(screen: Screen[Any]) -> bool:
    """Draw the frame `screen`'s update timer waits to draw, if any (True: drawn). The
    timer then finds nothing to draw when its turn comes."""
    if not (screen.is_mounted and screen.is_attached and screen.is_current) \
            or screen.app._batch_count:
        return False  # (a screen just pushed draws whole once it is mounted)
    if not screen._update_timer._active.is_set():
        return False
    screen._on_timer_update()
    return True
