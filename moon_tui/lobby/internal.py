"""Messages inside the lobby: to the lobby actor, into a table, and out of a table.

A table speaks two streams of plain values (names, commands, numbers, events), so it
could run in another process than its players: `TableMessage` goes in, `TableOutput`
comes out, both through the table's link (`links.py`) and both in the wire format
(`codec.py`). The lobby's own messages still carry the player's handle (the lobby owns
the handles).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..rules import Action
from ..rules.illegal import Param
from .messages import BoardNote, ChatPosted, Command, Event, RestartNotice, TableInfo
from .notices import Leave

if TYPE_CHECKING:
    from .handle import PlayerHandle


# --- to the lobby -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FromHandle:
    """A command for the lobby itself (creating a table, an invite code, chat, operators)."""

    handle: PlayerHandle
    command: Command


@dataclass(frozen=True, slots=True)
class HandleClosed:
    """The handle ended (the player left, or it was dropped for being too slow)."""

    handle: PlayerHandle


@dataclass(frozen=True, slots=True)
class Connect:
    name: str
    operator: bool
    reply: asyncio.Future[PlayerHandle]
    person: str


@dataclass(frozen=True, slots=True)
class ServerStopping:
    """The server stops now (`restart`: and starts again at once): everyone is told."""

    restart: bool
    reply: asyncio.Future[None]


@dataclass(frozen=True, slots=True)
class ServerKick:
    name: str
    reason: str
    reply: asyncio.Future[None]


@dataclass(frozen=True, slots=True)
class ServerRestartNews:
    """The server's restart countdown, for everyone online (the server owns the timer)."""

    notice: RestartNotice


@dataclass(frozen=True, slots=True)
class Shutdown:
    pass


@dataclass(frozen=True, slots=True)
class TableChanged:
    """A table's lobby entry changed (seats, status, spectators...)."""

    info: TableInfo


@dataclass(frozen=True, slots=True)
class TableClosed:
    table_id: str
    invite_code: str


@dataclass(frozen=True, slots=True)
class HandDealt:
    """The table deals hand `hand` (0-based) of its game (an operator's dashboard shows it:
    the lobby entry does not carry it)."""

    table_id: str
    hand: int


@dataclass(frozen=True, slots=True)
class ClubShare:
    """What one worker of a club shows the others (`peers.py`): its own tables' entries
    (invite codes included: the other workers route codes to them), who is connected to
    it, and which of them are operators. Crosses the bus in the wire format."""

    tables: tuple[TableInfo, ...]
    online: tuple[str, ...]
    operators: tuple[str, ...]
    runner: str = ""
    """The process that runs these tables: another one (a worker started again, or
    another worker) runs a table from somewhere new, and its people must be attached
    anew. "": nobody runs them any more (their worker stopped): they are coming back,
    once another worker takes them over."""


@dataclass(frozen=True, slots=True)
class FromPeers:
    """What the club's other workers share now, one `ClubShare` each."""

    shares: tuple[ClubShare, ...]


@dataclass(frozen=True, slots=True)
class PeerChat:
    """A line of the lobby chat posted on another worker."""

    posted: ChatPosted


@dataclass(frozen=True, slots=True)
class BusBack:
    """The club's bus came back empty: what was on its way (a member's view among it) is
    lost, so the tables of these people, here or on other workers, send them the table
    afresh (an `Attach`)."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TakenElsewhere:
    """`name` connected to another worker of the club: their session here ends (as a
    second connection on one worker takes over the first), without detaching them from
    their tables (they are attached from there)."""

    name: str


@dataclass(frozen=True, slots=True)
class Spent:
    """A command that waited for the club's count of a rate (`peers.SharedRates`): the
    seconds until it fits (0: it fit, and was counted; None: the club does not count
    it), or for the other workers' shares (`looked_again`)."""

    handle: PlayerHandle
    command: Command
    wait: float | None
    window_minutes: int = 60
    """The window of the count that refused it (tables: within the hour, or 10 min)."""
    looked_again: bool = False
    """An invite code not known here was looked up again once the other workers' shares
    had caught up (`Peers.caught_up`)."""


# --- news between the club's workers (`peers.py`; on the bus: `server/bus_news.py`) ----

@dataclass(frozen=True, slots=True)
class PeerBroadcast:
    """An operator's broadcast made on another worker, for everyone here now."""

    text: str
    by: str


@dataclass(frozen=True, slots=True)
class PeerNotices:
    """The notice board and the message of the day as an operator on another worker set
    them (a broadcast's minutes, `unsay`, `motd`); the worker it was done on keeps them."""

    board: BoardNote | None
    motd: str | None


@dataclass(frozen=True, slots=True)
class PeerKick:
    """An operator on another worker kicked (or, `banned`, banned) `name`: the worker
    serving them ends their session and keeps them out (it knows their key and address)."""

    name: str
    banned: bool
    by: str
    reason: str
    minutes: float


@dataclass(frozen=True, slots=True)
class PeerInvite:
    """An invitation from another worker for `name` (`Tell.INVITED`'s parameters)."""

    name: str
    by: str
    table: str
    table_id: str
    code: str


