"""Attack bench: what one hostile client costs the server and the other players.

    .venv/bin/python bench/attacks.py [WORD...]    (only the attacks whose name has a WORD)

Starts a real server in a child process (the one of `bench/ssh_load.py`), measures its
fresh RSS, seats a calm player in the lobby who types into the chat line (a key, then
Backspace, every `KEY_PAUSE` seconds, each timed from the key to the screen's change),
then replays the attacks of `ATTACKS` one at a time, each from a process of its own
(as from a machine of its own). For each it prints the server's peak
RSS over the fresh figure (read from /proc every 20 ms, not through the server's loop)
and the calm player's key -> screen p99 while it ran.

Targets (issues 11 and 36): peak RSS under 200 MB over a fresh server's, the other
player's p99 under 100 ms; the keys over 100 ms are listed with when they came, beside
the server's own key -> frame figures in the lobby (from reading the key to writing the
frame: what the server itself took; the player's figure also counts the lag of its own
process). The crowd attacks (issue 36) also print how many of their connections reached
the welcome screen and whether the operator, olga, still gets in
(the server runs with the default places per address and per name); attacks 7-9 print
the objects the server's garbage collector holds frozen before and after
(`server/memory.py`: what the attack left, alive or garbage waiting for a reclaim), its
freezes and its reclaims. The whole run takes several minutes; arguments choose attacks
by number or by a word of their names (`bench/attacks.py 7 9`, `bench/attacks.py cycling`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import asyncssh  # noqa: E402

from tools.probe import (  # noqa: E402
    ScreenClient,
    changed,
    enter_lobby,
    open_connection,
)

KEY_PAUSE = 0.2
"""Seconds between the calm player's keys."""
RSS_TARGET_MB = 200
P99_TARGET_MS = 100
SETTLE = 1.0
"""Seconds after an attack's clients have gone, so what it left behind is measured too."""

Attack = Callable[[int], Awaitable[None]]


# --- attacks -------------------------------------------------------------------------------


async def _guest(
    port: int, size: tuple[int, int], env: dict[str, str] | None = None
) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientProcess[bytes]]:
    """A keyless visitor with a PTY of `size` that never reads what it is sent."""
    conn = await open_connection(port, "visitor", window=32768)
    process = await conn.create_process(term_type="xterm-256color", term_size=size,
                                        encoding=None, env=env or {})
    process.channel.pause_reading()
    return conn, process


async def huge_terminal_sizes(port: int) -> None:
    """A 4294967295x24 PTY and a 10000x10000 one entering the lobby; 40 alternating huge
    window changes from the second (not reading); 30,000 resizes at the banner."""
    conns = []
    try:
        for size in ((4294967295, 24), (10000, 10000)):
            conn, process = await _guest(port, size)
            conns.append(conn)
            process.stdin.write(b"\r")  # into the lobby, at that size
            await asyncio.sleep(2.5)
        for index in range(40):
            process.change_terminal_size(*((10000, 10000) if index % 2 else (4294967295, 24)))
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.5)
        conn, process = await _guest(port, (80, 24))
        conns.append(conn)
        await asyncio.sleep(0.5)  # at the banner
        for index in range(30_000):
            process.change_terminal_size(100 + index % 2 * 400, 30 + index % 2 * 170)
            if index % 300 == 0:
                await asyncio.sleep(0.01)
        await asyncio.sleep(1.5)
    finally:
        for conn in conns:
            conn.close()


async def many_environment_variables(port: int) -> None:
    """A guest sending 60,000 environment variables of 30 KB each (1.8 GB)."""
    value = b"v" * 30_000
    conn, process = await _guest(port, (80, 24))
    try:
        channel: Any = process.channel
        transport: Any = conn._transport
        for index in range(60_000):
            if transport.is_closing():
                print(f"  the server closed the connection after {index} variables",
                      flush=True)
                break
            # asyncssh's own env= would queue all 1.8 GB in this process first.
            channel._send_request(b"env", _ssh_string(b"X%d" % index), _ssh_string(value))
            while transport.get_write_buffer_size() > 4 * 1024 * 1024:
                await asyncio.sleep(0.002)
            if index % 200 == 0:
                await asyncio.sleep(0)
        await asyncio.sleep(1.0)
    finally:
        conn.close()


