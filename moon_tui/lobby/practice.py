"""A practice game that starts where a saved game stops ("play on from here").

The position is not a state sent whole: it is the saved game's record cut at that
decision, and the game is rebuilt by replaying its decisions through the rules, as a
replay or a restart rebuilds one (python-chess's PGN: a record holds decisions only). So
a practice table can start from anything a record can say, and from nothing else.
"""

from __future__ import annotations

import logging

from ..rules import GameState, IllegalRecordError, RecordFormatError
from ..rules.illegal import Param
from ..rules.record import game_from_record
from ..shown import shown
from .messages import BOT_LEVELS, PlayOn
from .refusals import Refusal, Refused, echoed, echoed_seat

log = logging.getLogger(__name__)

RECORD_MAX = 1 << 20
"""The longest record text a play-on may carry (a game of 100 hands is ~40 KB)."""


def _refuse(why: str, **params: Param) -> Refused:
    """`why`: `record` (missing or too long), `illegal` (not a legal record: the rules'
    own words for why go to the log), `over` (the game is over there), `seat`, `level`
    (none such)."""
    return Refused(Refusal.BAD_PLAY_ON, why=why, **params)


def start_of(play_on: PlayOn) -> GameState:
    """The game at the position `play_on.record` stops at, checked: a legal record that
    stops before the game's end, a seat and a computer level that exist."""
    text = play_on.record
    if not isinstance(text, str) or len(text) > RECORD_MAX:
        raise _refuse("record")
    try:
        state = game_from_record(text)
    except (RecordFormatError, IllegalRecordError) as exc:
        log.info("a play-on's record refused: %s", shown(str(exc)))
        raise _refuse("illegal") from None
    if state.is_terminal():
        raise _refuse("over")
    seat = play_on.seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise _refuse("seat", seat=echoed_seat(seat), players=state.players)
    if play_on.level not in BOT_LEVELS:
        raise _refuse("level", level=echoed(play_on.level))
    return state


__all__ = ["RECORD_MAX", "start_of"]
