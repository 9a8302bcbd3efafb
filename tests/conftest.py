"""Shared test settings.

Hypothesis runs derandomized: the same examples on every machine, so a CI run checks what
a developer ran. `HYPOTHESIS_PROFILE=explore` searches fresh examples instead.

Which tests run on Textual as the server adjusts it (server/patches.py, teardown.py):
the SSH tests, because a running `MoonServer` installs the adjustments from `start()`
to `stop()`, and the tests that ask for the `server_patches` fixture. Every other test,
the interface's among them, runs on Textual as `moon` runs it on a player's own
terminal. Nothing is installed when a test module is imported, so a test runs the same
alone and in a full run.
"""

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

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