async def someone_elses_key(port: int) -> None:
    """ines claims her name; mallory, who knows ines's public key (public keys are not
    secret), pastes it into her keys dialog, then tries to log in as ines with her own key
    and to type guessed codes. Prints whether ines still gets in."""
    ines_key, mallory_key = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    ines = await ScreenClient.connect(port, "ines", key=ines_key)
    await ines.wait_for("Welcome, ines")
    await ines.close()
    mallory = await ScreenClient.connect(port, "mallory", key=mallory_key)
    await enter_lobby(mallory)
    ines_line = ines_key.export_public_key("openssh").decode()
    await mallory.press("k")
    mallory.send(f"\x1b[200~{ines_line}\x1b[201~\r")
    await asyncio.sleep(0.5)
    await mallory.close()
    refused = 0
    for _ in range(5):
        try:
            conn = await open_connection(port, "ines", key=mallory_key)
            conn.close()
        except (asyncssh.PermissionDenied, asyncssh.DisconnectError):
            refused += 1
    ines = await ScreenClient.connect(port, "ines", key=ines_key)
    try:
        await ines.wait_for("Welcome, ines", timeout=10)
        outcome = "ines still logs in"
    except AssertionError:
        outcome = "INES IS LOCKED OUT"
    await ines.close()
    print(f"  mallory's logins as ines refused: {refused}/5; {outcome}", flush=True)


CROWD = 300
"""Connections of the crowd attacks (issue 36: 300 filled the server for everyone)."""
OPERATOR_KEY = "MOON_BENCH_OPERATOR_KEY"
"""Environment variable: the file with the bench operator's (olga's) private key."""


async def _arrive(port: int, username: str, key: asyncssh.SSHKey | None
                  ) -> tuple[ScreenClient | None, str]:
    """One visitor: ("welcome", kept open) or the first words of its refusal."""
    try:
        client = await ScreenClient.connect(port, username, key=key)
    except (OSError, asyncssh.Error) as error:
        return None, f"connection refused: {error}"
    try:
        screen = await client.wait_for(lambda s: "Welcome" in s or client.closed.is_set(),
                                       timeout=60)
    except AssertionError:
        screen = client.text()
    if "Welcome" in screen and not client.closed.is_set():
        return client, "welcome"
    await client.close()
    return None, " ".join(screen.split())[:70]


async def _crowd(port: int, username: str, key: asyncssh.SSHKey | None) -> None:
    """`CROWD` connections as `username`, 20 at a time, each staying; then the operator."""
    began = time.monotonic()
    staying: list[ScreenClient] = []
    answers: dict[str, int] = {}
    try:
        for start in range(0, CROWD, 20):
            for client, answer in await asyncio.gather(
                    *(_arrive(port, username, key) for _ in range(start, min(CROWD,
                                                                              start + 20)))):
                answers[answer] = answers.get(answer, 0) + 1
                if client is not None:
                    staying.append(client)
        print(f"  {answers.get('welcome', 0)} of {CROWD} reached the welcome screen "
              f"({time.monotonic() - began:.0f} s); the others read:", flush=True)
        for answer, count in sorted(answers.items(), key=lambda item: -item[1]):
            if answer != "welcome":
                print(f"    {count} x {answer!r}", flush=True)
        await _operator_logs_in(port)
    finally:
        for client in staying:
            await client.close()


