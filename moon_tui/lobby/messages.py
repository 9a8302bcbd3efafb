"""The lobby's language: commands a player's handle sends in, events it reads out.

All are small frozen dataclasses holding only plain values, rules values and views (no
handles, no callables), so they could be serialized and a table moved to another process
than its players. A table event carries the view *for its recipient* only (a seat's
`SeatView`, or the spectator's).

A table numbers its states: `TableUpdate.seq` grows by one with every change of the
table, and `GameFinished.seq` is the number of the final state. A `TableUpdate` is a
whole snapshot, so a player who missed some only needs the latest: on reconnecting they
get one at once, and `Resync(table_id, seen)` asks for it when the table is past `seen`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from ..rules import Action, Outcome, RuleBroken, Rules, SeatView
from ..rules.illegal import Param
from .notices import Ending, Leave, Tell
from .refusals import Refusal, Refused

BotLevel = Literal["random", "easy", "normal", "expert"]
BOT_LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "expert", "random")
TableStatus = Literal["waiting", "playing", "finished"]
PlaceKind = Literal["idle", "seated", "watching"]
Place = tuple[PlaceKind, str | None]
"""Where a person online is: idle in the lobby, or seated at / watching a table (its id;
None for a private table)."""
NoticeLevel = Literal["info", "warning", "error"]


# --- what the lobby shows -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits in a seat: nobody (`name is None`), a player, or a computer player.

    `bot_level` is set for a computer-held seat; `away` when its player has disconnected
    (their turns wait for them a while, then a computer plays them during the grace
    period); `stood_in` once a computer has played for them since; `held_for` names the
    person dealt into a computer's seat who was away past the grace: they may take it back.
    """

    name: str | None = None
    bot_level: BotLevel | None = None
    away: bool = False
    held_for: str | None = None
    stood_in: bool = False

    @property
    def is_free(self) -> bool:
        return self.name is None and self.bot_level is None

    @property
    def is_bot(self) -> bool:
        return self.name is None and self.bot_level is not None


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A table as the lobby list and the waiting room show it."""

    table_id: str
    name: str
    owner: str
    rules: Rules
    seats: tuple[SeatInfo, ...]
    status: TableStatus
    private: bool
    spectators_allowed: bool
    spectators: tuple[str, ...]
    turn_seconds: int | None
    invite_code: str | None = None
    """Only filled in for the table's own players (and its owner)."""
    rematch_votes: tuple[str, ...] = ()
    rated: bool = False
    """Its finished games count for the ratings (`moon_tui/ratings/`)."""
    open_seats: bool = False
    """The owner lets newcomers take a computer's seat during the game (`OpenSeats`)."""
    practice: bool = False
    """A practice table: one person, never rated nor saved; `h` shows hints there."""
    spectators_away: tuple[str, ...] = ()
    """Spectators of a table brought back after a restart who have not come back yet:
    their place is kept for the grace period (`Seating.away_watchers`)."""


@dataclass(frozen=True, slots=True)
class ChatLine:
    sender: str
    text: str
    table_id: str | None = None
    """None: the lobby chat."""
    at: float = 0.0
    """Unix time."""


# --- commands (player -> lobby or table) ----------------------------------------------------------

TABLE_NAME_MAX = 40
"""The longest table name kept (a longer one is cut)."""
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Invite code letters: no 0/O or 1/I to misread."""
CODE_LENGTH = 6


@dataclass(frozen=True, slots=True)
class CreateTable:
    name: str
    rules: Rules = field(default_factory=Rules.make)
    turn_seconds: int | None = None
    private: bool = False
    spectators_allowed: bool = True
    rated: bool = False
    """Finished games count for the ratings when at least two people played them."""
    practice: bool = False
    """Practice (hints): one person with computer players; never rated, not saved."""
    play_on: PlayOn | None = None
    """Start at once from a saved game's position (a practice table)."""


@dataclass(frozen=True, slots=True)
class PlayOn:
    """A practice game that starts where `record` stops: its decisions are replayed
    through the rules and the game goes on from the next one, the table's creator in
    `seat`, computer players of `level` in the others. Whoever sends it may see that
    seat (the replay viewer checks: RULES.md, what each seat may know)."""

    record: str
    """The saved game's `moon/1` record up to the position (`dumps_record`)."""
    seat: int
    level: BotLevel = "expert"


