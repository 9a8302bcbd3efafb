"""Tables survive the server: `moon-server` killed with SIGKILL (or stopped with SIGTERM)
in the middle of a game and started again on the same data folder brings every table back,
and each player reconnecting with their key sees the same hand and plays on.

Everything here is real: `moon-server` in its own process, SSH clients with a terminal,
the SQLite file in the data folder, and `moon-rules replay` on the finished record.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import asyncssh
import pytest

from tools.probe import (
    ScreenClient,
    changed,
    cursor_on,
    enter_lobby,
    moon_server_process,
    new_key,
    next_move,
    offered_bids,
)

pytestmark = pytest.mark.ssh

REPO = Path(__file__).resolve().parent.parent
CONFIG = """\
bot_delay = 0
shutdown_notice_seconds = 0
restart_countdown_seconds = 0
[limits]
trick_pause_seconds = 0
hand_result_seconds = {hand_result}
"""
WAIT = 30.0
"""Seconds a screen may take to show something (a fresh server process, a busy machine)."""


class Club:
    """One data folder, and `moon-server` started on it as often as a test needs."""

    def __init__(self, tmp_path: Path, hand_result: float = 0) -> None:
        self.data = tmp_path / "data"
        self.config = tmp_path / "config.toml"
        self.config.write_text(CONFIG.format(hand_result=hand_result))
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0
        self.clients: list[ScreenClient] = []

    async def start(self) -> None:
        self.process, self.port, _ = await moon_server_process(
            self.data, "--config", str(self.config))

    async def connect(self, name: str, key: asyncssh.SSHKey) -> ScreenClient:
        client = await ScreenClient.connect(self.port, name, key=key, width=100, height=30)
        self.clients.append(client)
        return client

    async def kill(self) -> None:
        """SIGKILL: no goodbye, nothing saved on the way out."""
        assert self.process is not None
        self.process.kill()
        await self.process.wait()
        await self._drop_clients()

    async def terminate(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(self.process.wait(), WAIT) == 0
        await self._drop_clients()

    async def _drop_clients(self) -> None:
        for client in self.clients:
            await client.close()
        self.clients.clear()

    async def stop(self) -> None:
        await self._drop_clients()
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    def finished_records(self) -> list[str]:
        with sqlite3.connect(self.data / "moon.sqlite3") as db:
            rows = db.execute("SELECT record FROM records WHERE finished = 1").fetchall()
        return [text for (text,) in rows]


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    club = Club(tmp_path)
    try:
        yield club
    finally:
        await club.stop()


# --- reading and playing the table screen ---------------------------------------------------

_TILE_LABEL = re.compile(r"[└╰┗][┄─━](\d-\d)[┄─━][┘╯┛]")


def hand_tiles(screen: str) -> list[str]:
    """The tiles of the player's hand, as drawn along the bottom of the table screen."""
    return _TILE_LABEL.findall(screen)


def facts(screen: str) -> list[str]:
    """What the game looks like on a table screen: the heading (hand, bid, trump), each
    seat's bids and tricks, the trick on the table and the player's tiles. Not the chat
    and not who is away, which may differ when a player comes back before the others."""
    rows = screen.splitlines()
    kept = [rows[0].strip()]
    for row in rows[1:]:
        panels = row.split("▏")
        if len(panels) >= 2:
            left = panels[0].replace("▶", " ").replace(" (away)", "").strip()
            if left and "away" not in left:
                kept.append(left)
            middle = panels[1].strip()
            if middle and "waiting" not in middle and "away" not in middle:
                kept.append(middle)
    return kept + hand_tiles(screen)


_BID_MADE = re.compile(r"^\s*▶?\s*(passed|bid \d|bid the moon)")


def bids_made(screen: str) -> int:
    """How many seats have bid or passed, by the seat lines of the table screen."""
    return sum(1 for row in screen.splitlines()
               if _BID_MADE.match(row.split("▏")[0]))


def move(screen: str) -> str | None:
    """The key a player presses on this screen (None: not their turn); in the auction the
    lowest bid offered, so that a table of people does not pass every hand away."""
    bids = offered_bids(screen)
    if bids is not None:
        return str(min(bids)) if bids else "p"
    return next_move(screen)


