"""The one-time codes of the keys dialog: random, short-lived, single use, few per name."""

from __future__ import annotations

from server.config import Limits
from server.link_codes import ALPHABET, CODE_LENGTH, LinkCodes, grouped, normalise


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_code_is_made_of_unambiguous_characters_and_typed_loosely() -> None:
    codes = LinkCodes()
    code = codes.issue("ann")
    assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
    assert not set("0O1IL") & set(ALPHABET)
    assert normalise(f" {grouped(code).lower()} ") == code
    assert codes.redeem("ann", grouped(code).lower())


def test_a_code_expires_after_its_lifetime() -> None:
    clock = Clock()
    codes = LinkCodes(Limits(link_code_minutes=10), clock)
    code = codes.issue("ann")
    clock.now += 10 * 60 - 1
    assert codes.pending("ann")
    clock.now += 1
    assert not codes.pending("ann")
    assert not codes.redeem("ann", code)


def test_a_name_has_a_few_codes_at_most_and_the_oldest_goes() -> None:
    codes = LinkCodes(Limits(link_codes_per_name=2))
    first, second, third = (codes.issue("ann") for _ in range(3))
    assert not codes.redeem("ann", first)
    assert codes.redeem("ann", third) and codes.redeem("ann", second)
    assert not codes.pending("ann")


def test_wrong_codes_never_withdraw_the_owners_code() -> None:
    # 21 wrong codes withdrew the owner's code, and their real new key was refused: the
    # guesser now pays (their address, server/linking.py), never the owner.
    codes = LinkCodes()
    code = codes.issue("ann")
    wrong = "AAAAAAAA" if code != "AAAAAAAA" else "BBBBBBBB"
    for _ in range(100):
        assert not codes.redeem("ann", wrong)
    assert codes.pending("ann")
    assert codes.redeem("ann", code)


def test_expired_codes_of_other_names_are_forgotten() -> None:
    clock = Clock()
    codes = LinkCodes(clock=clock)
    for name in ("ann", "bob", "cat"):
        codes.issue(name)
    clock.now += 3600
    codes.issue("dan")
    assert set(codes._names) == {"dan"}
