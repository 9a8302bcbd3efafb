"""Who a connection is: name rules, key fingerprints, guest names."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass

import asyncssh

from moon_tui.services import AccountRefusal

_NAME = re.compile(r"[a-z][a-z0-9_-]{1,15}")
RESERVED = frozenset(
    {"root", "admin", "administrator", "moon", "server", "system", "operator", "guest", "bot"}
)
GUEST_PREFIX = "guest-"


@dataclass(frozen=True, slots=True)
class Player:
    """The identity a session plays under, fixed once authentication completed."""

    name: str
    operator: bool = False
    guest: bool = False
    fingerprint: str | None = None
    public_key: str | None = None
    address: str = ""


def name_fault(name: str) -> AccountRefusal | None:
    """Why `name` cannot be a player's name (`NAME_INVALID`, `NAME_RESERVED`), or None
    when it can (`moon_tui.ui.account_words` says the rules in words)."""
    if not _NAME.fullmatch(name):
        return AccountRefusal.NAME_INVALID
    if name in RESERVED or name.startswith(GUEST_PREFIX):
        return AccountRefusal.NAME_RESERVED
    return None


_LOOKALIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "j": "l", "2": "z", "3": "e",
                            "4": "a", "5": "s", "6": "b", "7": "t", "8": "b", "9": "g",
                            "_": None, "-": None, ".": None})
_LOOKALIKE_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def skeleton(name: str) -> str:
    """What `name` looks like at a glance: lower case, separators gone, look-alike
    characters made one (0 and o, 1, i and l, rn and m...). `o1ga` and `olga_` look
    like `olga`."""
    text = name.lower().translate(_LOOKALIKE)
    for pair, single in _LOOKALIKE_PAIRS:
        text = text.replace(pair, single)
    return text


def confusable_with(name: str, operators: Collection[str]) -> str | None:
    """The operator whose name `name` could be taken for (not their own), or None."""
    shape = skeleton(name)
    return next((op for op in operators if op != name and skeleton(op) == shape), None)


def fingerprint(key: asyncssh.SSHKey) -> str:
    return key.get_fingerprint("sha256")


def openssh_line(key: asyncssh.SSHKey) -> str:
    return key.export_public_key("openssh").decode("ascii").strip()


GUEST_DIGITS = 4
"""Digits of a guest's number; more when half of the names of a width are held."""
_MAX_GUEST_DIGITS = 10  # "guest-" + 10 digits is the longest name (16 characters)


def guest_name(held: Collection[str], draw: Callable[[int], int] | None = None) -> str:
    """A fresh `guest-NNNN` name that nothing in `held` uses.

    `held` is every name anything still holds: a live session, a connection still open,
    a seat kept during the reconnect grace. Once half of the names of a width are held
    the number gets a digit longer, so a draw never has to search long."""
    draw = draw or secrets.randbelow
    digits = GUEST_DIGITS
    while digits < _MAX_GUEST_DIGITS and _guests_of_width(held, digits) * 2 >= 10**digits:
        digits += 1
    while True:
        name = f"{GUEST_PREFIX}{draw(10**digits):0{digits}d}"
        if name not in held:
            return name


def _guests_of_width(names: Collection[str], digits: int) -> int:
    width = len(GUEST_PREFIX) + digits
    return sum(1 for name in names if len(name) == width and name.startswith(GUEST_PREFIX))
