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
