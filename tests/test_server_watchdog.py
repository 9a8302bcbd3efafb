"""A server whose event loop stops turning says so in its log, with where it is stuck."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from server.config import Limits
from tools.probe import eventually, running_server


class Records(logging.Handler):
    """The watchdog's log records; `error` is set by the first error (from its thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []
        self.error = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        if record.levelno >= logging.ERROR:
            self.error.set()


def stuck_in_the_loop(records: Records) -> bool:
    """Blocks the thread it runs on (the event loop's) until the watchdog has spoken."""
    return records.error.wait(timeout=30)


async def test_a_loop_that_stops_turning_is_logged_with_its_stack(tmp_path: Path) -> None:
    records = Records()
    logger = logging.getLogger("server.watchdog")
    logger.addHandler(records)
    try:
        async with running_server(tmp_path, limits=Limits(loop_watchdog_seconds=0.3)) as server:
            assert stuck_in_the_loop(records)  # the loop never turns while this waits
            (error,) = records.records
            text = error.getMessage()
            assert "has not turned for" in text
            assert "stuck_in_the_loop" in text  # the loop thread's stack, not the watchdog's
            await eventually(lambda: len(records.records) == 2, "the loop turning again")
            assert "turns again" in records.records[1].getMessage()
            assert server.watchdog.stalls == 1
    finally:
        logger.removeHandler(records)
