"""Reading a file a person names on a command line: only a regular file (or a pipe on
standard input), and never more than a bound.

`moon-rules replay /dev/zero` read until memory ran out, a FIFO hung in `open()`, and a
`moon-server --config` symlinked to `/dev/zero` took 4 GB before it failed (issue 31).
Here the file is opened without blocking and checked with `fstat` on the descriptor that
is then read (no race between a check and the open), and at most `limit` bytes are read.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from typing import Any, BinaryIO

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
    with open_limited(path, limit) as file:
        return file.read()


def open_limited(path: str | os.PathLike[str], limit: int) -> BinaryIO:
    """The regular file at `path` (symlinks followed) open for reading, refused as
    `read_limited` refuses it; reading past `limit` bytes (a file that grows) raises
    `FileRefused`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FileRefused(f"{_kind(mode)}, not a file")
        os.set_blocking(fd, True)
        return _bounded(fd, limit)
    except BaseException:
        os.close(fd)
        raise


def open_stdin_limited(limit: int, stream: BinaryIO | None = None) -> BinaryIO:
    """Standard input as a file that can be read again (a record is read twice), when it
    is a regular file or a pipe (never a terminal, which would wait for typing, nor a
    device like `/dev/zero`), at most `limit` bytes. A pipe is first copied to a
    temporary file, a chunk at a time."""
    if stream is None:
        if sys.stdin is None:
            raise FileRefused("there is no standard input")
        stream = sys.stdin.buffer
    mode = os.fstat(stream.fileno()).st_mode
    if stat.S_ISREG(mode):
        fd = os.dup(stream.fileno())
        try:
            os.lseek(fd, stream.tell(), os.SEEK_SET)
            return _bounded(fd, limit)
        except BaseException:
            os.close(fd)
            raise
    if not stat.S_ISFIFO(mode):
        raise FileRefused(f"{_kind(mode)}, not a file or a pipe")
    copy = tempfile.TemporaryFile()
    try:
        copied = 0
        while chunk := stream.read(COPY_CHUNK):
            copied += len(chunk)
            if copied > limit:
                raise _too_large(limit)
            copy.write(chunk)
        copy.seek(0)
    except BaseException:
        copy.close()
        raise
    return copy


COPY_CHUNK = 1 << 20


class _BoundedFile(io.FileIO):
    """A file that refuses to be read past `limit` bytes from where it was opened."""

    def __init__(self, fd: int, limit: int) -> None:
        super().__init__(fd, "rb", closefd=True)
        self._limit = limit
        self._end = os.lseek(fd, 0, os.SEEK_CUR) + limit

    def readinto(self, buffer: Any) -> int | None:
        count = super().readinto(buffer)
        if count and self.tell() > self._end:
            raise _too_large(self._limit)
        return count


def _bounded(fd: int, limit: int) -> BinaryIO:
    """A buffered reader of `fd` that refuses a file larger than `limit` bytes at once
    (from its size) and any byte past `limit` read later (it grew)."""
    start = os.lseek(fd, 0, os.SEEK_CUR)
    if os.fstat(fd).st_size - start > limit:
        raise _too_large(limit)
    return io.BufferedReader(_BoundedFile(fd, limit))
