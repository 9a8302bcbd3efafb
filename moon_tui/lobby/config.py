"""The lobby's settings: timings and limits, one frozen value shared by every table."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..bots.pool import default_size
from .messages import BotLevel


@dataclass(frozen=True)
class LobbyConfig:
    """Timings and limits. Tests shrink the delays to zero; the server keeps the defaults."""

    grace_seconds: float = 120.0
    """A dropped player who reconnects within this is back in their seat at once; later a
    computer holds the seat for them to take back while the game goes on."""
    reconnect_wait_seconds: float = 30.0
    """After a player drops, a turn of theirs waits this long (from the drop) for them to
    come back before the stand-in computer plays it; the turn timer runs on meanwhile."""
    restart_grace_seconds: float = 600.0
    """After the server comes back, the players of a restored table keep their seats this
    long, and their turns wait for them as long (computers play their own seats at once)."""
    bot_delay: float = 0.6
    """Seconds a computer player "thinks" at least, so humans can follow (0 in tests)."""
    trick_pause: float = 1.5
    """A finished trick stays in view until the next trick's first tile: a computer waits
    at least this long before it leads (0 in tests)."""
    bot_time_budget: float = 1.0
    """Seconds per decision for the searching (expert) level."""
    bot_workers: int = field(default_factory=default_size)
    """Processes the searching computers think in (one per core by default), shared by
    every table; the quick levels decide in the lobby's own process."""
    chat_max_chars: int = 300
    chat_lines_per_10s: int = 5
    queue_size: int = 256
    """Bound of each session's event queue (after coalescing)."""
    operators: frozenset[str] = frozenset()
    """Names that are operators even when they connect without `operator=True`."""
    motd: str = ""
    """Shown as a Notice to each session that connects, unless a table holds a place for
    its player: they go straight back to it (nothing when empty)."""
    kick_minutes: float = 10.0
    """A kicked player is kept out this long unless the operator says otherwise."""
    board_minutes: float = 60.0
    """An operator's broadcast stays on the lobby's notice board this long unless the
    operator says otherwise (or another replaces it)."""
    hand_pause: float = 2.0
    """Seconds between the end of a hand and the next deal, to see the last trick."""
    hand_result_seconds: float = 10.0
    """A hand's result stays until every seated player still connected has seen it (a
    key, `HandSeen`), or this long at most (never less than `hand_pause`)."""
    stand_in_level: BotLevel = "normal"
    """The computer that plays for an away player or when a turn timer runs out."""
    timer_scale: float = 1.0
    """Real seconds per unit of a table's `turn_seconds` (tests shrink it)."""
    lobby_update_interval: float = 0.1
    """At most one round of LobbyUpdates this often: a burst of table changes is sent as
    one (the first change after a quiet spell goes out at once)."""
    lobby_redraws_per_second: int = 120
    """A round for a table change reaches this many sessions per second, a few every
    0.025 s: with 120 players in the lobby, the last sees the change a second later, and
    the server never redraws them all in one go. A lobby redraw costs ~3.5 ms of server
    CPU (measured), so this caps the cost of table changes at ~40% of a core."""
    presence_update_interval: float = 1.0
    """Players coming and going alone (no table changed) are published at most this often,
    and less often in a big club: every session redraws for each round, so the gap grows
    to one second per `presence_redraws_per_second` players online (10 s at 200)."""
    presence_redraws_per_second: int = 20
    """A presence round reaches this many sessions per second, one at a time, so the
    redraws are spread out instead of all landing on the server at one moment."""
    max_commands_pending: int = 64
    """Commands a session may have waiting in the lobby; more are rejected."""
    tables_per_hour: int = 30
    """New tables one person may open in any hour (operators are not counted): far more
    than anyone plays, and a bound on what a visitor opening and leaving tables costs."""
    tables_per_10_minutes: int = 6
    """New tables one person may open in any 10 minutes (operators are not counted): the
    hourly bound let four guests open a table every 2 s, and each opening (its form, its
    screens) held every other player's keys 50-70 ms (issue 36, bench/attacks.py 4)."""
