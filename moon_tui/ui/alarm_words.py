"""The operators' alarms in words (the server raises them as `services.Alarm` values)."""

from __future__ import annotations

import time

from ..services import (
    Alarm,
    BanNotSaved,
    Busy,
    BusyAdvice,
    DatabaseFailed,
    DatabaseStep,
    RaisedAlarm,
    RecordsWaiting,
    TablesWaiting,
)
from .plain import quoted

ERROR_SHOWN_MAX = 200
"""Characters of the database's own words kept (an error can quote a long statement)."""

_ADVICE = {
    BusyAdvice.FLOOD: "{strangers} connections did not log in (lately, or are logging in "
                      "now): the server is being flooded with connections. The log sums "
                      "them up per address ('from ADDRESS in the last 60 s'); a firewall "
                      "limit on new connections per address helps.",
    BusyAdvice.HOST: "While it fell behind the server itself hardly ran: something else "
                     "on this host is taking the CPU (another program, or a machine too "
                     "small or shared).",
    BusyAdvice.FEW_PLAYERS: "That is a lot of work for so few players: the log may say "
                            "what the server is busy with (a flood, a client misbehaving).",
    BusyAdvice.BURSTS: "Its own work held it up now and then, though it is not busy on the "
                       "whole: the log may say with what (a memory reclaim, a flood, a "
                       "client misbehaving).",
    BusyAdvice.FEWER_PLAYERS: "Fewer players per server, or a faster core, helps (README: "
                              "Capacity).",
}
_FAILED_STEP = {DatabaseStep.LOGIN: "a login failed", DatabaseStep.SESSION: "a session failed",
                DatabaseStep.NEW_KEY: "a player's new key could not be saved"}


def raised_words(raised: RaisedAlarm) -> str:
    """One line for the operator screen: the time it was raised, then the alarm."""
    return f"{time.strftime('%H:%M', time.localtime(raised.at))} {alarm_words(raised.alarm)}"


def alarm_words(alarm: Alarm) -> str:
    match alarm:
        case Busy():
            return busy_words(alarm)
        case DatabaseFailed(step, error):
            return f"{_FAILED_STEP[step]}: the database said '{_error(error)}'."
        case BanNotSaved(kick, name, error):
            what = "kick" if kick else "ban"
            return (f"the {what} of {quoted(name)} could "
                    f"not be saved ({_error(error)}): they are out now, but may log in "
                    f"again; {what} them again once the disk takes writes.")
        case RecordsWaiting(count, keep, retry_seconds, error):
            return (f"{count} game records could not be saved ({_error(error)}). They wait "
                    f"in memory (at most {keep}) and are retried every {retry_seconds:g} s: "
                    "free disk space or make the data folder writable.")
        case TablesWaiting(tables, error):
            waiting = (f"{tables} table{'s' if tables != 1 else ''} wait" if tables
                       else "no table waits yet")
            return (f"the database cannot be written ({_error(error)}): {waiting} and new "
                    "games are refused until it can. Free disk space or make the data "
                    "folder writable: the games go on by themselves.")


def busy_words(busy: Busy) -> str:
    """The busy alarm from its figures, with what to do about it."""
    facts = busy.load
    who = "The server" if busy.worker is None else \
        f"Worker {quoted(busy.worker)}"
    players = facts.players
    span = "minute" if facts.window_seconds == 60 else f"{facts.window_seconds:g} seconds"
    return (f"{who} is busy: in the last {span} its event loop fell "
            f"behind {facts.stalls} times by over {facts.stall_ms:.0f} ms "
            f"(up to {facts.longest_ms:.0f} ms), with {players} "
            f"{'player' if players == 1 else 'players'} on and {facts.cpu_share:.0%} of a "
            f"core in use. Keys feel slow. "
            f"{_ADVICE[busy.advice].format(strangers=busy.strangers)}")


def _error(error: str) -> str:
    return quoted(error, ERROR_SHOWN_MAX)