async def _operator_logs_in(port: int) -> None:
    path = os.environ.get(OPERATOR_KEY)
    if not path:
        return
    began = time.monotonic()
    olga = await ScreenClient.connect(port, "olga", key=asyncssh.read_private_key(path))
    try:
        await enter_lobby(olga, timeout=30)
        print(f"  the operator olga is in the lobby after {time.monotonic() - began:.1f} s",
              flush=True)
    except AssertionError:
        print(f"  THE OPERATOR IS LOCKED OUT: {' '.join(olga.text().split())[:120]}",
              flush=True)
    finally:
        await olga.close()


async def many_guests_from_one_address(port: int) -> None:
    """300 guests from one address, each staying at the welcome screen; then the operator
    logs in."""
    await _crowd(port, "visitor", None)


async def one_name_many_connections(port: int) -> None:
    """One keyed name (its key claims it first) with 300 connections, each staying at the
    welcome screen; then the operator logs in."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    first = await ScreenClient.connect(port, "mallet", key=key)
    await first.wait_for("Welcome, mallet")
    await first.close()
    await _crowd(port, "mallet", key)


CYCLING_SECONDS = 45.0
CYCLING_GUESTS = 4


async def guests_cycling_tables(port: int) -> None:
    """Four guests (issue 36), each opening a table, seating two computers, starting and
    leaving mid-game, again and again for `CYCLING_SECONDS`. A guest refused a table
    comes back once as a new guest (a new name), then keeps asking every half second."""
    deadline = time.monotonic() + CYCLING_SECONDS
    opened = refused = 0

    def refusal(screen: str) -> bool:
        return "you opened" in screen  # the toast's first words: on one line

    async def open_one(client: ScreenClient) -> bool:
        """A table opened, filled, started and left; False when it was refused."""
        before = client.text()
        await client.press("n")  # a guest over the limit is told at once, without a form
        screen = await client.wait_for(
            lambda s: "Create (ctrl+s)" in s or (s != before and refusal(s)), 30)
        if "Create (ctrl+s)" not in screen:
            return False
        await client.press("\x13")
        screen = await client.wait_for(lambda s: "waiting room" in s or refusal(s), 30)
        if "waiting room" not in screen:
            await client.press("escape")
            return False
        for _ in range(2):
            before = client.text()
            await client.press("b")
            await changed(client, before)
        await client.wait_for("Every seat is taken", timeout=30)
        await client.press("s")
        await client.wait_for("hand 1", timeout=30)
        await client.press("q")
        await client.wait_for("Press q again", timeout=30)
        await client.press("q")
        await client.wait_for("new table", timeout=30)
        return True

    async def guest() -> None:
        nonlocal opened, refused
        comebacks = 1
        while time.monotonic() < deadline:
            client = await ScreenClient.connect(port, "visitor")
            try:
                await enter_lobby(client, timeout=60)
                while time.monotonic() < deadline:
                    try:
                        done = await open_one(client)
                    except AssertionError as error:  # a screen not reached: try again
                        print(f"  a guest lost its way: {str(error)[:300]!r}", flush=True)
                        await client.press("escape")
                        continue
                    if done:
                        opened += 1
                        continue
                    refused += 1
                    if comebacks:
                        break
                    await asyncio.sleep(0.5)
                comebacks -= 1
            finally:
                await client.close()

    await asyncio.gather(*(guest() for _ in range(CYCLING_GUESTS)))
    print(f"  tables opened and left: {opened}; refused: {refused}", flush=True)


def _ssh_string(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


FLOOD_SECONDS = 30.0
"""How long the floods of connections of issue 36 last."""


async def _at_rate(per_second: float, seconds: float, visit: Callable[[], Awaitable[None]]
                   ) -> int:
    """Start `visit()` `per_second` times a second for `seconds`, each on its own; how
    many were started. A visit that fails (refused, closed) is what the flood expects."""
    tasks: set[asyncio.Task[None]] = set()
    started = time.monotonic()
    count = 0
    while time.monotonic() - started < seconds:
        task = asyncio.create_task(visit())
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        count += 1
        await asyncio.sleep(max(0.0, started + count / per_second - time.monotonic()))
    await asyncio.gather(*tasks, return_exceptions=True)
    return count


async def silent_sockets(port: int) -> None:
    """Issue 36, item 1: TCP connections that never say a word, 60 a second from one
    address (127.0.0.4: loopback has many), each held until the server closes it."""

    async def visit() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       local_addr=("127.0.0.4", 0))
        with contextlib.suppress(TimeoutError, OSError):
            while await asyncio.wait_for(reader.read(4096), 20):
                pass  # the server's version line, then nothing until it closes
        writer.close()

    count = await _at_rate(60, FLOOD_SECONDS, visit)
    print(f"  {count} silent connections", flush=True)


async def banner_quits_and_failed_logins(port: int) -> None:
    """Issue 36, item 1: guests quitting at the welcome banner and logins refused (a name
    no player may have), 5 a second each, from two addresses (a refused login makes its
    address wait: guests from there would be refused too). A key for a name that is
    another key's is no longer refused at once: it is asked for a code (link codes)."""
    quits = refusals = 0

    async def quit_at_the_banner() -> None:
        nonlocal quits
        client = await ScreenClient.connect(port, "visitor", local_addr=("127.0.0.5", 0))
        try:
            await client.wait_for("go to the lobby", timeout=20)
            await client.press("q")
            await client.wait_closed(timeout=20)
            quits += 1
        finally:
            await client.close()

    async def fail_to_log_in() -> None:
        nonlocal refusals
        try:
            conn = await open_connection(port, "no such name!", key=asyncssh.generate_private_key(
                "ssh-ed25519"), local_addr=("127.0.0.6", 0))
            conn.close()
        except (asyncssh.PermissionDenied, asyncssh.DisconnectError):
            refusals += 1

    await asyncio.gather(_at_rate(5, FLOOD_SECONDS, quit_at_the_banner),
                         _at_rate(5, FLOOD_SECONDS, fail_to_log_in))
    print(f"  {quits} quit at the banner, {refusals} logins refused", flush=True)