def my_turn(screen: str) -> bool:
    return move(screen) is not None


def tricks_played(screen: str) -> bool:
    """A trick of this hand is over: the table shows a later one, or who took the first
    (a player who took it leads the next, and "Trick 2" shows only after their lead: in
    a game of two hands ann took the first trick both times and never saw her turn with
    "Trick 2" on screen)."""
    return bool(re.search(r"Trick [2-7]", screen)) or (
        "Trick 1:" in screen and "took it" in screen)  # (a long name wraps "took it")


async def play(clients: list[ScreenClient], done: Callable[[list[str]], bool],
               timeout: float = 120.0) -> list[str]:
    """Everyone plays whatever their screen asks for until `done(screens)`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        screens = [client.text() for client in clients]
        if done(screens):
            return screens
        assert loop.time() < deadline, "the game did not get there:\n" + "\n\n".join(screens)
        pressed = False
        for client, screen in zip(clients, screens, strict=True):
            key = move(screen)
            if key is not None:
                await client.press(key)
                await changed(client, screen, 1.0)
                pressed = True
        if not pressed:
            await asyncio.sleep(0.05)


async def create_table(client: ScreenClient, *, players: int = 3, target: int | None = None,
                       bots: int = 2) -> None:
    """From the lobby: a table with these options, `bots` computer players, not started."""
    await client.press("n")
    await client.wait_for("Create (ctrl+s)", WAIT)
    tabs = 0
    if players == 4:
        await client.press("tab", "right", pause=0.1)
        await client.wait_for("4, two teams", WAIT)
        tabs = 1
    if target is not None:
        # name, players, lowest bid, if all pass, scoring, (team makes: 4 players), tie
        fields = 7 if players == 4 else 6
        await client.press(*["tab"] * (fields - tabs), *str(target), pause=0.1)
        await client.wait_for(f"Target           {target}", WAIT)
    await client.press("\x13")
    await client.wait_for("waiting room", WAIT)
    for _ in range(bots):
        before = client.text()
        await client.press("b")
        await changed(client, before)


async def start_game(client: ScreenClient) -> None:
    await client.wait_for("Every seat is taken", WAIT)
    await client.press("s")
    await client.wait_for("hand 1", WAIT)


async def settled(client: ScreenClient, what: Callable[[str], bool] | str) -> str:
    """The screen once it shows `what` and then stops changing (a whole frame, not the
    middle of one)."""
    screen = await client.wait_for(what, WAIT)
    while True:
        await asyncio.sleep(0.3)
        now = client.text()
        if now == screen:
            return screen
        screen = await client.wait_for(what, WAIT)


async def back_at_the_table(club: Club, name: str, key: asyncssh.SSHKey) -> ScreenClient:
    """`name` connects with their key after the restart and lands in their seat."""
    client = await club.connect(name, key)
    await client.wait_for(lambda s: "hand " in s.splitlines()[0], WAIT)
    return client


def replay_ok(record: str, tmp_path: Path) -> None:
    """`moon-rules replay` accepts the record (exit 0: every decision legal)."""
    path = tmp_path / "game.json"
    path.write_text(record)
    done = subprocess.run([sys.executable, "-m", "moon_tui.rules.cli", "replay", str(path)],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


# --- the tests ------------------------------------------------------------------------------

async def test_sigkill_after_some_plays_the_hand_comes_back_and_the_game_ends(
        club: Club, tmp_path: Path) -> None:
    ann_key = new_key()
    await club.start()
    ann = await club.connect("ann", ann_key)
    await enter_lobby(ann, WAIT)
    await create_table(ann, target=7)
    await start_game(ann)
    await play([ann], lambda s: tricks_played(s[0]) and my_turn(s[0]))
    await ann.press("c")
    await ann.wait_for(lambda _: cursor_on(ann, "c: chat at this table"), WAIT)
    await ann.press(*"back soon", "enter")
    await ann.wait_for("ann: back soon", WAIT)
    await ann.press("escape")
    before = facts(await settled(ann, my_turn))
    await club.kill()

    await club.start()
    carl = await club.connect("carl", new_key())
    lobby = await enter_lobby(carl, WAIT)
    assert "ann's table" in lobby and "playing" in lobby
    ann = await back_at_the_table(club, "ann", ann_key)
    screen = await settled(ann, my_turn)
    assert facts(screen) == before
    assert "ann: back soon" in screen  # the table chat came back too
    await play([ann], lambda s: "The game is over" in s[0], timeout=180)
    await club.terminate()
    (record,) = club.finished_records()
    assert json.loads(record)["seats"][0] == "ann"
    replay_ok(record, tmp_path)


async def test_sigkill_in_the_auction_of_three_players(club: Club) -> None:
    keys = {name: new_key() for name in ("ann", "bob", "carl")}
    await club.start()
    ann, bob, carl = [await club.connect(name, key) for name, key in keys.items()]
    for client in (ann, bob, carl):
        await enter_lobby(client, WAIT)
    await create_table(ann, bots=0)
    for client in (bob, carl):
        await client.wait_for("ann's table", WAIT)
        await client.press("j")
        await client.wait_for("waiting room", WAIT)
    await start_game(ann)
    clients = [ann, bob, carl]
    # One bid made; the next bidder to move.
    screens = await play(clients, lambda s: any(bids_made(x) == 1 for x in s)
                         and any("Your bid" in x for x in s))
    assert len(screens) == 3
    before = [facts(await settled(client, "Bidding")) for client in clients]
    await club.kill()

    await club.start()
    clients = [await back_at_the_table(club, name, key) for name, key in keys.items()]
    await clients[0].wait_for(lambda s: "away" not in s, WAIT)  # all three are back
    screens = [await settled(client, "Bidding") for client in clients]
    assert [facts(s) for s in screens] == before
    await play(clients, lambda s: "Trick 2" in s[0])


async def test_sigkill_between_hands_at_a_four_player_table_with_a_spectator(
        tmp_path: Path) -> None:
    club = Club(tmp_path, hand_result=120)  # the hand's result waits for ann's Enter
    try:
        ann_key, bob_key = new_key(), new_key()
        await club.start()
        ann = await club.connect("ann", ann_key)
        bob = await club.connect("bob", bob_key)
        await enter_lobby(ann, WAIT)
        await enter_lobby(bob, WAIT)
        await create_table(ann, players=4, bots=3)
        await start_game(ann)
        await bob.wait_for("ann's table", WAIT)
        await bob.press("w")
        await bob.wait_for("hand 1", WAIT)
        await play([ann], lambda s: "Enter: on to the next hand" in s[0])
        before = facts(await settled(ann, "Enter: on to the next hand"))
        await club.kill()

        await club.start()
        ann = await back_at_the_table(club, "ann", ann_key)
        screen = await settled(ann, "Enter: on to the next hand")
        assert facts(screen) == before
        bob = await club.connect("bob", bob_key)  # a spectator comes back watching
        await bob.wait_for(lambda s: "You are watching" in s and "ann's table" in s, WAIT)
        if "Enter: on to the next hand" in ann.text():
            await ann.press("enter")
        await ann.wait_for("hand 2", WAIT)
        await bob.wait_for("hand 2", WAIT)
    finally:
        await club.stop()


async def test_sigterm_loses_nothing_not_even_the_last_tile(club: Club) -> None:
    ann_key = new_key()
    await club.start()
    ann = await club.connect("ann", ann_key)
    await enter_lobby(ann, WAIT)
    await create_table(ann)
    await start_game(ann)
    (screen,) = await play([ann], lambda s: "Trick 1" in s[0] and my_turn(s[0]))
    tiles = hand_tiles(screen)
    key = move(screen)
    assert key is not None
    await ann.press(key)
    played = await ann.wait_for(lambda s: len(hand_tiles(s)) == len(tiles) - 1, WAIT)
    await club.terminate()  # at once: the very next moment after the tile was shown

    await club.start()
    ann = await back_at_the_table(club, "ann", ann_key)
    screen = await settled(ann, lambda s: bool(hand_tiles(s)))
    assert hand_tiles(screen) == hand_tiles(played)
