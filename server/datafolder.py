"""The data folder belongs to one server at a time: a lock file holding the owner's pid.

Two servers on one folder would both write the database and each hand out names the
other does not know about. `fcntl.flock` is released by the kernel when the process ends,
however it ends, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

LOCK_NAME = "moon.lock"


class CannotStart(Exception):
    """The server cannot start; the message says why and what to do, in one paragraph."""


class DataFolderBusy(CannotStart):
    """Another server holds the data folder."""


class DataFolderLock:
    """`acquire()` at start, `release()` at stop; one holder per folder, even in one process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Create the folder if needed and lock it, or raise `CannotStart` saying why."""
        try:
            # The folder holds keys, bans and addresses: for the server's user only.
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise CannotStart(
                f"cannot use the data folder {self.folder}: {error.strerror or error}. "
                "The server keeps its host key, database and lock file there: make it a "
                "folder the user running moon-server may write in, or start with --data "
                "pointing at another folder."
            ) from error
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise DataFolderBusy(
                f"the data folder {self.folder} is in use by another moon-server "
                f"(pid {holder}): two servers must not share one database. Stop that "
                "server first, or start this one with --data pointing at another folder."
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Unlock (the file stays: removing it would race with a server starting now)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
