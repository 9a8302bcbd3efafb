"""Count the passes of the event loop between a key and its frame, on a real server.

On a busy server each pass of the event loop takes 10-30 ms (every ready task and
callback runs once), so how long a key waits for its answer is mostly how many passes
the answer needs: one per hand-over (the SSH reader to the app, a widget to its screen,
the app to a table's task, a thread back to the loop...). The CPU a key costs does not
show this; an idle machine does not either (a pass is then a few microseconds).

A callback that queues itself again runs once in every pass and counts them. The
server's driver notes the count when it reads a key and when it writes the next frame.
One player (a real SSH client on loopback) presses an arrow key in a table's waiting
room, answered by the app alone. A path through a thread or a timer cannot be counted
this way: an idle loop spins thousands of passes while it waits (a table's move waits
for the journal's thread), where a busy one would run a few.

Run: PYTHONPATH=. .venv/bin/python bench/passes.py [--keys 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class PassCounter:
    """Counts the passes of the running loop, and the passes from a key to its frame."""

    def __init__(self) -> None:
        self.passes = 0
        self.answers: list[int] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop.call_soon(self._tick)

    def stop(self) -> None:
        self._loop = None

    def _tick(self) -> None:
        if self._loop is not None:
            self.passes += 1
            self._loop.call_soon(self._tick)

    def watch_driver(self) -> None:
        """Note the pass of each key the driver reads and of the frame that follows."""
        from bench.answers import watch_answers

        watch_answers(lambda key: self.passes,
                      lambda driver, key_pass: self.answers.append(self.passes - key_pass))


async def measure(keys: int) -> dict[str, list[int]]:
    from tools.probe import ScreenClient, enter_lobby, running_server

    counter = PassCounter()
    counter.watch_driver()
    found: dict[str, list[int]] = {}
    async with running_server(Path(tempfile.mkdtemp(prefix="moon-passes-"))) as server:
        client = await ScreenClient.connect(server.port, "ann")
        await enter_lobby(client, timeout=30)
        await client.press("n")
        await client.wait_for("Create (ctrl+s)", timeout=30)
        await client.press("\x13")
        await client.wait_for("waiting room", timeout=30)
        await client.press("down", "up")  # the first keys also settle the new screen
        await asyncio.sleep(0.5)
        counter.start()
        for step in range(keys):
            counter.answers.clear()
            await client.press("down" if step % 2 == 0 else "up")
            await asyncio.sleep(0.2)
            found.setdefault("an arrow key in the waiting room", []).extend(counter.answers)
        counter.stop()
        await client.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=10, help="keys of each kind")
    args = parser.parse_args()
    for what, passes in asyncio.run(measure(args.keys)).items():
        print(f"{what}: key -> frame in {statistics.median(passes):.0f} passes of the event "
              f"loop (median of {len(passes)}; {min(passes)}-{max(passes)})")


if __name__ == "__main__":
    main()