@dataclass(frozen=True, slots=True)
class PeerInvitations:
    """`name` turned invitations on or off on another worker (the one serving them keeps
    it): every worker refuses invitations to them, or sends them again."""

    name: str
    on: bool


PeerNews = PeerBroadcast | PeerNotices | PeerKick | PeerInvite | PeerInvitations
"""What one worker's lobby tells the other workers' lobbies."""


@dataclass(frozen=True, slots=True)
class ClubRestart:
    """An operator's restart countdown started on one worker, `seconds` from the Unix time
    `at` (None: called off): every worker counts down, tells its players, and stops.
    The server's news, not the lobby's (`server/bus_news.py`)."""

    seconds: int | None
    message: str
    by: str
    at: float


@dataclass(frozen=True, slots=True)
class ClubBusy:
    """One worker's busy alarm (`server/load.py`) as figures, for the operators on every
    worker (`busy` False: it ended). The server's news, not the lobby's."""

    busy: bool
    players: int
    cpu_share: float
    stalls: int
    longest_ms: float
    window_seconds: float
    strangers: int
    stalls_cpu_share: float


ClubNews = PeerNews | ClubRestart | ClubBusy
"""Everything that crosses the club's news stream on the bus."""


LobbyMessage = (FromHandle | HandleClosed | Connect | ServerStopping | ServerKick
                | ServerRestartNews | Shutdown | TableChanged | TableClosed | HandDealt
                | FromPeers | PeerChat | TakenElsewhere | BusBack | Spent | PeerNews)


# --- to a table ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FromMember:
    """A player's command for the table, straight from their handle (or, for an invite
    code, from the lobby: `by_code`)."""

    name: str
    command: Command
    by_code: bool = False
    command_id: int = 0
    """The table acknowledges it by this number (`Acked`): 0, nobody waits for it."""


@dataclass(frozen=True, slots=True)
class Attach:
    """`name` connected (a reconnection, or a takeover): they get the table afresh."""

    name: str


@dataclass(frozen=True, slots=True)
class Detach:
    """The handle of `name` ended: keep their seat for the grace period (`kicked`: an
    operator ended it; the record says so)."""

    name: str
    kicked: bool = False


@dataclass(frozen=True, slots=True)
class CloseNow:
    """Close the table, telling its members `reason`. Closed `for_good` (an operator, an
    error), the journal forgets it and an unfinished game is saved as a record; otherwise
    (the server stopping) it only stops, to come back as it was when the server does."""

    reason: Leave
    params: Mapping[str, Param] = field(default_factory=dict)
    for_good: bool = True


@dataclass(frozen=True, slots=True)
class ThinkNow:
    """A computer's pause is over: it may choose its move for `seat`."""

    generation: int
    seat: int
    stand_in: bool


@dataclass(frozen=True, slots=True)
class BotMoved:
    """A computer chose `action` for `seat`; ignored unless `generation` is still current."""

    generation: int
    seat: int
    action: Action
    stand_in: bool


@dataclass(frozen=True, slots=True)
class ClaimChecked:
    """The proof of `seat`'s claim is done: `plays`, the rest of the hand, when it was
    proven; none when it was not (`checked`) or could not be checked (not `checked`).
    Ignored unless `generation` is still current."""

    generation: int
    seat: int
    plays: tuple[Action, ...]
    checked: bool


@dataclass(frozen=True, slots=True)
class TimerRanOut:
    generation: int
    seat: int


@dataclass(frozen=True, slots=True)
class DealNow:
    generation: int


@dataclass(frozen=True, slots=True)
class GraceOver:
    name: str
    away_since: float


TableMessage = (FromMember | Attach | Detach | CloseNow | ThinkNow | BotMoved | TimerRanOut
                | DealNow | GraceOver | ClaimChecked)
"""Everything that goes into a table: from the lobby's side through its link, and from
its own clocks and computers."""


def nowhere(message: TableMessage) -> None:
    """Where a closed table's clocks and computers post: nothing acts on their messages
    any more, and they no longer hold the table (its `post`) in a reference cycle."""


# --- out of a table -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ToMember:
    """An event for the player `name` (whichever session of theirs is connected now)."""

    name: str
    event: Event


@dataclass(frozen=True, slots=True)
class Acked:
    """The table took up the command numbered `command_id` (`FromMember.command_id`): the
    session that sent it has one command fewer pending, whoever holds the name now."""

    command_id: int


@dataclass(frozen=True, slots=True)
class EntryChanged:
    """The table's lobby entry changed (seats, status, spectators...), invite code and all."""

    info: TableInfo


@dataclass(frozen=True, slots=True)
class Counted:
    """Hands and games the table finished since it last said (the lobby's `LobbyStats`)."""

    hands: int = 0
    games: int = 0


TableOutput = ToMember | Acked | EntryChanged | TableClosed | Counted | HandDealt
"""Everything that leaves a table, in order, through its link (`links.py`)."""
