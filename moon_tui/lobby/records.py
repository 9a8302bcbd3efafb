"""The one place the lobby turns a game into a `moon/1` record (the rules' own writer)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..rules.state import GameState

try:
    from ..rules.record import record_of as _record_of
except ImportError:  # the rules' record module has not landed yet
    _record_of = None


def record_of(state: GameState, seat_names: Sequence[str]) -> dict[str, Any]:
    if _record_of is None:
        raise RuntimeError("moon_tui.rules.record is missing: cannot write a record")
    return _record_of(state, seat_names)
