"""The rules, the bots and the lobby load neither textual nor asyncssh (layers point one way)."""

from __future__ import annotations

import json
import subprocess
import sys

CHECK = """
import json, sys
import moon_tui.rules, moon_tui.rules.record, moon_tui.rules.replay, moon_tui.rules.cli
import moon_tui.bots
import moon_tui.lobby
print(json.dumps(sorted(m for m in sys.modules
                        if m.split('.')[0] in ('textual', 'asyncssh'))))
"""


def test_core_layers_import_no_interface_library() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


TEST_EXTRAS = ("pyte", "hypothesis", "pytest", "_pytest", "syrupy", "pytest_textual_snapshot")

CHECK_PACKAGES = """
import importlib, json, pkgutil, sys
import moon_tui, server
for package in (moon_tui, server):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in EXTRAS)))
""".replace("EXTRAS", repr(TEST_EXTRAS))


def test_the_installed_packages_import_no_test_extra() -> None:
    # Test harnesses (tests/support/) may use pyte and pytest; what is installed never does.
    done = subprocess.run([sys.executable, "-c", CHECK_PACKAGES], capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
