"""The player's model: what it keeps of the lobby's refusals."""

from __future__ import annotations

import pytest

from moon_tui.lobby.messages import CreateTable, JoinSeat, Rejected
from moon_tui.lobby.refusals import Refusal
from moon_tui.services import AccountRefusal
from moon_tui.ui import account_words
from moon_tui.ui.model import Model
from moon_tui.ui.plain import QUOTED_MAX
from moon_tui.ui.refusals import refusal_words


def _too_many(minutes: int) -> Rejected:
    return Rejected(CreateTable("mine"), Refusal.TOO_MANY_TABLES,
                    {"tables": 30, "minutes": minutes})


def test_a_refused_table_is_refused_again_only_while_the_lobby_surely_would() -> None:
    model = Model("ann")
    assert model.table_refusal(0.0) is None
    model.note_refusal(_too_many(50), 1000.0)
    # The lobby said 50 minutes, rounded up: its wait is over 49 minutes, at most 50.
    later = model.table_refusal(1000.0 + 20 * 60)
    assert later is not None and later.params == {"tables": 30, "minutes": 30}
    assert refusal_words(later).startswith("you opened 30 tables within the hour: you may "
                                           "open another in 30 minutes")
    assert model.table_refusal(1000.0 + 49 * 60 - 1) is not None
    assert model.table_refusal(1000.0 + 49 * 60) is None  # the lobby may say yes by now


def test_other_refusals_are_not_kept() -> None:
    model = Model("ann")
    none = Rejected(JoinSeat("t1"), Refusal.NO_SUCH_TABLE, {"table_id": "t1"})
    model.note_refusal(none, 0.0)
    assert model.table_refusal(1.0) is None


def test_rules_that_do_not_fit_together_are_named_with_the_forms_words() -> None:
    """The lobby names the option at fault; the screen says it as the new-table form does
    (the rules' own text is for a command line)."""
    refused = Rejected(CreateTable("mine"), Refusal.BAD_RULES, {"option": "discard_shown"})
    assert refusal_words(refused) == ("the option “The discard is laid face up” does not "
                                      "apply to this game")
    unknown = Rejected(CreateTable("mine"), Refusal.BAD_RULES, {"option": "colour"})
    assert "“colour”" in refusal_words(unknown)


def test_a_refused_time_gives_the_limit_in_days_too() -> None:
    refused = Rejected(CreateTable("mine"), Refusal.BAD_MINUTES,
                       {"minutes": "99999999", "limit": 10080})
    assert refusal_words(refused) == "a time is 0 to 10080 minutes (7 days), not 99999999"


@pytest.mark.parametrize("why", list(AccountRefusal))
def test_every_refusal_of_keys_and_members_has_words_quoting_the_name_plainly(
    why: AccountRefusal,
) -> None:
    said = account_words.refusal_words(why, "[b]x\x1b[2J" + "y" * 100)
    assert said and said.endswith(".") and "\x1b" not in said
    assert "y" * (QUOTED_MAX + 1) not in said
