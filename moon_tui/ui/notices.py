"""What the lobby and the tables tell a player unasked, in the player's words.

The lobby sends notices, reasons for leaving a table and reasons for ending a session as
codes with parameters (`moon_tui/lobby/notices.py`); this module is the one place that
words them, as `refusals.py` words refusals. Seats count from 1, as on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..lobby.messages import Disconnected, Notice, TableLeft
from ..lobby.notices import Ending, Leave, Tell
from ..rules import TRUMP_DOUBLES, TRUMP_NONE, Action
from ..rules.illegal import Param
from .dominoes import small_tile
from .words import bid_words, trump_words

Params = Mapping[str, Param]


def _action(params: Params) -> str:
    """`played [5|1]`, `passed`, `bid 5`, `discarded [4|2]`, `named 3s trump`."""
    try:
        action = Action.parse(str(params.get("action", "")))
    except ValueError:
        return str(params.get("action", ""))
    if action.kind == "play" and action.tile is not None:
        return f"played {small_tile(action.tile)}"
    if action.kind == "discard" and action.tile is not None:
        return f"discarded {small_tile(action.tile)}"
    if action.kind == "trump" and action.trump is not None:
        # "named 3s trump", "named doubles", "named no trump"
        said = trump_words(action.trump)
        return f"named {said}" + ("" if action.trump in (TRUMP_DOUBLES, TRUMP_NONE) else " trump")
    if action.kind == "pass":
        return "passed"
    return f"bid {bid_words(action)}"


def _said(params: Params, key: str = "reason") -> str:
    reason = str(params.get(key, "")).strip()
    return f": {reason}" if reason else ""


def _by(params: Params) -> str:
    by = str(params.get("by", ""))
    return f"an operator ({by})" if by else "the server"


TELL: dict[Tell, Callable[[Params], str]] = {
    Tell.MESSAGE_OF_THE_DAY: lambda p: str(p.get("text", "")),
    Tell.BROADCAST: lambda p: str(p.get("text", "")),
    Tell.BANNED: lambda p: f"{p.get('name')} is banned: the name, its keys, and for a while "
                           "guests and new names from its last addresses.",
    Tell.LEFT_FOR_COMPUTER: lambda p: f"{p.get('name')} left the table: a computer plays "
                                      f"seat {_seat(p)} from now on.",
    Tell.NOW_OWNER: lambda p: f"You now own {p.get('table')}: you start the next game.",
    Tell.TIMED_OUT_PLAYED: lambda p: f"Your time ran out: the computer {_action(p)} for you.",
    Tell.TIMED_OUT_PASSED: lambda p: "Your time ran out: you passed.",
    Tell.TIMED_OUT_BID: lambda p: f"Your time ran out: you bid {p.get('bid')}, the least "
                                  "you could.",
}

LEAVE: dict[Leave, Callable[[Params], str]] = {
    Leave.YOU_LEFT: lambda p: "You left the table.",
    Leave.AWAY_TOO_LONG: lambda p: "You left the table: you were away too long.",
    Leave.TABLE_FAILED: lambda p: "The table ran into an error and had to close.",
    Leave.NOBODY_LEFT: lambda p: "The table closed: nobody is left at it.",
    Leave.SERVER_STOPPING: lambda p: "The server is shutting down: your table and your seat "
                                     "wait for you, and the game goes on when it is back.",
    Leave.SERVER_STOPPED: lambda p: "The table closed: the server is shutting down.",
    Leave.CLOSED_BY_OPERATOR: lambda p: f"The table was closed by {_by(p)}{_said(p)}.",
}

ENDING: dict[Ending, Callable[[Params], str]] = {
    Ending.SHUTDOWN: lambda p: "the server is shutting down",
    Ending.TAKEN_OVER: lambda p: "you connected from somewhere else",
    Ending.TOO_SLOW: lambda p: "your connection could not keep up",
    Ending.KICKED: lambda p: f"you were removed by {_by(p)}{_said(p)}",
    Ending.BANNED: lambda p: f"you were banned by {_by(p)}{_said(p)}",
}


def _seat(params: Params) -> str:
    seat = params.get("seat")
    return str(seat + 1) if isinstance(seat, int) else str(seat)


def notice_words(notice: Notice) -> str:
    return TELL[notice.code](notice.params)


def notice_title(notice: Notice) -> str:
    """Who speaks, for a toast's title: an operator's broadcast names its sender."""
    if notice.code is Tell.BROADCAST:
        return f"From {_by(notice.params)}"
    return ""


def left_words(left: TableLeft) -> str:
    return LEAVE[left.reason](left.params)


def ending_words(ended: Disconnected) -> str:
    return ENDING[ended.reason](ended.params)
