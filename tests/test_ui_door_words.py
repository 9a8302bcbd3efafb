"""What a person reads outside the game's screens (`ui/door_words.py`): the forms that
depend on a number or on a reason (the server's tests over SSH read the rest)."""

from __future__ import annotations

from moon_tui.ui import door_words as words


def test_a_ban_and_a_kick_read_their_reason_and_how_long_is_left() -> None:
    assert words.banned_words(kick=False, reason="", minutes_left=0) == (
        "You are banned from this server.")
    assert words.banned_words(kick=False, reason="spam", minutes_left=0) == (
        "You are banned from this server: spam")
    assert words.banned_words(kick=True, reason="rude", minutes_left=1) == (
        "An operator sent you away: you may come back in 1 more minute: rude")
    assert words.banned_words(kick=True, reason="", minutes_left=30).endswith(
        "in 30 more minutes.")


def test_an_address_kept_out_says_for_how_long_or_that_it_is_banned() -> None:
    assert "kept out for 2 more minutes by an operator" in words.address_kept_out_words(2)
    assert "are banned for now by an operator" in words.address_kept_out_words(None)


def test_a_wrong_code_counts_the_tries_left() -> None:
    assert words.wrong_code_words(2).endswith(": 2 tries left.")
    assert words.wrong_code_words(1).endswith(": 1 try left.")
    assert words.wrong_code_words(0).endswith(
        ". The key was not added: make a new code in your keys dialog.")


def test_the_new_key_prompt_names_the_name_and_where_the_code_is() -> None:
    said = words.new_key_words("ann")
    assert said.startswith("This key is new to ann.\nIf ann is you, type ")
    assert words.CODE_PROMPT in said
