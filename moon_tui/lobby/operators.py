"""An operator's command, checked and bounded before the lobby carries it out.

What an operator may ask is decided here, from the command alone: words cut to
`OPERATOR_TEXT_MAX` characters (they reach other players' screens), a kick or a note on
the board kept 0 to `MINUTES_MAX` minutes (the configured default when none is given), a
restart 0 to `RESTART_MAX_SECONDS` away, nobody kicking or banning themselves. The lobby
then performs what comes back; the news other workers send of such commands is held to
the same bounds (`server/bus_news.py`).
"""

from __future__ import annotations

from dataclasses import replace

from .chat import clean_text
from .config import LobbyConfig
from .messages import Ban, Broadcast, CloseTable, Kick, OperatorCommand, Restart, SetMotd
from .refusals import Refusal, Refused, echoed

OPERATOR_TEXT_MAX = 500
"""The longest broadcast, message of the day, or reason for a kick, ban or closed table
(the operator dialog stops typing there too)."""
RESTART_MAX_SECONDS = 3600
"""The longest restart countdown an operator may give."""
MINUTES_MAX = 7 * 24 * 60
"""The longest an operator may keep a kicked player out, or a note on the board."""


def checked(command: OperatorCommand, by: str, config: LobbyConfig) -> OperatorCommand:
    """`command`, from the operator `by`, as the lobby carries it out; `Refused` if it
    may not be."""
    if isinstance(command, Broadcast):
        return replace(command, text=_cut(command.text),
                       minutes=_minutes(command.minutes, config.board_minutes))
    if isinstance(command, Kick):
        command = replace(command, minutes=_minutes(command.minutes, config.kick_minutes))
    if isinstance(command, Kick | Ban):
        if command.name == by:
            raise Refused(Refusal.NOT_YOURSELF)
        return replace(command, reason=_cut(command.reason))
    if isinstance(command, CloseTable):
        return replace(command, reason=_cut(command.reason))
    if isinstance(command, SetMotd):
        return SetMotd(clean_text(str(command.text))[:OPERATOR_TEXT_MAX])
    if isinstance(command, Restart):
        seconds = command.seconds
        if isinstance(seconds, bool) or not isinstance(seconds, int) \
                or not 0 <= seconds <= RESTART_MAX_SECONDS:
            raise Refused(Refusal.BAD_RESTART, seconds=echoed(seconds),
                          limit=RESTART_MAX_SECONDS)
        return Restart(seconds, clean_text(str(command.message))[:config.chat_max_chars])
    return command


def _cut(text: object) -> str:
    """An operator's words cut to `OPERATOR_TEXT_MAX` characters (screens show them as
    plain text, control characters dropped: `ui/plain.py`)."""
    return str(text)[:OPERATOR_TEXT_MAX]


def _minutes(minutes: object, default: float) -> float:
    if minutes is None:
        return default
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) \
            or not 0 <= minutes <= MINUTES_MAX:
        typed = int(minutes) if isinstance(minutes, float) and minutes.is_integer() \
            else minutes  # 99999999m was read as 99999999.0 minutes
        raise Refused(Refusal.BAD_MINUTES, minutes=echoed(typed), limit=MINUTES_MAX)
    return minutes
