"""A new table's options, checked before the lobby opens it: a pure function of the
command (the lobby then counts it against its person's tables and opens it)."""

from __future__ import annotations

from ..rules import Rules, RulesError
from .chat import clean_text
from .messages import TABLE_NAME_MAX, CreateTable
from .practice import start_of
from .refusals import Refusal, Refused, echoed

TIMER_MAX_SECONDS = 3600
"""The longest turn timer a table may have."""


def checked_table(command: CreateTable, by: str) -> CreateTable:
    """`command` from `by` as the lobby opens it: its name cleaned and bounded ("<by>'s
    table" when empty), its rules fit for a new table (a play-on's are the saved game's
    own, at a table of one's own that nobody watches), its timer 1 to
    `TIMER_MAX_SECONDS`, its flags plain booleans; `Refused` if it may not be opened."""
    rules, private, watchable = command.rules, command.private, command.spectators_allowed
    practice = bool(command.practice) or command.play_on is not None
    if practice and command.rated:
        raise Refused(Refusal.PRACTICE_NOT_RATED)
    if command.play_on is not None:
        # Options refused for a new table are still read from records.
        rules = start_of(command.play_on).rules
        private, watchable = True, False
    elif not isinstance(rules, Rules):
        raise Refused(Refusal.NOT_RULES)
    else:
        try:
            rules.check_new()
        except RulesError as exc:  # its words are the rules' own: a screen words it
            raise Refused(Refusal.BAD_RULES, option=exc.option) from None
    seconds = command.turn_seconds
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)
                                or not 1 <= seconds <= TIMER_MAX_SECONDS):
        raise Refused(Refusal.BAD_TIMER, seconds=echoed(seconds), limit=TIMER_MAX_SECONDS)
    name = clean_text(str(command.name))[:TABLE_NAME_MAX] or f"{by}'s table"
    return CreateTable(name, rules, seconds, bool(private), bool(watchable),
                       bool(command.rated), practice, command.play_on)
