"""`moon`: play in your own terminal against computer players, no server, no network.

The same app as over SSH, with its own in-process lobby and a table already set up:
`moon --players 4 --level expert --rule min_bid=3`.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import sys
from collections.abc import Sequence
from typing import Any

from textual.worker import Worker

from .app import MoonApp
from .commandline import OneLineParser, number_in, say
from .lobby import (
    AddBot,
    CreateTable,
    LeaveTable,
    Lobby,
    LobbyConfig,
    PlayerHandle,
    StartGame,
)
from .lobby.messages import BOT_LEVELS, BotLevel, Event, TableLeft, TableUpdate
from .rules import Rules, RulesError, parse_options
from .rules.record import SEAT_NAME_MAX

log = logging.getLogger(__name__)

TIMER_MAX_SECONDS = 3600
"""The longest turn timer, as a table at the server takes it (the lobby refuses more)."""


class LocalMoonApp(MoonApp):
    """A `MoonApp` that hosts its own lobby and opens a table with computer players."""

    def __init__(self, name: str, rules: Rules, *, level: BotLevel = "normal",
                 config: LobbyConfig | None = None, seed: int | None = None,
                 turn_seconds: int | None = None, set_up_table: bool = True,
                 **app_options: Any) -> None:
        """`app_options` go to `MoonApp` (a lesson at the server passes the session's)."""
        super().__init__(Lobby(config or LobbyConfig(), seed=seed), name, **app_options)
        self.rules = rules
        self.level: BotLevel = level
        self.turn_seconds = turn_seconds
        self._lobby_ready = asyncio.Event()
        self._lobby_stop = asyncio.Event()
        self._host: Worker[None] | None = None
        self._table_set_up = not set_up_table
        self.solo = set_up_table
        self._new_game = False

    async def _run_lobby(self) -> None:
        async with self.lobby:
            self._lobby_ready.set()
            await self._lobby_stop.wait()

    async def open_handle(self) -> PlayerHandle:
        self._host = self.run_worker(self._run_lobby(), name="lobby", group="lobby")
        await self._lobby_ready.wait()
        return await super().open_handle()

    def on_session_start(self) -> None:
        if self._table_set_up:
            return
        self.send(CreateTable(f"{self.player_name}'s table", self.rules,
                              turn_seconds=self.turn_seconds, private=True))

    def take(self, event: Event) -> None:
        super().take(event)
        if isinstance(event, TableUpdate) and not self._table_set_up:
            self._set_up(event)
        elif isinstance(event, TableLeft) and self._new_game:
            self._new_game = False
            self._table_set_up = False
            self.on_session_start()

    def action_new_game(self) -> None:
        """Leave this game (it ends: nobody else is at the table) and open a new one."""
        table_id = self.current_table
        if table_id is None:
            self._table_set_up = False
            self.on_session_start()
            return
        self._new_game = True
        self.send(LeaveTable(table_id))

    def _set_up(self, event: TableUpdate) -> None:
        """Fill the free seats of our new table with computer players, then start."""
        info = event.table
        if info.owner != self.player_name or info.status != "waiting":
            return
        free = [i for i, seat in enumerate(info.seats) if seat.is_free]
        if free:
            for seat in free:
                self.send(AddBot(info.table_id, seat, self.level))
            return
        self._table_set_up = True
        self.send(StartGame(info.table_id))

    async def action_quit(self) -> None:
        self._lobby_stop.set()
        if self._host is not None:
            try:
                await asyncio.wait_for(self._host.wait(), timeout=5)
            except Exception:  # noqa: BLE001 - leaving anyway
                log.debug("the local lobby did not stop cleanly", exc_info=True)
        self.exit()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = OneLineParser(
        prog="moon", description="Play Moon, the domino game, against computer players.")
    parser.add_argument("--players", type=number_in(3, 4), default=3,
                        help="3 (each for themselves) or 4 (two teams); default 3")
    parser.add_argument("--level", choices=BOT_LEVELS, default="normal",
                        help="how well the computer players play; default normal")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a table option of RULES.md, e.g. min_bid=3 or no_trump=false "
                             "(repeat for more)")
    parser.add_argument("--timer", type=number_in(1, TIMER_MAX_SECONDS), default=None,
                        metavar="SECONDS", help=f"a turn timer, 1 to {TIMER_MAX_SECONDS} s (a "
                        "computer plays for you when it runs out)")
    parser.add_argument("--name", default=None, help="your name at the table")
    parser.add_argument("--seed", type=number_in(0, 2**63 - 1), default=None,
                        help="shuffle seed, to replay a game")
    parser.add_argument("--fast", action="store_true", help="computer players do not pause")
    parser.add_argument("--lesson", action="store_true",
                        help="learn to play: one guided hand, then a game")
    parser.add_argument("--log", default=None, metavar="FILE",
                        help="write the game's log to FILE (nothing is logged otherwise)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        options = parse_options(args.rule)
        options["players"] = args.players
        rules = Rules.make(**options)
        rules.check_new()
    except RulesError as exc:
        say("moon", str(exc))
        return 2
    try:
        name = args.name or getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        name = "you"
    name = name.strip()[:SEAT_NAME_MAX] or "you"
    # Anything written to the terminal would tear the screen: log to a file or nowhere.
    if args.log:
        try:
            handler = logging.FileHandler(args.log, encoding="utf-8")
        except OSError as exc:  # a folder, a missing folder, no right to write
            say("moon", f"cannot write the log to {args.log}: {exc.strerror or exc}")
            return 2
        handler.setFormatter(logging.Formatter(
            "%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.basicConfig(handlers=[handler], level=logging.INFO)
    else:
        logging.getLogger().addHandler(logging.NullHandler())
    config = LobbyConfig(bot_delay=0.0 if args.fast else 0.6, trick_pause=0.0 if args.fast else 1.5,
                         hand_result_seconds=0.0 if args.fast else 10.0,
                         hand_pause=0.5 if args.fast else 2.0)
    app: LocalMoonApp
    if args.lesson:
        from .lesson import LessonApp

        app = LessonApp(name)
    else:
        app = LocalMoonApp(name, rules, level=args.level, config=config, seed=args.seed,
                           turn_seconds=args.timer)
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
