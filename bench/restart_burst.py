"""Players coming back after a restart, all at once: how long each waits for its table.

    .venv/bin/python bench/restart_burst.py --tables 50
    .venv/bin/python bench/restart_burst.py --saved /tmp/moon-restart-XXXX   # same tables

A data folder is made with `--tables` tables of three people each, every game started
(the first bid is a person's, so nothing moves while they are away): the names are
claimed with keys in the database and the tables made through the lobby's messages, as
players' apps would, in a server run in this process; stopping it saves the tables in
the journal as any stop does. The server is then started again on that folder in a
process of its own (`bench/ssh_load.py`'s, with its figures: uvloop, the memory policy
of `moon-server`), `--present` players log in and go to the lobby, and then every
seated player connects at once, with a PTY of 80x24 and their key, and goes straight
back to their table (no banner: `Door`). While the burst lasts, the players already
in press a key every second or so in the lobby (down, up...) and time its answer.

Printed: time from the start of each returning player's connection to the first screen
of their table (p50, p90, max), the server's longest event-loop stall meanwhile and how
many stalls went over 100 ms, the present players' keys (p50 / max) and the server CPU
used by the burst. The players run in this process with its garbage collector off (see
`ssh_load.py`); on a machine of two cores their own CPU (SSH logins, terminals) is taken
from the server's. A run starts from a copy of the tables built (printed: `--saved`
starts the next run from them again, so runs of two versions compare on the same tables).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ssh_load import ServerProcess, percentile, press_and_wait, use_uvloop  # noqa: E402

AT_TABLE = "hand 1"
"""On the table screen of a game in its first hand (not in the lobby's list)."""


async def build(data: Path, tables: int) -> list[tuple[str, Any]]:
    """`tables` tables of three people, their games started, saved in `data`; returns
    each person's name and key."""
    from moon_tui.lobby import CreateTable, JoinSeat, StartGame, TableUpdate
    from server.identity import fingerprint, openssh_line
    from tools.client import Client
    from tools.probe import new_key, running_server

    people: list[tuple[str, Any]] = []
    async with running_server(data) as server, asyncio.TaskGroup() as group:
        for index in range(tables * 3):
            name, key = f"p{index:03d}", new_key()
            assert await server.db.claim(name, fingerprint(key), openssh_line(key))
            people.append((name, key))
        clients = []
        for name, _ in people:
            client = Client(await server.lobby.connect(name))
            group.create_task(client.run())
            clients.append(client)
        for table in range(tables):
            owner, *others = clients[3 * table: 3 * table + 3]
            start = owner.mark()
            owner.handle.send(CreateTable(f"table {table}"))
            update = await owner.wait_type(TableUpdate, start=start)
            table_id = update.table.table_id
            for seat, other in enumerate(others, start=1):
                other.handle.send(JoinSeat(table_id, seat))
                await owner.wait_type(TableUpdate, lambda u, s=seat, n=other.name:
                                      u.table.seats[s].name == n)
            owner.handle.send(StartGame(table_id))
            await owner.wait_type(TableUpdate, lambda u: u.table.status == "playing")
        await server.stop()  # the tables go to the journal, the handles end
    return people


async def come_back(port: int, name: str, key: Any, started: float,
                    first: dict[str, float], errors: list[str]) -> Any:
    from tools.probe import ScreenClient

    try:
        client = await ScreenClient.connect(port, name, key=key)
        await client.wait_for(AT_TABLE, timeout=180)
    except Exception as error:  # noqa: BLE001 - counted and reported
        errors.append(f"{name}: {type(error).__name__}: {str(error)[-300:]}")
        return None
    first[name] = time.perf_counter() - started
    return client


async def already_in(port: int, index: int, ready: asyncio.Event, stop: asyncio.Event,
                     keys: list[float], errors: list[str]) -> None:
    """A player in the lobby before the burst, pressing a key every second or so."""
    from tools.probe import ScreenClient, enter_lobby

    client = await ScreenClient.connect(port, f"here{index}")
    try:
        await enter_lobby(client, timeout=60)
        ready.set()
        pace = random.Random(index)
        presses = 0
        while not stop.is_set():
            await asyncio.sleep(pace.uniform(0.5, 1.5))
            took = await press_and_wait(client, "down" if presses % 2 == 0 else "up")
            if took is not None:
                keys.append(took)
            presses += 1
    except Exception as error:  # noqa: BLE001 - counted and reported
        errors.append(f"here{index}: {type(error).__name__}: {str(error)[-300:]}")
    finally:
        await client.close()


async def burst(data: Path, people: list[tuple[str, Any]], present: int) -> dict[str, Any]:
    server = await ServerProcess.start(data)
    errors: list[str] = []
    keys: list[float] = []
    stop = asyncio.Event()
    readies = [asyncio.Event() for _ in range(present)]
    typists = [asyncio.create_task(already_in(server.port, i, readies[i], stop, keys, errors))
               for i in range(present)]
    await asyncio.gather(*(ready.wait() for ready in readies))
    await asyncio.sleep(2)  # their apps settle
    before = await server.ask("begin")
    keys.clear()
    first: dict[str, float] = {}
    started = time.perf_counter()
    clients = await asyncio.gather(*(come_back(server.port, name, key, started, first, errors)
                                     for name, key in people))
    took = time.perf_counter() - started
    after = await server.ask("status")
    stop.set()
    await asyncio.gather(*typists)
    for client in clients:
        if client is not None:
            await client.close()
    await server.finish()
    times = list(first.values())
    return {
        "players": len(people), "present": present, "back": len(times),
        "first_p50_s": round(percentile(times, 0.5), 2),
        "first_p90_s": round(percentile(times, 0.9), 2),
        "first_max_s": round(max(times, default=float("nan")), 2),
        "burst_s": round(took, 2),
        "server_cpu_s": round(after["cpu"] - before["cpu"], 2),
        "longest_stall_ms": round(after["stall"] * 1000),
        "stalls_over_100ms": after["long_stalls_since_reset"],
        "long_stalls": after["long_stalls"][:5],
        "gc_ms": after["gc_ms"], "reclaims": after.get("reclaims"),
        "frozen_before": before.get("frozen"), "frozen_after": after.get("frozen"),
        "present_keys": len(keys),
        "present_key_p50_ms": round(percentile(keys, 0.5) * 1000, 1) if keys else None,
        "present_key_max_ms": round(max(keys) * 1000, 1) if keys else None,
        "errors": errors[:5], "error_count": len(errors),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50,
                        help="tables of three people saved before the restart (default 50)")
    parser.add_argument("--present", type=int, default=10,
                        help="players already in the lobby, typing, during the burst")
    parser.add_argument("--saved", type=Path, default=None,
                        help="a folder this script built before (it printed where): the run "
                             "starts from a copy of it, and the tables are not built again")
    args = parser.parse_args()
    use_uvloop()
    saved = args.saved
    if saved is None:
        saved = Path(tempfile.mkdtemp(prefix="moon-restart-"))
        people = asyncio.run(build(saved / "data", args.tables))
        keys = {name: key.export_private_key().decode() for name, key in people}
        (saved / "keys.json").write_text(json.dumps(keys))
        print(f"built {args.tables} tables in {saved} (--saved {saved} starts from them "
              "again)", flush=True)
    else:
        import asyncssh

        keys = json.loads((saved / "keys.json").read_text())
        people = [(name, asyncssh.import_private_key(key)) for name, key in keys.items()]
    data = Path(tempfile.mkdtemp(prefix="moon-restart-run-")) / "data"
    shutil.copytree(saved / "data", data)  # each run comes back to the same tables
    gc.disable()  # the players stand for separate machines (see ssh_load.py)
    result = asyncio.run(burst(data, people, args.present))
    shutil.rmtree(data.parent)
    print(json.dumps(result), flush=True)
    print(f"{result['back']}/{result['players']} players back at their tables "
          f"({result['present']} already in): first screen p50 {result['first_p50_s']} s, "
          f"p90 {result['first_p90_s']} s, max {result['first_max_s']} s; longest stall "
          f"{result['longest_stall_ms']} ms ({result['stalls_over_100ms']} over 100 ms); "
          f"present players' keys p50 {result['present_key_p50_ms']} ms, max "
          f"{result['present_key_max_ms']} ms; server CPU {result['server_cpu_s']} s",
          flush=True)


if __name__ == "__main__":
    main()
