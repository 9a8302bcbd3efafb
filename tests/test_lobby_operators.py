"""An operator's command checked and bounded, without a lobby (`lobby/operators.py`);
tests/test_lobby.py has the lobby carrying them out."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from moon_tui.lobby.config import LobbyConfig
from moon_tui.lobby.messages import (
    Ban,
    Broadcast,
    CancelRestart,
    ClearBoard,
    CloseTable,
    Kick,
    Restart,
    SetMotd,
    Unban,
)
from moon_tui.lobby.operators import (
    MINUTES_MAX,
    OPERATOR_TEXT_MAX,
    RESTART_MAX_SECONDS,
    checked,
)
from moon_tui.lobby.refusals import Refusal, Refused

CONFIG = LobbyConfig(board_minutes=30, kick_minutes=15)


def refused(command: object) -> tuple[Refusal, dict[str, object]]:
    with pytest.raises(Refused) as caught:
        checked(command, "op", CONFIG)  # type: ignore[arg-type]
    assert isinstance(caught.value.code, Refusal)
    return caught.value.code, dict(caught.value.params)


def test_the_configured_minutes_when_none_are_given() -> None:
    assert checked(Broadcast("hi"), "op", CONFIG) == Broadcast("hi", 30)
    assert checked(Kick("bob", "rude"), "op", CONFIG) == Kick("bob", "rude", 15)
    assert checked(Kick("bob", minutes=0), "op", CONFIG) == Kick("bob", "", 0)


@pytest.mark.parametrize(("minutes", "shown"), [
    (-1, "-1"), (MINUTES_MAX + 1, str(MINUTES_MAX + 1)), (99999999.0, "99999999"),
    (2.5e9, "2500000000"), (True, "True"), ("5", "'5'"), (float("nan"), "nan"),
    (float("inf"), "inf")])
def test_minutes_out_of_bounds_are_refused(minutes: object, shown: str) -> None:
    for command in (Broadcast("hi", minutes), Kick("bob", "", minutes)):  # type: ignore[arg-type]
        assert refused(command) == (Refusal.BAD_MINUTES,
                                    {"minutes": shown, "limit": MINUTES_MAX})


def test_nobody_kicks_or_bans_themselves() -> None:
    assert refused(Kick("op")) == (Refusal.NOT_YOURSELF, {})
    assert refused(Ban("op")) == (Refusal.NOT_YOURSELF, {})


@pytest.mark.parametrize("seconds", [-1, RESTART_MAX_SECONDS + 1, False, 2.5, "60"])
def test_a_restart_too_far_away_is_refused(seconds: object) -> None:
    assert refused(Restart(seconds)) == (  # type: ignore[arg-type]
        Refusal.BAD_RESTART, {"seconds": repr(seconds), "limit": RESTART_MAX_SECONDS})


def test_a_restarts_words_are_a_chat_lines_length_without_control_characters() -> None:
    restart = checked(Restart(60, "back \x1b[2Jsoon" + "!" * 1000), "op", CONFIG)
    assert isinstance(restart, Restart)
    assert restart.seconds == 60
    assert "\x1b" not in restart.message and restart.message.startswith("back ")
    assert len(restart.message) == CONFIG.chat_max_chars


@given(st.text(max_size=2 * OPERATOR_TEXT_MAX))
def test_an_operators_words_are_cut_to_the_bound(text: str) -> None:
    for command in (Broadcast(text), Kick("bob", text), Ban("bob", text),
                    CloseTable("t1", text), SetMotd(text)):
        words = checked(command, "op", CONFIG)
        said = words.text if isinstance(words, Broadcast | SetMotd) else \
            words.reason  # type: ignore[union-attr]
        assert len(said) <= OPERATOR_TEXT_MAX
        assert text.startswith(said) or isinstance(words, SetMotd)


def test_commands_without_words_or_numbers_pass_as_they_are() -> None:
    for command in (ClearBoard(), CancelRestart(), Unban("bob")):
        assert checked(command, "op", CONFIG) == command
