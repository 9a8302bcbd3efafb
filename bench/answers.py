"""A hook on the server's SSH driver for benchmarks: each key it reads, and the next
frame it writes (`ssh_load.py` times that span, `passes.py` counts the loop's passes in
it). Only for a server in the benchmark's own process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

Mark = TypeVar("Mark")


def watch_answers(mark: Callable[[Any], Mark | None],
                  answered: Callable[[Any, Mark], bool | None]) -> None:
    """From now on, when an `SSHDriver` reads a key and no earlier key of its is still
    waiting for a frame, `mark(key)` notes it (None: not watched); at the next frame
    that driver writes, `answered(driver, mark)`, and at the frames after it too while
    that returns True (the key waits for a later frame)."""
    from textual import events

    from server.driver import SSHDriver

    deliver, flush = SSHDriver._deliver, SSHDriver.flush

    def watched_deliver(driver: Any, messages: Iterator[Any]) -> None:
        read = list(messages)
        if "_bench_mark" not in driver.__dict__:
            for message in read:
                if isinstance(message, events.Key):
                    noted = mark(message)
                    if noted is not None:
                        driver._bench_mark = noted
                        break
        deliver(driver, iter(read))

    def watched_flush(driver: Any) -> None:
        if driver._pending and "_bench_mark" in driver.__dict__:
            if not answered(driver, driver.__dict__["_bench_mark"]):
                del driver.__dict__["_bench_mark"]
        flush(driver)

    SSHDriver._deliver = watched_deliver  # type: ignore[method-assign, assignment]
    SSHDriver.flush = watched_flush  # type: ignore[method-assign, assignment]
