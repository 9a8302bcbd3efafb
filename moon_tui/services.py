"""What the interface may ask of whoever hosts it (the SSH server, or nothing locally).

The interface layer defines these; the server layer implements them. Keeping the contract
here keeps the layers pointing one way: the interface never imports `server`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

from .lobby.messages import Place, SeatInfo, TableStatus
from .ratings.board import LeaderboardPage, PlayerCard
from .rules import Record, Rules


@dataclass(frozen=True, slots=True)
class LinkCode:
    """A one-time code that adds the key of the next login that types it."""

    code: str
    """As shown to the player (e.g. ABCD-EFGH)."""
    minutes: float
    """How long it can be used."""
    command: str
    """What to run on the other computer, e.g. `ssh -p 2222 ann@this-server`."""


@dataclass(frozen=True, slots=True)
class KeyFacts:
    """One SSH key that may log in under a name."""

    fingerprint: str
    kind: str
    """The key's type, e.g. `ssh-ed25519`."""
    comment: str
    """A note kept with the key (SSH does not send a key's own comment: empty unless
    written in the database)."""
    added: float
    """Unix time."""
    last_used: float | None
    """Unix time of its last login (None: not since it was added)."""
    current: bool = False
    """The key this session logged in with."""
    configured: bool = False
    """Named in the server's configuration (an operator's): `added` is unknown, and it is
    removed there, not in the dialog."""


class KeyManager(Protocol):
    """The player's SSH keys: which may log in, and a way to add one from another computer.

    A key is only ever added by logging in with it (proof that the player holds it), never
    from a pasted public key: anyone can copy someone else's public key.
    """

    async def list_keys(self) -> list[KeyFacts]:
        """The keys that may log in as this player, oldest first."""
        ...

    async def new_link_code(self) -> LinkCode:
        """A code for the first login with a new key to type. Raises `AccountRefused`
        when the player cannot add keys (a guest)."""
        ...

    async def remove_key(self, fingerprint: str) -> None:
        """Stop `fingerprint` from logging in as this player. Raises `AccountRefused`
        when it may not (it is not theirs, it is their only key, or the server's
        configuration names it)."""
        ...


class AccountRefusal(enum.StrEnum):
    """Why a change to a player's keys or a member's name cannot be made (the interface
    words it, `ui/account_words.py`)."""

    GUEST = "guest"
    """A guest has no account: no keys to list or remove, no code to add one."""
    CONFIGURED_KEY = "configured_key"
    """The key is named in the server's configuration: it is removed there."""
    NO_SUCH_KEY = "no_such_key"
    ONLY_KEY = "only_key"
    """A player's last key: without it they could not log in again."""
    NAME_INVALID = "name_invalid"
    """Not a name a player can have (`name` is the name refused)."""
    NAME_RESERVED = "name_reserved"
    NO_SUCH_MEMBER = "no_such_member"
    NAME_TAKEN = "name_taken"
    """A member has that name already."""
    OPERATOR = "operator"
    """An operator's name is set in the server's configuration, not renamed."""
    LOOKS_LIKE_OPERATOR = "looks_like_operator"
    ONLINE = "online"
    """The member to rename is online or holds a seat."""
    IN_USE = "in_use"
    """The new name is online now (a guest's, or a player's on another worker)."""


class AccountRefused(ValueError):
    """A change to keys or members refused: `why`, and the name it is about."""

    def __init__(self, why: AccountRefusal, name: str = "") -> None:
        super().__init__(why, name)
        self.why = why
        self.name = name


# --- the operators' dashboard -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PersonOn:
    """A game session running now."""

    name: str
    guest: bool
    operator: bool
    address: str
    place: Place
    """Where they are in the lobby (a private table's id included)."""
    idle_seconds: float
    """Since their last key the game acted on."""
    here: bool = True
    """Connected to this server process; else to another worker of the club (`moon-server
    --workers`), whose address and idle time are not known here (nor whether a guest)."""


