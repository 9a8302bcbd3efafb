"""What the lobby and its tables tell a player unasked, as codes and parameters.

Like a refusal (`refusals.py`), a notice, a reason for leaving a table and a reason for
ending a session cross to the interface as data; `moon_tui/ui/notices.py` is the one
place that words them. Parameters are plain values: names, numbers, an action's text
form (`play 5-1`), text a person typed (shown as plain text, never as markup).
"""

from __future__ import annotations

import enum


class Tell(enum.StrEnum):
    """A notice (`Notice.code`)."""

    MESSAGE_OF_THE_DAY = "motd"
    """text: the club's message of the day."""
    BROADCAST = "broadcast"
    """text, by: an operator's words to everyone."""
    SERVER_STOPPING = "server_stopping"
    """restart (0 or 1): the server stops now (and starts again); the tables wait."""
    BANNED = "banned"
    """name: the operator's own ban took effect."""
    KICKED = "kicked"
    """name, minutes: the operator's own kick took effect; the name is kept out so long."""
    UNBANNED = "unbanned"
    """name: the operator's unban took effect."""
    NOT_BANNED = "not_banned"
    """name: the operator's unban found no ban of that name."""
    MOTD_SET = "motd_set"
    """text: the operator's new message of the day ("": back to the configured one)."""
    BOARD_CLEARED = "board_cleared"
    """The operator's note came off the notice board."""
    INVITED = "invited"
    """by, table, table_id, code: an invitation to join a table."""
    INVITE_SENT = "invite_sent"
    """name, table: the sender's invitation reached `name`."""
    INVITATIONS = "invitations"
    """on: the recipient's invitations are on (True) or off now."""
    LEFT_FOR_COMPUTER = "left_for_computer"
    """name, seat, held (optional, 1): a player left mid-game, or (held) stayed away past
    the grace; a computer plays the seat (held: until they take it back)."""
    NOW_OWNER = "now_owner"
    """table: the owner left; the recipient owns the table now."""
    CLAIMED = "claimed"
    """name, seat, tricks, plays: `name` claimed the rest; the `tricks` tricks left were
    played out at once, `plays` their tiles in the order played (text like `6-4`)."""
    TIMED_OUT_PLAYED = "timed_out_played"
    """action: the turn timer ran out; the computer made this decision."""
    TIMED_OUT_PASSED = "timed_out_passed"
    """The turn timer ran out in the auction: the recipient passed."""
    TIMED_OUT_BID = "timed_out_bid"
    """bid: the turn timer ran out in the auction and the recipient had to bid."""
    CANNOT_SAVE = "cannot_save"
    """table_id: the server cannot write the table's last decision (a full disk): the
    table waits, showing nothing new, until it can."""
    SAVING_AGAIN = "saving_again"
    """table_id: the table's decisions are written again: the game goes on."""
    TABLE_COMING_BACK = "table_coming_back"
    """table: the club's server that ran the recipient's table stopped; another takes it
    up from where it was, and the recipient is back at it then (`peers.py`)."""
    SEAT_WAITS = "seat_waits"
    """table, table_id, seat: the recipient's game goes on there with a computer in their
    seat, which they may take back."""
    WHILE_AWAY = "while_away"
    """actions (the text forms, `;` between them), more (how many earlier ones are not
    listed): what the computer chose for the recipient while they were away."""
    TOOK_SEAT_BACK = "took_seat_back"
    """name, seat: a player took their seat back from the computer."""
    JOINED_SEAT = "joined_seat"
    """name, seat: a person took a computer's seat in the game."""
    SEATS_OPENED = "seats_opened"
    """open: the owner lets newcomers take a computer's seat (1), or no longer (0)."""
    HANDOVER_ASKED = "handover_asked"
    """name, seat, votes, needed: a player asks that a computer play for the absent player
    of `seat` at once."""
    HANDED_OVER = "handed_over"
    """name, seat, by: a computer plays for the absent `name` at once (`by` asked: the
    owner, or "" for everyone present)."""


class Leave(enum.StrEnum):
    """Why the recipient is no longer at a table (`TableLeft.reason`)."""

    YOU_LEFT = "you_left"
    AWAY_TOO_LONG = "away_too_long"
    TABLE_FAILED = "table_failed"
    NOBODY_LEFT = "nobody_left"
    SERVER_STOPPING = "server_stopping"
    """The server stops and the table comes back with it: the seat waits."""
    SERVER_STOPPED = "server_stopped"
    """The server stops and nothing keeps the table (no journal)."""
    CLOSED_BY_OPERATOR = "closed_by_operator"
    """by, reason (may be empty)."""


class Ending(enum.StrEnum):
    """Why the lobby ended a session (`Disconnected.reason`)."""

    SHUTDOWN = "shutdown"
    TAKEN_OVER = "taken_over"
    """The same name connected from somewhere else."""
    TOO_SLOW = "too_slow"
    """The connection could not keep up with the events sent to it."""
    KICKED = "kicked"
    """by, reason (may be empty)."""
    BANNED = "banned"
    """by, reason (may be empty)."""
