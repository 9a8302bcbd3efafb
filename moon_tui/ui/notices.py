"""What the lobby and the tables tell a player unasked, in the player's words.

The lobby sends notices, reasons for leaving a table and reasons for ending a session as
codes with parameters (`moon_tui/lobby/notices.py`); this module is the one place that
words them, as `refusals.py` words refusals. Seats count from 1, as on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..lobby.messages import Disconnected, Notice, TableLeft
from ..lobby.notices import Ending, Leave, Tell
from ..rules import Action, Tile
from ..rules.illegal import Param
from .dominoes import small_tile
from .door_words import RESTART_MESSAGE, SHUTDOWN_MESSAGE
from .words import action_words

Params = Mapping[str, Param]


def _action(params: Params) -> str:
    """`played [5|1]`, `passed`, `bid 5`, `discarded [4|2]`, `named trump 3s`."""
    try:
        action = Action.parse(str(params.get("action", "")))
    except ValueError:
        return str(params.get("action", ""))
    return action_words(action)


def _said(params: Params, key: str = "reason") -> str:
    reason = str(params.get(key, "")).strip()
    return f": {reason}" if reason else ""


def _by(params: Params) -> str:
    by = str(params.get("by", ""))
    return f"an operator ({by})" if by else "the server"


def minutes_words(minutes: Param | None) -> str:
    """`1 minute`, `30 minutes`, `2 hours`, `1 day`."""
    count = minutes if isinstance(minutes, int) else 0
    for size, unit in ((24 * 60, "day"), (60, "hour")):
        if count >= size and count % size == 0:
            count //= size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{count} minute{'s' if count != 1 else ''}"


def _kept_out(params: Params) -> str:
    minutes = params.get("minutes")
    return f" for {minutes_words(minutes)}" if minutes else ""


TELL: dict[Tell, Callable[[Params], str]] = {
    Tell.MESSAGE_OF_THE_DAY: lambda p: str(p.get("text", "")),
    Tell.BROADCAST: lambda p: str(p.get("text", "")),
    Tell.SERVER_STOPPING: lambda p: RESTART_MESSAGE if p.get("restart") else SHUTDOWN_MESSAGE,
    Tell.BANNED: lambda p: f"{p.get('name')} is banned: the name, its keys, and for a while "
                           "guests and new names from its last addresses.",
    Tell.KICKED: lambda p: f"{p.get('name')} was removed" + (
        f" and is kept out for {minutes_words(p.get('minutes'))} (unban lets them back "
        "sooner)." if p.get("minutes") else "."),
    Tell.UNBANNED: lambda p: f"{p.get('name')} may log in again.",
    Tell.NOT_BANNED: lambda p: f"{p.get('name')} was not banned or kept out.",
    Tell.MOTD_SET: lambda p: ("The message of the day is now: " + str(p.get("text")))
                             if p.get("text") else
                             "The message of the day is the server's configured one again.",
    Tell.BOARD_CLEARED: lambda p: "The notice board is empty now.",
    Tell.INVITED: lambda p: f"{p.get('by')} invites you to {p.get('table')}: "
                            "press y in the lobby to join (x turns invitations off).",
    Tell.INVITE_SENT: lambda p: f"{p.get('name')} is invited to {p.get('table')}.",
    Tell.INVITATIONS: lambda p: "Invitations are on: players can invite you to their table."
                                if p.get("on") else
                                "Invitations are off: nobody can invite you (x turns them "
                                "on again).",
    Tell.LEFT_FOR_COMPUTER: lambda p: (f"{p.get('name')} is away: a computer plays seat "
                                       f"{_seat(p)} until they take it back.")
                                      if p.get("held") else
                                      (f"{p.get('name')} left the table: a computer plays "
                                       f"seat {_seat(p)} from now on."),
    Tell.NOW_OWNER: lambda p: f"You now own {p.get('table')}: you start the next game.",
    Tell.CLAIMED: lambda p: _claimed(p),
    Tell.TIMED_OUT_PLAYED: lambda p: f"Your time ran out: the computer {_action(p)} for you.",
    Tell.TIMED_OUT_PASSED: lambda p: "Your time ran out: you passed.",
    Tell.TIMED_OUT_BID: lambda p: f"Your time ran out: you bid {p.get('bid')}, the least "
                                  "you could.",
    Tell.CANNOT_SAVE: lambda p: "The server cannot save right now: the game waits (and "
                                "goes on by itself once it can; the operators are told).",
    Tell.SAVING_AGAIN: lambda p: "The server saves again: the game goes on.",
    Tell.TABLE_COMING_BACK: lambda p: f"Your table {p.get('table')} is coming back: the "
                                      "club's server that ran it stopped, and another one "
                                      "takes it up where it was. You will be back in your "
                                      "seat in a few seconds.",
    Tell.SEAT_WAITS: lambda p: f"Your game at {p.get('table')} goes on: Enter takes your "
                               "seat back.",
    Tell.WHILE_AWAY: lambda p: while_away_words(p),
    Tell.TOOK_SEAT_BACK: lambda p: f"{p.get('name')} is back in seat {_seat(p)}.",
    Tell.JOINED_SEAT: lambda p: f"{p.get('name')} took the computer's seat {_seat(p)}.",
    Tell.SEATS_OPENED: lambda p: "Newcomers may now take a computer's seat (o closes them)."
                                 if p.get("open") else
                                 "The computers' seats are no longer open to newcomers.",
    Tell.HANDOVER_ASKED: lambda p: f"{p.get('name')} asks that a computer play seat "
                                   f"{_seat(p)} now ({p.get('votes')} of {p.get('needed')}; "
                                   "h to agree).",
    Tell.HANDED_OVER: lambda p: f"A computer plays for {p.get('name')} now"
                                + (f" ({p.get('by')} asked)." if p.get("by") else
                                   " (everyone here asked)."),
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
    Ending.KICKED: lambda p: f"you were removed by {_by(p)}{_kept_out(p)}{_said(p)}",
    Ending.BANNED: lambda p: f"you were banned by {_by(p)}{_said(p)}",
}


def _claimed(params: Params) -> str:
    """`ann claimed the rest: 2 tricks, played out at once: [6|6] [5|1] [4|0] · [6|5]
    [3|1] [2|0]` (the tiles of each trick in the order played)."""
    tricks = params.get("tricks")
    count = tricks if isinstance(tricks, int) and tricks > 0 else 1
    plays = params.get("plays")
    tiles = [small_tile(Tile.parse(t)) for t in plays] if isinstance(plays, tuple) else []
    size = max(1, len(tiles) // count)
    shown = " · ".join(" ".join(tiles[i:i + size]) for i in range(0, len(tiles), size))
    who = params.get("name") or f"seat {_seat(params)}"
    what = "the last trick" if count == 1 else f"the {count} tricks left"
    return f"{who} claimed {what}, played out at once: {shown}"


def while_away_words(params: Params) -> str:
    """`While you were away: the computer passed, discarded [4|2] and named trump 3s`;
    plays run together: `…played [5|1], [6|6]`."""
    texts = [t for t in str(params.get("actions", "")).split(";") if t]
    parts: list[str] = []
    for text in texts:
        said = _action({"action": text})
        if parts and said.startswith("played ") and parts[-1].startswith("played "):
            parts[-1] += ", " + said.removeprefix("played ")
        else:
            parts.append(said)
    more = params.get("more")
    earlier = f"(after {more} earlier choices) " if isinstance(more, int) and more else ""
    listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else \
        "".join(parts)
    return f"While you were away: the computer {earlier}{listed}."


def _seat(params: Params) -> str:
    seat = params.get("seat")
    return str(seat + 1) if isinstance(seat, int) else str(seat)


def notice_words(notice: Notice) -> str:
    return TELL[notice.code](notice.params)


def notice_title(notice: Notice) -> str:
    """Who speaks, for a toast's title: an operator's broadcast names its sender."""
    if notice.code is Tell.BROADCAST:
        return f"From {_by(notice.params)}"
    if notice.code is Tell.SERVER_STOPPING:
        return "From the server"
    if notice.code is Tell.INVITED:
        return "Invitation"
    if notice.code is Tell.CLAIMED:
        return "Claim"

    return ""


GUEST_SEAT_ON_STOPPING = ("The server is shutting down: the game is saved and goes on "
                          "when it is back, with a computer in your seat (a guest's name "
                          "lasts one visit).")
"""A guest comes back under a new name, so the seat that waits is not theirs to take."""


def left_words(left: TableLeft, *, guest: bool = False) -> str:
    if guest and left.reason is Leave.SERVER_STOPPING:
        return GUEST_SEAT_ON_STOPPING
    return LEAVE[left.reason](left.params)


def ending_words(ended: Disconnected) -> str:
    return ENDING[ended.reason](ended.params)
