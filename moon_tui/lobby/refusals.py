"""Why the lobby or a table refuses a command: a code and its parameters, as data.

A refusal crosses to the interface as a `Rejected` event holding the code (a game rule's
`RuleBroken`, or the lobby's own `Refusal`) and plain parameters; the interface words it
from the code. The English here is the lobby's own, for logs and tests.
"""

from __future__ import annotations

import enum

from ..rules.actions import Action
from ..rules.illegal import Breach, IllegalActionError, Param, RuleBroken


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


ENGLISH: dict[Refusal, str] = {
    Refusal.LOBBY_FAILED: "the lobby could not do that",
    Refusal.SHUTTING_DOWN: "the server is shutting down",
    Refusal.TOO_MANY_PENDING: "too many commands at once: wait for the answers",
    Refusal.NOT_A_COMMAND: "not a command: {command}",
    Refusal.NO_SUCH_TABLE: "there is no table {table_id}",
    Refusal.NO_SUCH_CODE: "no table has the invite code {code!r}",
    Refusal.TOO_MANY_CODES: "too many wrong invite codes: wait a minute",
    Refusal.OPERATOR_ONLY: "only an operator may do that",
    Refusal.NOT_ONLINE: "{name} is not online",
    Refusal.NOT_YOURSELF: "an operator does not kick or ban themselves",
    Refusal.NO_INVITATIONS: "{name} has turned invitations off",
    Refusal.TOO_MANY_INVITES: "at most {invites} invitations a minute: wait a moment",
    Refusal.BAD_MINUTES: "a time is 0 to {limit} minutes, not {minutes}",
    Refusal.BAD_RESTART: "a restart is 0 to {limit} seconds away, not {seconds}",
    Refusal.NO_RESTART: "no restart is counting down",
    Refusal.RESTART_BY_SYSTEM: "the server's system asked it to stop: that restart cannot "
                               "be called off",
    Refusal.RESTART_UNAVAILABLE: "this server cannot restart from the game",
    Refusal.NOT_RULES: "the rules must be a Rules value",
    Refusal.BAD_RULES: "{problem}",
    Refusal.BAD_TIMER: "the turn timer is 1 to 3600 seconds (or none), not {seconds}",
    Refusal.CHAT_EMPTY: "an empty chat line",
    Refusal.CHAT_TOO_LONG: "a chat line is at most {limit} characters, not {length}",
    Refusal.CHAT_TOO_FAST: "at most {lines} chat lines every {seconds} seconds: wait a moment",
    Refusal.TOO_MANY_TABLES: "at most {tables} new tables in {window} min: the next in "
                             "{minutes} min",
    Refusal.PRACTICE_NOT_RATED: "a practice table is never rated",
    Refusal.BAD_PLAY_ON: "cannot play on from there: {problem}",
    Refusal.CANNOT_SAVE: "the server cannot save right now: new games wait until it can",
    Refusal.TABLE_FAILED: "the table could not do that command",
    Refusal.TABLE_CLOSING: "table {table_id} is closing",
    Refusal.TABLE_CLOSED: "table {table_id} has closed",
    Refusal.BUS_AWAY: "the club's servers cannot reach each other: not sent to {table_id}",
    Refusal.NOT_AT_TABLE: "you are not at table {table_id}",
    Refusal.NOT_A_TABLE_COMMAND: "a table cannot do {command}",
    Refusal.OWNER_ONLY: "only the table's owner ({owner}) may {what}",
    Refusal.GAME_STARTED: "the game has started: you cannot {what} now",
    Refusal.PRIVATE_TABLE: "table {table_id} is private: join it with its invite code",
    Refusal.ALREADY_SEATED: "you already sit at seat {seat}",
    Refusal.STARTED_NO_SPECTATORS:
        "the game has started and this table does not allow spectators",
    Refusal.STARTED_WATCH_ONLY: "the game has started: you can only watch it",
    Refusal.NO_FREE_SEAT: "table {table_id} has no free seat",
    Refusal.SEAT_TAKEN: "seat {seat} is taken by {by}",
    Refusal.ALREADY_WATCHING: "you already watch table {table_id}",
    Refusal.NO_SPECTATORS: "table {table_id} does not allow spectators",
    Refusal.NO_SUCH_SEAT: "there is no seat {seat}: seats are 0 to {last}",
    Refusal.NO_SUCH_LEVEL: "no computer level {level}: one of {levels}",
    Refusal.SEAT_NOT_FREE: "seat {seat} is not free",
    Refusal.NO_BOT_AT_SEAT: "no computer player sits at seat {seat}",
    Refusal.SEATS_EMPTY: "every seat must be filled to start: add computer players or wait",
    Refusal.SPECTATOR_CANNOT_PLAY: "only a seated player can play; spectators watch",
    Refusal.GAME_NOT_STARTED: "the game has not started",
    Refusal.NOT_AN_ACTION: "not an action: {action}",
    Refusal.CLAIM_NOT_YOUR_LEAD: "you can claim the rest only when you are to lead a trick",
    Refusal.CLAIM_CHECKING: "your claim is being checked",
    Refusal.CLAIM_NOT_PROVEN: "the rest is not surely yours: {tricks} tricks left, and "
                              "some play of the others takes one; play on",
    Refusal.CLAIM_UNCHECKED: "the claim could not be checked now; play on",
    Refusal.REMATCH_NOT_OVER: "a rematch is only possible once a game is over",
    Refusal.REMATCH_SEATED_ONLY: "only seated players vote for a rematch",
    Refusal.REMATCH_SEATS_EMPTY: "every seat must be filled for a rematch",
    Refusal.SEAT_NOT_AWAY: "nobody is away at seat {seat}",
    Refusal.SEATED_ONLY: "only the owner and the seated players may {what}",
    Refusal.PRACTICE_ALONE: "table {table_id} is a practice table: one player only",
}
"""The lobby's English for each refusal, filled from its parameters."""


class Refused(Exception):
    """A command the lobby or a table will not carry out: the code and its parameters.

    `str()` is the reason in the lobby's English (for logs and tests).
    """

    def __init__(self, code: Refusal | RuleBroken, reason: str | None = None, /,
                 **params: Param) -> None:
        if reason is None:
            assert isinstance(code, Refusal), "a game rule's reason comes from the engine"
            reason = ENGLISH[code].format(**params)
        super().__init__(reason)
        self.code = code
        self.params = params

    @classmethod
    def illegal(cls, breach: Breach, action: Action) -> Refused:
        """A game rule broken by `action`, in the engine's words."""
        return cls(breach.rule, str(IllegalActionError(breach, action=action)),
                   **breach.params())

