"""`moon-server backup FILE`: a consistent copy of the database, taken while the server runs.

Copying `moon.sqlite3` with `cp` while the server runs is not a backup: the latest
accounts, keys and records live in `moon.sqlite3-wal` until SQLite folds them in, and a
copy taken in the middle of a write may be torn. SQLite's online backup
(`sqlite3.Connection.backup`) reads the database as one snapshot, WAL included, and a
WAL reader never blocks the server's writer, so players notice nothing.

The backup does not take the data folder's lock (`datafolder.py`): that lock keeps a
second *server* off the folder, and the backup only reads. It opens the database
read-write without creating it (`mode=rw`): a read-only connection would leave `-wal`
and `-shm` files behind when the server is stopped, owned by whoever ran the backup
(root, say), and a server running as its own user could then not open its database.

The copy is written next to FILE under a temporary name, checked, made one
self-contained file (journal mode DELETE, no `-wal` to carry along), flushed to disk, and
only then given its name: an interrupted backup never leaves a half file under FILE,
and `--force` replaces an older backup only with a complete one.

A backup holds every account's keys, the bans and the addresses: it is created readable
by its owner only (0600). `--force` replaces only a regular file: run as root on
`/dev/full` it once replaced the device with a SQLite file (issue 31); a device, a FIFO,
a socket or a symlink under FILE is refused.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path


class BackupRefused(Exception):
    """The backup was not made; the message says why and what to do, in one paragraph."""


@dataclass(frozen=True, slots=True)
class BackupMade:
    """What a finished backup holds (the command prints it)."""

    path: Path
    size: int
    accounts: int
    records: int

    def __str__(self) -> str:
        return (f"backup written to {self.path}: {self.accounts} accounts, "
                f"{self.records} game records, {(self.size + 1023) // 1024} KB")


def back_up(database: Path, target: Path, *, force: bool = False) -> BackupMade:
    """Copy `database` (a live server's or not) to `target`, or raise `BackupRefused`."""
    if not database.is_file():
        raise BackupRefused(
            f"there is no database in the data folder {database.parent} (no "
            f"{database.name} there). Point the backup at the server's data folder the "
            "way the server finds it: --data, MOON_DATA, or 'data' in the file given "
            "with --config or MOON_CONFIG."
        )
    live = database.resolve()
    if target.resolve() in {live, *(live.with_name(live.name + end)
                                     for end in ("-wal", "-shm", "-journal"))}:
        raise BackupRefused(
            f"{target} is the database itself (or one of its files): a backup goes "
            "elsewhere, ideally on another disk. Give another file name."
        )
    if target.is_dir():
        raise BackupRefused(
            f"{target} is a folder. Give the backup's file name, e.g. "
            f"{target / 'moon-backup.sqlite3'}."
        )
    try:
        mode: int | None = target.lstat().st_mode
    except OSError:
        mode = None
    if mode is not None and force and not stat.S_ISREG(mode):
        raise BackupRefused(
            f"{target} is not a regular file (a symlink, a device, a pipe or a socket): "
            "--force replaces only an older backup. Give the backup's own file name."
        )
    if mode is not None and not force:
        raise BackupRefused(
            f"{target} already exists; nothing was written. Give a new file name, or add "
            "--force to replace it (the old file is replaced only by a complete backup)."
        )
    folder = target.parent
    if not folder.is_dir():
        raise BackupRefused(
            f"the folder {folder} does not exist. Create it (only the user running the "
            "backup should read it: the backup holds every account's keys), or give a "
            "file in another folder."
        )
    partial = folder / f".{target.name}.{os.getpid()}.partial"
    try:
        made = _copy(database, partial)
        _publish(partial, target, force=force)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    return BackupMade(target, target.stat().st_size, *made)


def _copy(database: Path, partial: Path) -> tuple[int, int]:
    """The backup into `partial`, checked; returns its counts of accounts and records."""
    try:  # made here, new and for its owner only: SQLite keeps the mode of the file
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:
        raise _unwritable(partial.parent, error) from error
    uri = f"{database.resolve().as_uri()}?mode=rw"
    try:
        source = sqlite3.connect(uri, uri=True, timeout=30)
    except sqlite3.Error as error:
        raise _unreadable(database, error) from error
    try:
        try:
            copy = sqlite3.connect(partial)
        except sqlite3.Error as error:
            raise _unwritable(partial.parent, error) from error
        try:
            try:
                source.backup(copy)  # one step: one consistent snapshot of the database
            except sqlite3.Error as error:  # the source, or the file written: say which
                if _readable(source):
                    raise _unwritable(partial.parent, error) from error
                raise _unreadable(database, error) from error
            try:
                copy.execute("PRAGMA journal_mode=DELETE")
                problems = [str(row[0]) for row in copy.execute("PRAGMA quick_check(3)")]
                counts = tuple(
                    int(copy.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
                    for table in ("accounts", "records")
                )
            except sqlite3.Error as error:
                raise _unreadable(database, error) from error
            if problems != ["ok"]:
                raise _unreadable(database, " ".join(" ".join(problems).split())[:200])
        finally:
            copy.close()
    finally:
        source.close()
    with open(partial, "rb") as file:
        os.fsync(file.fileno())
    accounts, records = counts
    return accounts, records


def _publish(partial: Path, target: Path, *, force: bool) -> None:
    """Give the complete copy its name: never over an existing file unless `force`."""
    try:
        if force:
            os.replace(partial, target)
        else:
            os.link(partial, target)  # fails if a file appeared meanwhile
            partial.unlink()
    except FileExistsError:
        raise BackupRefused(
            f"{target} appeared while the backup was being made; nothing was written. "
            "Give a new file name, or add --force to replace it."
        ) from None
    except OSError as error:
        raise _unwritable(target.parent, error) from error
    with contextlib.suppress(OSError):  # the new name itself survives a power loss
        descriptor = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _readable(connection: sqlite3.Connection) -> bool:
    try:
        connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except sqlite3.Error:
        return False
    return True


def _unreadable(database: Path, error: sqlite3.Error | str) -> BackupRefused:
    return BackupRefused(
        f"cannot read the database {database} ({error}); no backup was written. If the "
        "server runs, check its log; if the file is damaged, keep your latest good backup "
        "and see 'Backups' in deploy/README.md. The user running the backup must be "
        "allowed to read and write the data folder (the server's own user is)."
    )


def _unwritable(folder: Path, error: sqlite3.Error | OSError) -> BackupRefused:
    reason = error.strerror if isinstance(error, OSError) and error.strerror else error
    return BackupRefused(
        f"cannot write the backup in {folder} ({reason}); nothing was written. Check that "
        "the user running the backup may write there and that the disk is not full."
    )
