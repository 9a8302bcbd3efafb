"""Why the lobby or a table refuses a command: a code and its parameters, as data.

A refusal crosses to the interface as a `Rejected` event holding the code (a game rule's
`RuleBroken`, or the lobby's own `Refusal`) and plain parameters; the interface words it
from the code (`moon_tui.ui.refusals`), and nothing here is English.
"""

from __future__ import annotations

import enum

from ..rules.illegal import Breach, Param, RuleBroken


class Refusal(enum.StrEnum):
    """A lobby or table rule (not a game rule) that a command breaks."""

    # the lobby
    LOBBY_FAILED = "lobby_failed"
    SHUTTING_DOWN = "shutting_down"
    TOO_MANY_PENDING = "too_many_pending"
    NOT_A_COMMAND = "not_a_command"
    NO_SUCH_TABLE = "no_such_table"
    NO_SUCH_CODE = "no_such_code"
    TOO_MANY_CODES = "too_many_codes"
    OPERATOR_ONLY = "operator_only"
    NOT_ONLINE = "not_online"
    NOT_YOURSELF = "not_yourself"
    NO_INVITATIONS = "no_invitations"
    TOO_MANY_INVITES = "too_many_invites"
    BAD_MINUTES = "bad_minutes"
    BAD_RESTART = "bad_restart"
    NO_RESTART = "no_restart"
    RESTART_BY_SYSTEM = "restart_by_system"
    RESTART_UNAVAILABLE = "restart_unavailable"
    NOT_RULES = "not_rules"
    BAD_RULES = "bad_rules"
    BAD_TIMER = "bad_timer"
    CHAT_EMPTY = "chat_empty"
    CHAT_TOO_LONG = "chat_too_long"
    CHAT_TOO_FAST = "chat_too_fast"
    TOO_MANY_TABLES = "too_many_tables"
    PRACTICE_NOT_RATED = "practice_not_rated"
    BAD_PLAY_ON = "bad_play_on"
    CANNOT_SAVE = "cannot_save"
    # a table
    TABLE_FAILED = "table_failed"
    TABLE_CLOSING = "table_closing"
    TABLE_CLOSED = "table_closed"
    BUS_AWAY = "bus_away"
    NOT_AT_TABLE = "not_at_table"
    NOT_A_TABLE_COMMAND = "not_a_table_command"
    OWNER_ONLY = "owner_only"
    GAME_STARTED = "game_started"
    PRIVATE_TABLE = "private_table"
    ALREADY_SEATED = "already_seated"
    STARTED_NO_SPECTATORS = "started_no_spectators"
    STARTED_WATCH_ONLY = "started_watch_only"
    NO_FREE_SEAT = "no_free_seat"
    SEAT_TAKEN = "seat_taken"
    ALREADY_WATCHING = "already_watching"
    NO_SPECTATORS = "no_spectators"
    NO_SUCH_SEAT = "no_such_seat"
    NO_SUCH_LEVEL = "no_such_level"
    SEAT_NOT_FREE = "seat_not_free"
    NO_BOT_AT_SEAT = "no_bot_at_seat"
    SEATS_EMPTY = "seats_empty"
    SPECTATOR_CANNOT_PLAY = "spectator_cannot_play"
    GAME_NOT_STARTED = "game_not_started"
    NOT_AN_ACTION = "not_an_action"
    CLAIM_NOT_YOUR_LEAD = "claim_not_your_lead"
    CLAIM_CHECKING = "claim_checking"
    CLAIM_NOT_PROVEN = "claim_not_proven"
    CLAIM_UNCHECKED = "claim_unchecked"
    REMATCH_NOT_OVER = "rematch_not_over"
    REMATCH_SEATED_ONLY = "rematch_seated_only"
    REMATCH_SEATS_EMPTY = "rematch_seats_empty"
    SEAT_NOT_AWAY = "seat_not_away"
    SEATED_ONLY = "seated_only"
    PRACTICE_ALONE = "practice_alone"


ECHO_MAX = 24
"""The most characters of a value a client sent that a refusal quotes back."""
SEAT_ECHOED = 1000
"""A seat number sent that a refusal quotes as a number (a screen counts it from 1);
past it, as `echoed` text."""


def echoed(value: object) -> str:
    """A value a client sent, as a refusal quotes it: its `repr` (a text in quotes, `30.0`
    for a timer that must be a whole number), cut to `ECHO_MAX` characters."""
    try:
        text = repr(value)
    except ValueError:  # an integer of more digits than Python will write
        text = "(a number too long)"
    return text if len(text) <= ECHO_MAX else text[:ECHO_MAX - 1] + "…"


def echoed_seat(seat: object) -> Param:
    """A seat a client sent, as a refusal quotes it: a number a screen counts from 1, or
    (not a whole number, or past `SEAT_ECHOED`) `echoed` text."""
    return seat if type(seat) is int and abs(seat) < SEAT_ECHOED else echoed(seat)


class Refused(Exception):
    """A command the lobby or a table will not carry out: the code and its parameters.

    `str()` is the code and the parameters, for logs.
    """

    def __init__(self, code: Refusal | RuleBroken, /, **params: Param) -> None:
        super().__init__(code.value, params)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        return f"{self.code.value} {self.params}" if self.params else self.code.value

    def __reduce__(self) -> tuple[object, tuple[Refusal | RuleBroken, dict[str, Param]]]:
        """Whole across processes: `args` holds the code's value, not the code."""
        return _refused, (self.code, self.params)

    @classmethod
    def illegal(cls, breach: Breach) -> Refused:
        """A game rule broken by a command's action."""
        return cls(breach.rule, **breach.params())


def _refused(code: Refusal | RuleBroken, params: dict[str, Param]) -> Refused:
    return Refused(code, **params)