@dataclass(frozen=True, slots=True)
class JoinSeat:
    table_id: str
    seat: int | None = None
    """None: the first free seat."""


@dataclass(frozen=True, slots=True)
class JoinByCode:
    code: str


@dataclass(frozen=True, slots=True)
class Spectate:
    table_id: str


@dataclass(frozen=True, slots=True)
class LeaveTable:
    table_id: str


@dataclass(frozen=True, slots=True)
class AddBot:
    table_id: str
    seat: int
    level: BotLevel = "normal"


@dataclass(frozen=True, slots=True)
class RemoveBot:
    table_id: str
    seat: int


@dataclass(frozen=True, slots=True)
class StartGame:
    table_id: str


@dataclass(frozen=True, slots=True)
class Act:
    """A game decision at a table where the sender holds a seat."""

    table_id: str
    action: Action


@dataclass(frozen=True, slots=True)
class HandOver:
    """Let a computer play for the absent player of `seat` at once, instead of their
    turns waiting for them: the owner's word does it, else every seated player present
    must ask."""

    table_id: str
    seat: int


@dataclass(frozen=True, slots=True)
class OpenSeats:
    """The owner lets newcomers take a computer's seat during the game (`open`), or not."""

    table_id: str
    open: bool = True


@dataclass(frozen=True, slots=True)
class Resync:
    """Send me the table afresh if it changed after state `seen` (0: in any case)."""

    table_id: str
    seen: int = 0


@dataclass(frozen=True, slots=True)
class HandSeen:
    """The sender has read the result of hand `hand` (the next is dealt once every seated
    player has, or after `LobbyConfig.hand_result_seconds`)."""

    table_id: str
    hand: int


@dataclass(frozen=True, slots=True)
class Claim:
    """The sender, to lead, claims every trick left in the hand: the table proves it on
    the real deal (`bots/claim.py`) and plays the rest out at once, or refuses."""

    table_id: str


@dataclass(frozen=True, slots=True)
class SendChat:
    text: str
    table_id: str | None = None


@dataclass(frozen=True, slots=True)
class Rematch:
    table_id: str
    agree: bool = True


@dataclass(frozen=True, slots=True)
class Invite:
    """Invite `name` (online) to `table_id`, where the sender plays: they are told, with
    the table's invite code, unless they turned invitations off."""

    table_id: str
    name: str


@dataclass(frozen=True, slots=True)
class Invitations:
    """Turn invitations to the sender on or off (kept with a keyed player's name)."""

    on: bool


# Operator commands: refused for anyone not named an operator when they connected.
@dataclass(frozen=True, slots=True)
class Broadcast:
    """Words to everyone: a notice now, and on the lobby's notice board until `minutes`
    have passed (None: `LobbyConfig.board_minutes`; 0: no board) or another replaces it."""

    text: str
    minutes: float | None = None


@dataclass(frozen=True, slots=True)
class ClearBoard:
    """Take the operators' note off the lobby's notice board."""


@dataclass(frozen=True, slots=True)
class SetMotd:
    """The message of the day from now on ("": the server's configured one again)."""

    text: str


@dataclass(frozen=True, slots=True)
class Kick:
    """End `name`'s session and keep them out for `minutes` (None:
    `LobbyConfig.kick_minutes`; 0: they may come straight back)."""

    name: str
    reason: str = ""
    minutes: float | None = None


@dataclass(frozen=True, slots=True)
class Unban:
    """Lift every ban (or kick) made for `name`."""

    name: str


@dataclass(frozen=True, slots=True)
class Ban:
    name: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class CloseTable:
    table_id: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Restart:
    """Restart the server in `seconds`: everyone is told, then the server stops (it counts
    down, not the lobby); a new `Restart` replaces a countdown already running."""

    seconds: int
    message: str = ""


@dataclass(frozen=True, slots=True)
class CancelRestart:
    """Call off the restart counting down."""


TableCommand = (JoinSeat | Spectate | LeaveTable | AddBot | RemoveBot | StartGame | Act
                | Rematch | Resync | HandSeen | Claim | HandOver | OpenSeats)
"""Commands a handle sends straight to the table they name (the lobby does not relay them)."""
TABLE_COMMANDS = (JoinSeat, Spectate, LeaveTable, AddBot, RemoveBot, StartGame, Act, Rematch,
                  Resync, HandSeen, Claim, HandOver, OpenSeats)