async def many_channels(port: int) -> None:
    """Issue 36, item 3: a guest at the banner (a session open) sends 400,000 bare
    session channel opens on its connection and never reads the replies."""
    from asyncssh.constants import MSG_CHANNEL_OPEN

    conn, _process = await _guest(port, (80, 24))
    transport: Any = conn._transport
    transport.pause_reading()  # the replies stay unread
    sent = 0
    try:
        for sent in range(400_000):
            if transport.is_closing():
                break
            conn.send_packet(MSG_CHANNEL_OPEN, _ssh_string(b"session"),
                             (sent + 10).to_bytes(4, "big"), (2 * 1024 * 1024).to_bytes(4, "big"),
                             (32768).to_bytes(4, "big"))
            while transport.get_write_buffer_size() > 1024 * 1024:
                await asyncio.sleep(0.002)
            if sent % 500 == 0:
                await asyncio.sleep(0)
        await asyncio.sleep(1.0)
        closed = "the server closed the connection" if transport.is_closing() else "still open"
        print(f"  {sent} channel opens sent; {closed}", flush=True)
    finally:
        conn.close()


ATTACKS: list[tuple[str, Attack]] = [
    ("attack 1: huge terminal sizes", huge_terminal_sizes),
    ("attack 2: 60,000 environment variables of 30 KB", many_environment_variables),
    ("attack 3: a player takes another's public key", someone_elses_key),
    ("attack 4: guests cycling tables", guests_cycling_tables),
    ("attack 5: 300 guests from one address", many_guests_from_one_address),
    ("attack 6: one name with 300 connections", one_name_many_connections),
    ("attack 7: silent sockets, 60 a second", silent_sockets),
    ("attack 8: banner quits and failed logins, 5 a second each",
     banner_quits_and_failed_logins),
    ("attack 9: 400,000 bare channel opens, replies unread", many_channels),
]


