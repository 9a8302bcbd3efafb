"""Reading a file a person names on a command line: only a regular file (or a pipe on
standard input), and never more than a bound.

`moon-rules replay /dev/zero` read until memory ran out, a FIFO hung in `open()`, and a
`moon-server --config` symlinked to `/dev/zero` took 4 GB before it failed (issue 31).
Here the file is opened without blocking and checked with `fstat` on the descriptor that
is then read (no race between a check and the open), and at most `limit` bytes are read.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import BinaryIO

MEGABYTE = 1024 * 1024


class FileRefused(OSError):
    """The file cannot be read as asked: not a regular file, or larger than the bound.
    `str()` is the reason in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a terminal or a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "something else"


def _too_large(limit: int) -> FileRefused:
    return FileRefused(f"larger than {limit // MEGABYTE} MB, the most read")


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `limit` of them.

    `FileRefused` for a folder, device, FIFO or socket, or a file over `limit` bytes;
    `OSError` when it cannot be opened or read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FileRefused(f"{_kind(mode)}, not a file")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as file:
            return _read_bounded(file, limit)
    finally:
        os.close(fd)


def read_stdin_limited(limit: int, stream: BinaryIO | None = None) -> bytes:
    """Standard input, when it is a pipe or a regular file (never a terminal, which would
    wait for typing, nor a device like `/dev/zero`), at most `limit` bytes."""
    if stream is None:
        if sys.stdin is None:
            raise FileRefused("there is no standard input")
        stream = sys.stdin.buffer
    mode = os.fstat(stream.fileno()).st_mode
    if not (stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
        raise FileRefused(f"{_kind(mode)}, not a file or a pipe")
    return _read_bounded(stream, limit)


def _read_bounded(file: BinaryIO, limit: int) -> bytes:
    data = file.read(limit + 1)
    if len(data) > limit:
        raise _too_large(limit)
    return data