OperatorCommand = (Broadcast | ClearBoard | SetMotd | Kick | Ban | Unban | CloseTable | Restart
                   | CancelRestart)
OPERATOR_COMMANDS = (Broadcast, ClearBoard, SetMotd, Kick, Ban, Unban, CloseTable, Restart,
                     CancelRestart)

Command = (CreateTable | JoinByCode | SendChat | Invite | Invitations | OperatorCommand
           | TableCommand)


# --- events (lobby or table -> player) ------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BoardNote:
    """An operator's words on the lobby's notice board."""

    text: str
    by: str
    at: float
    """Unix time it was put up."""
    until: float | None = None
    """Unix time it comes down (None: when another replaces it)."""


@dataclass(frozen=True, slots=True)
class LobbyUpdate:
    """The list of tables the recipient may see, and who is online. Replaces older ones."""

    tables: tuple[TableInfo, ...]
    online: tuple[str, ...]
    places: tuple[Place, ...] = ()
    """Where each of `online` is, in the same order."""
    operators: tuple[str, ...] = ()
    """The server's operators: the interface marks them wherever a name shows, so a
    look-alike name cannot pass for one."""
    board: BoardNote | None = None
    """The operators' note on the notice board, if any."""
    motd: str = ""
    """The club's message of the day as it is now."""


@dataclass(frozen=True, slots=True)
class TableUpdate:
    """A table the recipient sits at or watches. `view` is None before the game starts.

    Replaces any older undelivered `TableUpdate` of the same table.
    """

    table: TableInfo
    seat: int | None
    """The recipient's seat, None for a spectator."""
    view: SeatView | None
    seq: int = 0
    """The table's state number (see the module docstring)."""
    turn_left: float | None = None
    """Seconds left on the turn timer of the seat to move, when it is timed."""
    reconnect_left: float | None = None
    """The seat to move dropped: seconds the table still waits for its player to come back
    before the stand-in computer plays (None: nobody is waited for)."""
    hand_seats: tuple[tuple[SeatInfo, ...], ...] = ()
    """Who held each seat when each hand of the game was dealt, by hand number: a hand
    over keeps the names of those who played it, whoever sits there now."""

    def table_of_hand(self, number: int) -> TableInfo:
        """The table as it was seated for hand `number` (as it is now, if not known)."""
        if 0 <= number < len(self.hand_seats):
            return replace(self.table, seats=self.hand_seats[number])
        return self.table


@dataclass(frozen=True, slots=True)
class TableLeft:
    """The recipient is no longer at this table (left, removed, or the table closed)."""

    table_id: str
    reason: Leave
    params: Mapping[str, Param] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChatPosted:
    line: ChatLine


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell the recipient (a timer ran out, a broadcast): a code and its
    parameters, for the interface to word."""

    code: Tell
    params: Mapping[str, Param] = field(default_factory=dict)
    level: NoticeLevel = "info"


@dataclass(frozen=True, slots=True)
class RestartNotice:
    """The server restarts in `seconds` (it counts down and stops; the lobby only carries
    the news), or, with `seconds` None, the restart was called off. `message` is the
    operator's, as typed; `by` the operator's name, empty when the server's own system
    asked for it (SIGTERM)."""

    seconds: int | None
    message: str = ""
    by: str = ""


@dataclass(frozen=True, slots=True)
class Rejected:
    """A command of the recipient was refused: the rule or limit broken as a code and its
    parameters (plain values), for the interface to word."""

    command: Command
    code: RuleBroken | Refusal
    params: Mapping[str, Param]

    @classmethod
    def because(cls, command: Command, refused: Refused) -> Rejected:
        return cls(command, refused.code, refused.params)


@dataclass(frozen=True, slots=True)
class GameFinished:
    table_id: str
    outcome: Outcome
    winners: tuple[str, ...]
    scores: tuple[int, ...]
    seq: int = 0
    """The number of the table's final state."""


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The lobby ended this handle (connected elsewhere, kicked, too slow, shutdown): the
    last event it reads."""

    reason: Ending
    params: Mapping[str, Param] = field(default_factory=dict)


Event = (LobbyUpdate | TableUpdate | TableLeft | ChatPosted | Notice | RestartNotice | Rejected
         | GameFinished | Disconnected)
