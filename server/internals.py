"""The private parts of Textual and asyncssh the server replaces, and the versions it knows.

Textual assumes one app per process and asyncssh offers no hook for a few of the bounds
the server needs, so `patches.py` and `teardown.py` replace private functions (their
`PATCHES`), and `channel.py`, `keyboard.py`, `driver.py` and `terminal.py` override or
rely on private code (their `OVERRIDDEN`). Private code changes without notice between
versions, so:

- `PINNED` names the version of each package that every replacement was written for
  (pyproject.toml pins the same ones; a test checks they agree);
- `Patches.install()` refuses to replace anything when another version is installed,
  with a message that says which package, which version was found and which is pinned
  (an operator upgrading by hand gets a server that does not start, not one that is
  silently broken);
- `Patches.uninstall()` puts the originals back (the tests use it: only the tests that
  need the patches run with them);
- a test records a hash of each replaced or overridden original's source, so an upgrade
  fails that test, naming what to revisit.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

PINNED = {"textual": "8.2.8", "asyncssh": "2.24.1"}
"""The version of each package whose private code the replacements were written for."""

INSTALLED = {package: importlib.metadata.version(package) for package in PINNED}
"""Read when the server is imported: a service may drop its privileges later, and then
no longer be able to read the packages' metadata (or import the modules that read it)."""


class UnsupportedVersion(RuntimeError):
    """An installed package is not the version the server's replacements were written for."""

    def __init__(self, package: str, found: str, pinned: str, where: str) -> None:
        super().__init__(
            f"{package} {found} is installed, but {where} replaces private parts of "
            f"{package} and was written for {package} {pinned}; another version may "
            f"change them without notice and break every session quietly. Install the "
            f"pinned version (pip install '{package}=={pinned}'), or check each "
            f"replacement in {where} against {package} {found} and then change the pin "
            "in server/internals.py and pyproject.toml."
        )
        self.package, self.found, self.pinned = package, found, pinned


def check_version(package: str, where: str) -> None:
    """Raise `UnsupportedVersion` unless `package` is installed at its pinned version."""
    found = INSTALLED[package]
    if found != PINNED[package]:
        raise UnsupportedVersion(package, found, PINNED[package], where)


@dataclass(frozen=True)
class Internal:
    """A private function of a package that the server replaces or overrides."""

    package: str
    owner: Any
    """The class or module it belongs to."""
    name: str
    why: str
    """Which adjustment depends on it, in a few words (named when its source changes)."""
    watched: Callable[[], Sequence[Any]] | None = None
    """The code whose source the adjustment depends on, when it is not the original
    itself (replacing `redirect_stdout` depends on how `App._process_messages` uses it)."""

    @property
    def label(self) -> str:
        return f"{self.package}: {getattr(self.owner, '__name__', self.owner)}.{self.name}"


@dataclass(frozen=True)
class Patch:
    """An `Internal` and what replaces it, as stored on the owner (a `classmethod(...)`
    for a classmethod)."""

    internal: Internal
    replacement: Any


@dataclass(eq=False)
class Patches:
    """A set of replacements installed together, and undone together.

    Installs nest: each `install()` needs its `uninstall()`, and the originals come back
    with the last one (two servers in one process, or a server inside a test fixture)."""

    where: str
    """The module that defines them, for messages."""
    patches: Sequence[Patch]
    _originals: dict[int, Any] = field(default_factory=dict)
    _users: int = 0

    @property
    def installed(self) -> bool:
        return self._users > 0

    def install(self) -> None:
        """Replace the originals, or raise `UnsupportedVersion` having replaced nothing."""
        if self._users == 0:
            for package in sorted({patch.internal.package for patch in self.patches}):
                check_version(package, self.where)
            for index, patch in enumerate(self.patches):
                owner, name = patch.internal.owner, patch.internal.name
                self._originals[index] = vars(owner)[name]
                setattr(owner, name, patch.replacement)
        self._users += 1

    def uninstall(self) -> None:
        """Undo one `install()`; the last one puts every original back."""
        if self._users == 0:
            return
        self._users -= 1
        if self._users == 0:
            for index, patch in enumerate(self.patches):
                setattr(patch.internal.owner, patch.internal.name, self._originals.pop(index))

    def original(self, patch: Patch) -> Any:
        """What `patch` replaces (installed or not), as stored on its owner."""
        index = list(self.patches).index(patch)
        if index in self._originals:
            return self._originals[index]
        return vars(patch.internal.owner)[patch.internal.name]
