"""One-time codes that let a player add a key they prove they hold.

A key is added to a name only by logging in with it: the keys dialog makes a code for the
name, and the next login with the new key types it (server/linking.py). Pasting a public
key proved nothing, so anyone could attach someone else's key to their own name.

The codes live in memory: a restart forgets them (the player makes a new one). Each is
random, short-lived, single use and bound to one name; a name has only a few at once.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .config import Limits

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""No 0/O, 1/I/L: read from one screen and typed on another."""
CODE_LENGTH = 8


def normalise(typed: str) -> str:
    """The code as typed, without case, spaces or dashes (shown as ABCD-EFGH)."""
    return "".join(typed.split()).replace("-", "").upper()


def grouped(code: str) -> str:
    """How a code is displayed: two groups of four."""
    return f"{code[:4]}-{code[4:]}"


@dataclass(slots=True)
class _Waiting:
    codes: dict[str, float] = field(default_factory=dict)
    """Code -> when it expires (clock time), oldest first."""


class LinkCodes:
    """The codes waiting to be typed, per name. `clock` is replaceable (tests)."""

    def __init__(
        self, limits: Limits | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits or Limits()
        self.clock = clock
        self._names: dict[str, _Waiting] = {}

    def issue(self, name: str) -> str:
        """A new code for `name` (the oldest waiting one goes if there are too many)."""
        self._sweep()
        waiting = self._names.setdefault(name, _Waiting())
        while waiting.codes and len(waiting.codes) >= max(1, self.limits.link_codes_per_name):
            del waiting.codes[next(iter(waiting.codes))]
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        waiting.codes[code] = self.clock() + self.limits.link_code_minutes * 60
        return code

    def pending(self, name: str) -> bool:
        """Whether `name` has a code that can still be typed."""
        return self._live(name) is not None

    def redeem(self, name: str, typed: str) -> bool:
        """Use up the code `typed` for `name`: True once for a right, unexpired code.

        A wrong code costs the name nothing: withdrawing its codes after some misses let
        anyone lock its owner's new key out (issue 36). Guesses cost the guesser: each
        is a failed login of their address (`linking.py`), which soon must wait."""
        waiting = self._live(name)
        if waiting is None:
            return False
        candidate = normalise(typed)
        for code in list(waiting.codes):
            if hmac.compare_digest(code.encode(), candidate.encode()):
                del waiting.codes[code]
                if not waiting.codes:
                    del self._names[name]
                return True
        return False

    def _live(self, name: str) -> _Waiting | None:
        waiting = self._names.get(name)
        if waiting is None:
            return None
        now = self.clock()
        for code, expires in list(waiting.codes.items()):
            if expires <= now:
                del waiting.codes[code]
        if not waiting.codes:
            del self._names[name]
            return None
        return waiting

    def _sweep(self) -> None:
        """Forget every expired code, so names that never used theirs do not pile up."""
        for name in list(self._names):
            self._live(name)
