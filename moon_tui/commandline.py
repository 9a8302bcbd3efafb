"""What every command (`moon`, `moon-rules`, `moon-arena`, `moon-server`) does with its
command line: one line for a mistake, and numbers in ASCII digits only.

A wrong argument is told in one line on standard error, the value escaped and bounded,
with exit status 2 (argparse's own, and what the commands' documentation promises). A
number is what a keyboard types: `int()` also reads `٣` as 3 and `²` raises deep inside,
and takes 4,300 digits before failing; here a number has at most 18 ASCII digits.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn

from .shown import brief, one_line

EXIT_USAGE = 2
MESSAGE_MAX = 2000
"""Characters of a one-line message (a paragraph of advice fits; an argument, which may be
128 KB, does not)."""
WHOLE_NUMBER_DIGITS = 18
"""Digits a whole number from a command line or a file may have (far past any setting)."""


def whole_number(text: str) -> int | None:
    """`text` as a whole number when it is one in ASCII digits (an optional sign and
    surrounding spaces allowed), else None."""
    core = text.strip()
    digits = core[1:] if core[:1] in ("-", "+") else core
    if not digits or len(digits) > WHOLE_NUMBER_DIGITS or not digits.isascii() \
            or not digits.isdigit():
        return None
    return int(core)


def number_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse `type`: a whole number from `low` to `high`."""
    def parse(text: str) -> int:
        value = whole_number(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"not a whole number: {brief(text)}")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value:,} is not from {low:,} to {high:,}")
        return value
    parse.__name__ = "whole number"
    return parse


def say(prog: str, message: str) -> None:
    """One line on standard error: `prog: message`, escaped and bounded."""
    sys.stderr.write(f"{prog}: {one_line(message, MESSAGE_MAX)}\n")


class OneLineParser(argparse.ArgumentParser):
    """An `ArgumentParser` whose mistakes are one line, not the usage and then the error."""

    def error(self, message: str) -> NoReturn:
        say(self.prog, f"{message} (see {self.prog} --help)")
        raise SystemExit(EXIT_USAGE)
