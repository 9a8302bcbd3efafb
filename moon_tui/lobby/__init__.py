"""The lobby actor and its tables: the shared, in-memory heart of the server.

A player reaches the lobby and its tables only through messages (`messages.py`): their
`PlayerHandle` (`handle.py`) sends commands and reads events. A table command goes
straight to the table's link (`links.py`), numbered by the lobby's `Router`; a table
speaks two streams of plain values (`internal.py`) in a versioned wire format
(`codec.py`), and runs on a `TableHost` (`host.py`) as a functional core (`core.py`) in
a thin shell (`table.py`). The lobby (`lobby.py`) keeps only the links, the listing and
the invite codes. No textual, no asyncssh here. docs/PROTOCOL.md has the messages.

One move: `PlayerHandle.send(Act)` → `Router.command` → `TableLink.to_table(FromMember)`
→ `TableState.handle` → `GameState.apply_action` → a `TableUpdate` (numbered `seq`) per
member as `Send` effects → the journal → `TableLink.to_lobby(ToMember)` → each member's
`EventQueue` → the member's `PlayerHandle.next_event()`.

Rulings the interface can rely on:
- Creating a table seats its creator at seat 0 and makes them the owner. The owner may
  `Spectate` their own table before the start (leaving the seat) to host a table of bots.
- Seats change only while no game is on (waiting, or finished). After a game the owner may
  `StartGame` again, or every seated human votes `Rematch`.
- `LeaveTable` during a game hands the seat to a computer (`stand_in_level`) for good. When
  the owner leaves, the first seated human (else the first spectator) owns the table; when
  no human is left the table closes (an unfinished game is saved with `finished=False`).
- A dropped player's seat shows `away=True` with the stand-in's `bot_level` for
  `grace_seconds`, then goes to that computer. A turn of theirs first waits
  `reconnect_wait_seconds` from the drop (`TableUpdate.reconnect_left`) for them to come
  back, then the stand-in plays it; the turn timer runs on meanwhile. A spectator who drops
  simply stops watching.
- A turn timer that runs out in the auction passes (or bids the least, where the rules
  force a bid); elsewhere the stand-in computer chooses.
- `JoinByCode` takes the first free seat, or watches when none is free (or the game is on).
- Chat and table names lose control characters (they reach other people's terminals).
- Tables outlive the server: each writes every change to the lobby's `TableJournal`
  (`journal.py`) before it tells anyone, and a lobby started on the same journal takes
  them all up as they were (a clean stop or a crash alike). Their players and spectators
  keep their places for `restart_grace_seconds` (a turn of theirs waits as long, its timer
  starting when they are back); computers play on at once. Stopping a lobby that has a
  journal saves no unfinished record: the game goes on after the restart and is saved
  when it ends (a lobby without one saves them, as nothing brings its tables back).
- A planned restart is the server's: it counts down, and the lobby carries its news
  (`announce_restart`: a `RestartNotice` to everyone online, and to whoever connects while
  it runs). An operator's `Restart` / `CancelRestart` goes to the server's `on_restart`.
- A refused command comes back as `Rejected`: a code (the engine's `RuleBroken` for a game
  rule, else a `Refusal`) and plain parameters. The words are the interface's to choose.
"""

from .clock import Clock, LoopClock, Timer
from .config import LobbyConfig
from .handle import LobbyClosed, PlayerHandle
from .lobby import Lobby
from .messages import (
    BOT_LEVELS,
    Act,
    AddBot,
    Ban,
    BotLevel,
    Broadcast,
    CancelRestart,
    ChatLine,
    ChatPosted,
    CloseTable,
    Command,
    CreateTable,
    Disconnected,
    Event,
    GameFinished,
    HandSeen,
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
    Restart,
    RestartNotice,
    Resync,
    SeatInfo,
    SendChat,
    Spectate,
    StartGame,
    TableInfo,
    TableLeft,
    TableStatus,
    TableUpdate,
)
from .refusals import Refusal
from .store import MemoryRecordStore, RecordStore

__all__ = [
    "BOT_LEVELS", "Act", "AddBot", "Ban", "BotLevel", "Broadcast", "CancelRestart", "ChatLine",
    "ChatPosted",
    "Clock", "CloseTable", "Command", "CreateTable", "Disconnected", "Event", "GameFinished",
    "HandSeen",
    "JoinByCode", "JoinSeat", "Kick", "LeaveTable", "Lobby", "LobbyClosed", "LobbyConfig",
    "LobbyUpdate", "LoopClock", "MemoryRecordStore", "Notice", "NoticeLevel", "PlayerHandle",
    "RecordStore", "Refusal", "Rejected", "Rematch", "RemoveBot", "Restart", "RestartNotice",
    "Resync", "SeatInfo", "SendChat",
    "Spectate", "StartGame", "TableInfo", "TableLeft", "TableStatus", "TableUpdate", "Timer",
]