# --- the measurements ----------------------------------------------------------------------


class RssWatch:
    """The server's peak RSS, read from /proc every 20 ms (independent of its loop)."""

    def __init__(self, pid: int) -> None:
        self.path = Path(f"/proc/{pid}/status")
        self.peak_kb = 0
        self._task: asyncio.Task[None] | None = None

    def now_kb(self) -> int:
        for line in self.path.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def start(self) -> None:
        self.peak_kb = self.now_kb()
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> int:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        return max(self.peak_kb, self.now_kb())

    async def _watch(self) -> None:
        while True:
            self.peak_kb = max(self.peak_kb, self.now_kb())
            await asyncio.sleep(0.02)


class CalmPlayer:
    """A player in the lobby typing into the chat line; every key is timed to the screen."""

    def __init__(self, client: ScreenClient) -> None:
        self.client = client
        self.latencies: list[float] = []
        self.when: list[float] = []
        """perf_counter() at each key's send, beside `latencies`."""
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def arrive(cls, port: int) -> CalmPlayer:
        client = await ScreenClient.connect(port, "calm", key=asyncssh.generate_private_key(
            "ssh-ed25519"))
        await enter_lobby(client, timeout=60)
        await client.press("c")  # the chat line: each key then changes the screen
        await asyncio.sleep(0.5)
        player = cls(client)
        player._task = asyncio.create_task(player._type())
        return player

    async def _type(self) -> None:
        client = self.client
        presses = 0
        while True:
            await asyncio.sleep(KEY_PAUSE)
            seen = client.updates
            sent = time.perf_counter()
            await client.press("x" if presses % 2 == 0 else "backspace")
            presses += 1
            deadline = sent + 10
            while client.updates == seen and time.perf_counter() < deadline:
                client._changed.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(client._changed.wait(), 1)
            self.latencies.append(
                client.last_update - sent if client.updates != seen else 10.0)
            self.when.append(sent)

    async def leave(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.client.close()


async def ask(server: asyncio.subprocess.Process, command: str) -> dict[str, Any]:
    """A command of `bench/ssh_load.py`'s server control protocol, and its reply."""
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(command.encode() + b"\n")
    await server.stdin.drain()
    reply: dict[str, Any] = json.loads(await asyncio.wait_for(server.stdout.readline(), 60))
    return reply


def _records(data: str) -> int:
    """Game records the server has saved so far."""
    with contextlib.closing(sqlite3.connect(Path(data) / "moon.sqlite3")) as db:
        (count,) = db.execute("SELECT count(*) FROM records").fetchone()
    return int(count)


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(1, math.ceil(share * len(ordered))) - 1]