@dataclass(frozen=True, slots=True)
class TableFacts:
    """A table as the operators see it: private ones too."""

    table_id: str
    name: str
    owner: str
    private: bool
    status: TableStatus
    seats: tuple[SeatInfo, ...]
    spectators: int
    hand: int | None
    """The hand in play, from 1 (None: no game yet)."""
    opened: float
    """Unix time the table was opened (or came back after a restart)."""
    started: float | None
    """Unix time its game started (None: not started, or before a restart)."""


@dataclass(frozen=True, slots=True)
class LoadFacts:
    """The figures of the busy alarm (`server/load.py`), over its window."""

    players: int
    cpu_share: float
    """Share of one core the server used."""
    stalls: int
    """Times the event loop fell behind by over `stall_ms`."""
    longest_ms: float
    stall_ms: float
    window_seconds: float
    busy: bool
    stalls_cpu_share: float = 1.0
    """Share of the stalls' time in which the server's own process used the CPU: near
    1, its own work held the loop; near 0, it waited while something else ran."""


class BusyAdvice(enum.StrEnum):
    """What to do about a busy server, chosen from its figures (`server/load.py`)."""

    FLOOD = "flood"
    """Many connections that do not log in: a firewall limit per address helps."""
    HOST = "host"
    """While the loop fell behind the server hardly ran: something else on the host
    took the CPU."""
    FEW_PLAYERS = "few_players"
    """Busy with few players on: the log may say with what."""
    BURSTS = "bursts"
    """Its own work held the loop now and then, though it used little of its core on
    the whole: the log may say with what."""
    FEWER_PLAYERS = "fewer_players"
    """Busy with its players: fewer per server, or a faster core."""


@dataclass(frozen=True, slots=True)
class Busy:
    """The event loop fell behind again and again: keys feel slow."""

    load: LoadFacts
    strangers: int
    """Connections not playing (logging in now, or closed without logging in lately)."""
    advice: BusyAdvice
    worker: str | None = None
    """Another worker of the club that is busy (None: this server process)."""


class DatabaseStep(enum.StrEnum):
    """What could not be done because the database failed."""

    LOGIN = "login"
    SESSION = "session"
    NEW_KEY = "new_key"
    """A player's new key (typed a link code) could not be saved."""


@dataclass(frozen=True, slots=True)
class DatabaseFailed:
    step: DatabaseStep
    error: str
    """What the database said (system words, shown as they came)."""


@dataclass(frozen=True, slots=True)
class BanNotSaved:
    """An operator's ban or kick is in force now but would not outlast a restart."""

    kick: bool
    name: str
    error: str


@dataclass(frozen=True, slots=True)
class RecordsWaiting:
    """Finished games' records the disk refused: they wait in memory, retried."""

    count: int
    keep: int
    """At most this many wait."""
    retry_seconds: float
    error: str


@dataclass(frozen=True, slots=True)
class TablesWaiting:
    """The database cannot be written: tables wait and new games are refused."""

    tables: int
    error: str


Alarm = Busy | DatabaseFailed | BanNotSaved | RecordsWaiting | TablesWaiting
"""A problem the operators are told of on their screen (`ui/alarm_words.py` words it)."""


@dataclass(frozen=True, slots=True)
class RaisedAlarm:
    at: float
    """Unix time it was raised (or last renewed)."""
    alarm: Alarm


@dataclass(frozen=True, slots=True)
class BanFacts:
    """A ban in force, with all it holds (the name, its keys, its addresses)."""

    name: str
    reason: str
    since: float
    until: float | None
    """Unix time it ends (None: for good)."""
    kick: bool
    """A kick's short ban."""
    by: str
    keys: int
    addresses: int


@dataclass(frozen=True, slots=True)
class MemberFacts:
    """A name kept with its keys."""

    name: str
    created: float
    last_seen: float
    keys: tuple[KeyFacts, ...]


