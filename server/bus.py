"""A worker's place in a club of several processes, and its connection to the bus.

`moon-server --workers N` runs N worker processes (`supervisor.py`); each is a
`MoonServer` given a `WorkerPlace`: which worker it is, the bus's URL, and whether a
supervisor holds the data folder for it. The bus is Valkey (or Redis), reached through
valkey-py's asyncio client, imported only here and only in this mode: the embedded
default (one process, no bus) needs nothing of it installed.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .datafolder import CannotStart

if TYPE_CHECKING:
    from valkey.asyncio import Valkey

CONNECT_SECONDS = 5.0
ANSWER_SECONDS = 5.0
"""How long a call to the bus waits for its answer before the connection is dropped
and the call fails (as valkey-py's own socket timeout, whose default this is)."""


def still_running() -> None:
    """Raise `CancelledError` if the current task was cancelled. valkey-py's asyncio
    client may let a cancellation go (seen: a pipeline's `execute` returned as usual
    after its task was cancelled, and the task then waited for ever, holding up the
    server's stop): every loop over the bus calls this after its calls to the bus."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


@dataclass(frozen=True, slots=True)
class WorkerPlace:
    """Worker `index` of a club on the bus at `bus`. A `supervised` worker shares the port
    with its siblings (SO_REUSEPORT) and leaves the data folder's lock to the supervisor."""

    index: int
    bus: str
    supervised: bool = True

    @property
    def name(self) -> str:
        """The worker's name on the bus and in the log."""
        return f"w{self.index}"

    @property
    def process(self) -> str:
        """This process's name on the bus ("w0.1234"): a worker started again after a
        crash is not its dead predecessor (`ownership.TableLeases.take`)."""
        return f"{self.name}.{os.getpid()}"


def where(url: str) -> str:
    """The bus's URL as the log shows it: no password."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    return f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}"


async def connect(url: str, *, bounded: bool = True) -> Valkey:
    """A client of the bus at `url`, once it answers; `CannotStart` says why not.

    `bounded`: each call's wait for its answer is bounded by valkey-py (`ANSWER_SECONDS`).
    Not so for the two connections a table's messages cross (`bus_link.WorkerBus`), which
    bound each call themselves (`asyncio.timeout`): with a socket timeout set, valkey-py
    sends every command through `asyncio.wait_for`, a task of its own, and a command
    was written two passes of the event loop later, behind every app's step in them."""
    try:
        from valkey.asyncio import Valkey
        from valkey.exceptions import ValkeyError
    except ImportError:
        raise CannotStart("a bus needs the valkey client: install the scale extra "
                          "(pip install 'moon[scale]', or -e '.[scale]' from a checkout).") \
            from None
    client: Valkey = Valkey.from_url(url, socket_connect_timeout=CONNECT_SECONDS,
                                     socket_timeout=ANSWER_SECONDS if bounded else None,
                                     health_check_interval=30)
    try:
        async with asyncio.timeout(ANSWER_SECONDS):
            await client.ping()
    except (ValkeyError, OSError) as error:
        await client.aclose()
        raise CannotStart(f"cannot reach the bus at {where(url)}: "
                          f"{error or 'no answer'}") from None
    return client