async def main(chosen: list[str]) -> None:
    """`chosen`: numbers of the attacks to run, or words of their names (all when empty)."""
    attacks = [attack for number, attack in enumerate(ATTACKS, 1)
               if not chosen or str(number) in chosen
               or any(word in attack[0] for word in chosen if not word.isdigit())]
    data = tempfile.mkdtemp(prefix="moon-attacks-")
    olga = asyncssh.generate_private_key("ssh-ed25519")
    olga_path = Path(data) / "olga_key"
    olga.write_private_key(olga_path)
    olga.write_public_key(Path(data) / "olga_key.pub")
    os.environ[OPERATOR_KEY] = str(olga_path)  # for the attackers' processes
    server = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "bench" / "ssh_load.py"), "--serve", data,
        "--operator", str(Path(data) / "olga_key.pub"),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None
    began = time.monotonic()
    try:
        port = json.loads(await server.stdout.readline())["port"]
        rss = RssWatch(server.pid)
        await asyncio.sleep(1.0)
        fresh_kb = rss.now_kb()
        print(f"fresh server: RSS {fresh_kb / 1024:.0f} MB", flush=True)
        calm = await CalmPlayer.arrive(port)
        await asyncio.sleep(2.0)
        quiet = list(calm.latencies)
        print(f"calm player alone: key->screen p99 {percentile(quiet, 0.99) * 1000:.0f} ms "
              f"({len(quiet)} keys)", flush=True)
        results = []
        for name, _attack in attacks:
            before = await ask(server, "begin")
            calm.latencies.clear()
            calm.when.clear()
            rss.start()
            began_keys = time.perf_counter()
            started = time.monotonic()
            # The attacker is a process of its own, as it would be a machine of its own:
            # sending 1.8 GB here would slow the calm player's client, not the server.
            attacker = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--attack", name, str(port))
            await attacker.wait()
            await asyncio.sleep(SETTLE)
            peak_kb = await rss.stop()
            figures = await ask(server, "status")
            keys = list(calm.latencies)
            over_mb = (peak_kb - fresh_kb) / 1024
            after_mb = (rss.now_kb() - fresh_kb) / 1024
            p99_ms = percentile(keys, 0.99) * 1000
            ok = over_mb < RSS_TARGET_MB and p99_ms < P99_TARGET_MS
            results.append(ok)
            print(f"{name}: peak RSS +{over_mb:.0f} MB over fresh (after: +{after_mb:.0f} MB), "
                  f"other player's key->screen p99 {p99_ms:.0f} ms, max "
                  f"{max(keys, default=float('nan')) * 1000:.0f} ms ({len(keys)} keys), "
                  f"server's longest loop stall {figures['stall_run'] * 1000:.0f} ms, "
                  f"{time.monotonic() - started:.0f} s  [{'ok' if ok else 'OVER TARGET'}]",
                  flush=True)
            print(f"  game records in the database: {_records(data)}", flush=True)
            if "frozen" in figures:
                print(f"  frozen objects {before['frozen']} -> {figures['frozen']} "
                      f"({figures['frozen'] - before['frozen']:+d}); memory reclaims "
                      f"{figures['reclaims'] - before['reclaims']}, the longest of all "
                      f"{figures['longest_reclaim'] * 1000:.0f} ms; freezes "
                      f"{figures['freezes'] - before['freezes']}, of which with young "
                      f"connections open "
                      f"{figures['deferred_freezes'] - before['deferred_freezes']}",
                      flush=True)
            slow = [(round(at - began_keys, 1), round(late * 1000))
                    for at, late in zip(calm.when[:len(keys)], keys, strict=True)
                    if late > P99_TARGET_MS / 1000]
            if slow:
                print(f"  the calm player's keys over {P99_TARGET_MS} ms (s into the attack, "
                      f"ms): {slow[:20]}; "
                      f"the server's own key->frame in the lobby: {figures['answers']['lobby']}",
                      flush=True)
            if figures["long_stalls"]:
                print(f"  stalls over 100 ms (s into the attack, ms, server CPU ms): "
                      f"{figures['long_stalls']}", flush=True)
        await calm.leave()
        print(f"targets: RSS < +{RSS_TARGET_MB} MB, p99 < {P99_TARGET_MS} ms; "
              f"{sum(results)}/{len(results)} attacks within them; "
              f"total {time.monotonic() - began:.0f} s", flush=True)
    finally:
        with contextlib.suppress(Exception):
            server.stdin.write(b"quit\n")
            await server.stdin.drain()
        try:
            await asyncio.wait_for(server.wait(), 30)
        except TimeoutError:
            server.kill()


async def run_attack(name: str, port: int) -> None:
    attack = dict(ATTACKS)[name]
    try:
        await attack(port)
    except (OSError, asyncssh.Error) as error:
        print(f"  {name}: the attacker's connection ended: {error}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--attack":
        asyncio.run(run_attack(sys.argv[2], int(sys.argv[3])))
    else:
        asyncio.run(main(sys.argv[1:]))
