"""The lobby actor and its tables: the shared, in-memory heart of the server.

Sessions talk to the lobby only through messages (`messages.py`): a `PlayerHandle` sends
commands and reads events. No textual, no asyncssh here.
"""

from .config import LobbyConfig
from .lobby import Lobby
from .messages import (
    BOT_LEVELS,
    Act,
    AddBot,
    Ban,
    BotLevel,
    Broadcast,
    ChatLine,
    ChatPosted,
    CloseTable,
    Command,
    CreateTable,
    Event,
    GameFinished,
    JoinByCode,
    JoinSeat,
    Kick,
    LeaveTable,
    LobbyUpdate,
    Notice,
    NoticeLevel,
    Rejected,
    Rematch,
    RemoveBot,
    SeatInfo,
    SendChat,
    SessionEnded,
    Spectate,
    StartGame,
    TableInfo,
    TableLeft,
    TableStatus,
    TableUpdate,
)
from .session import LobbyClosed, PlayerHandle
from .store import MemoryRecordStore, RecordStore

__all__ = [
    "BOT_LEVELS", "Act", "AddBot", "Ban", "BotLevel", "Broadcast", "ChatLine", "ChatPosted",
    "CloseTable", "Command", "CreateTable", "Event", "GameFinished", "JoinByCode", "JoinSeat",
    "Kick", "LeaveTable", "Lobby", "LobbyClosed", "LobbyConfig", "LobbyUpdate",
    "MemoryRecordStore", "Notice", "NoticeLevel", "PlayerHandle", "RecordStore", "Rejected",
    "Rematch", "RemoveBot", "SeatInfo", "SendChat", "SessionEnded", "Spectate", "StartGame",
    "TableInfo", "TableLeft", "TableStatus", "TableUpdate",
]
