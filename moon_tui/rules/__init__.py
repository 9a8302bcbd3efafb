"""The rules of Moon (RULES.md): tiles, options, actions, the game state and its views.

Pure Python with no I/O and no asyncio; imports neither textual nor asyncssh.
"""

from .actions import Action, ActionError
from .options import MOON, Rules, RulesError, parse_option, parse_options
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
from .state import CHANCE, TERMINAL, GameState, HandLog, IllegalActionError
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
    trump_name,
)
from .view import HandResult, Outcome, Phase, SeatView, Trick

__all__ = [
    "CHANCE", "MOON", "SUIT_TRUMP", "TERMINAL", "TILES", "TRUMP_DOUBLES", "TRUMP_NAMES",
    "TRUMP_NONE", "Action", "ActionError", "GameState", "HandLog", "HandResult",
    "IllegalActionError", "IllegalRecordError", "Outcome", "Phase", "Record",
    "RecordFormatError", "Rules", "RulesError", "SeatView", "Tile", "TileError", "Trick",
    "dumps_record", "game_from_record", "parse_option", "parse_options", "parse_record",
    "parse_trump", "record_of", "replay", "tile_set", "trump_name",
]
