"""The rules' refusal of options names the option at fault, as data (`RulesError.option`):
a screen words it (the lobby's `BAD_RULES`); the text is for command lines and logs."""

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from moon_tui.rules import Rules, RulesError

FIELDS = [f.name for f in dataclasses.fields(Rules)]
VALUES = st.one_of(st.integers(-5, 1005), st.booleans(), st.text(max_size=8),
                   st.sampled_from(["moon22", "moon21", "full28", "points", "marks",
                                    "tricks", "bid", "redeal", "force_last", "continue",
                                    "declarer"]))


@given(st.dictionaries(st.sampled_from([*FIELDS, "colour"]), VALUES, max_size=6))
def test_a_refusal_names_an_option_that_was_given_or_made(options: dict[str, object]) -> None:
    try:
        Rules.make(**options).check_new()
    except RulesError as exc:
        assert exc.option in options or exc.option in FIELDS, exc.option
        assert str(exc)


def test_a_new_tables_refusals_name_their_option() -> None:
    for options, option in (({"players": 4, "discard_shown": True}, "discard_shown"),
                            ({"set": "moon21", "trump_before_widow": True},
                             "trump_before_widow"),
                            ({"team_scoring": "bid"}, "team_scoring")):
        with pytest.raises(RulesError) as caught:
            Rules.make(**options).check_new()
        assert caught.value.option == option


def test_a_refusal_crosses_processes_whole() -> None:
    with pytest.raises(RulesError) as caught:
        Rules.make(min_bid=9)
    again = pickle.loads(pickle.dumps(caught.value))
    assert (str(again), again.option) == (str(caught.value), "min_bid")
