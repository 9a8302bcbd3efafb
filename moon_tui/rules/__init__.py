"""The rules of Moon (RULES.md): tiles, options, actions, the game state and its views.

Pure Python with no I/O and no asyncio; imports neither textual nor asyncssh.
"""

from .actions import Action, ActionError
from .illegal import Breach, IllegalActionError, RuleBroken
from .options import MOON, TARGET_MAX, Rules, RulesError, parse_option, parse_options
from .record import (
    IllegalRecordError,
    Record,
    RecordFormatError,
    dumps_record,
    game_from_record,
    parse_record,
    record_of,
)
from .replay import replay
from .state import CHANCE, TERMINAL, GameState, HandLog
from .tiles import (
    SUIT_TRUMP,
    TILES,
    TRUMP_DOUBLES,
    TRUMP_NAMES,
    TRUMP_NONE,
    Tile,
    TileError,
    parse_trump,
    tile_set,
)
from .view import HandResult, Outcome, Phase, SeatView, Termination, Trick

__all__ = [
    "CHANCE", "MOON", "SUIT_TRUMP", "TARGET_MAX", "TERMINAL", "TILES", "TRUMP_DOUBLES",
    "TRUMP_NAMES", "TRUMP_NONE", "Action", "ActionError", "Breach", "GameState", "HandLog",
    "HandResult", "IllegalActionError", "IllegalRecordError", "Outcome", "Phase", "Record",
    "RecordFormatError", "RuleBroken", "Rules", "RulesError", "SeatView", "Termination",
    "Tile", "TileError", "Trick", "dumps_record", "game_from_record", "parse_option",
    "parse_options", "parse_record", "parse_trump", "record_of", "replay", "tile_set",
]