class ServerHealth(Protocol):
    """What the operators' dashboard shows of the server: its problems (e.g. game records
    that the disk refused), who is on, the tables, the load, the bans and the members,
    and what it changes there directly (members' keys and names)."""

    def alarms(self) -> tuple[RaisedAlarm, ...]:
        """The problems now; empty when all is well."""
        ...

    def people(self) -> tuple[PersonOn, ...]:
        ...

    def tables(self) -> tuple[TableFacts, ...]:
        ...

    def load(self) -> LoadFacts:
        ...

    async def bans(self) -> list[BanFacts]:
        ...

    async def members(self) -> list[MemberFacts]:
        ...

    async def remove_member_key(self, name: str, fingerprint: str) -> int:
        """Take a key from a member; how many keys they have left. Raises
        `AccountRefused` when it cannot."""
        ...

    async def rename_member(self, old: str, new: str) -> None:
        """Give a member a new name (their keys, bans and addresses follow). Raises
        `AccountRefused` when it cannot."""
        ...

# --- the club's saved games -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class GameQuery:
    """Which saved games to list: newest first, `limit` of them, older than `before` (a
    `GameEntry.key` of the page before: pages stay put while new games are saved)."""

    player: str | None = None
    """Only games this name sat in."""
    players: int | None = None
    """Only games of 3 (or 4) players."""
    before: int | None = None
    limit: int = 20


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One saved game as a list shows it (public: no tile of any deal)."""

    key: int
    """Its place in the listing (newer games have larger keys)."""
    code: str
    """Its short code, e.g. `K7Q2MD`: what `record` and `replay` take."""
    saved_at: float
    """Unix time."""
    finished: bool
    seats: tuple[str, ...]
    rules: Rules
    hands: int
    """Hands dealt, the redeals counted."""
    scores: tuple[int, ...]
    """Per side (a seat with 3 players, a team with 4)."""
    winner: int | None
    """The winning side, None for a game not finished."""


@dataclass(frozen=True, slots=True)
class GamePage:
    games: tuple[GameEntry, ...]
    more: bool
    """Older games follow (ask again with `before` = the last game's key)."""


class GameRefusal(enum.StrEnum):
    """Why a saved game cannot be opened (the interface words it)."""

    UNKNOWN = "unknown"
    """No game has this code."""
    NOT_SEATED = "not_seated"
    """An unfinished game opens only for those who sat in it (RULES.md, what each seat may
    know: the deals are shown once a game is over)."""
    GUEST = "guest"
    """A guest's name lasts one visit: an unfinished game's hand is kept from guests."""


class GameRefused(ValueError):
    def __init__(self, why: GameRefusal, code: str) -> None:
        super().__init__(why, code)
        self.why = why
        self.code = code


@dataclass(frozen=True, slots=True)
class OpenedGame:
    """A saved game opened for one player, and what of it they may see."""

    entry: GameEntry
    record: Record
    seats: frozenset[int] | None
    """The seats whose view may be shown, each alone; None: every seat, and all hands
    open (a finished game)."""
    seat_changes: tuple[dict[str, Any], ...] = ()
    """Who played a seat when it was not the person named (`seat_changes` of RECORD.md),
    entries of the documented shape only."""


class GameArchive(Protocol):
    """The club's saved games (the server's database)."""

    async def games(self, query: GameQuery) -> GamePage:
        """A page of saved games, newest first."""
        ...

    async def open(self, code: str) -> OpenedGame:
        """The game with this code, as the player may see it; `GameRefused` says why not."""
        ...


class RatingBook(Protocol):
    """The club's ratings, read from the game records (the leaderboard, player cards)."""

    async def leaderboard(self, players: int, offset: int, limit: int,
                          me: str | None) -> LeaderboardPage:
        """Rows `offset` to `offset + limit` of the `players` pool's board, best first,
        and `me`'s own row."""
        ...

    async def card(self, name: str) -> PlayerCard | None:
        """`name`'s record, or None when they have played no rated game."""
        ...
