"""`moon-server`: run the club's SSH game server with no configuration at all.

`moon-server backup FILE` copies its database, the server running or not (`backup.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path

from moon_tui.commandline import OneLineParser, number_in, say

from .backup import BackupRefused, back_up
from .bus import WorkerPlace
from .config import DEFAULT_PORT, WORKERS_MAX, ConfigError, ServerConfig, build_config
from .datafolder import CannotStart
from .internals import UnsupportedVersion
from .service import MoonServer
from .subcommand import DATA_FOLDER_EPILOG, add_data_arguments, config_of

log = logging.getLogger("server")

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(
        prog="moon-server",
        description="A Moon domino club over SSH: players connect with "
        f"'ssh -p {DEFAULT_PORT} name@host'.",
        epilog="Environment: MOON_HOST, MOON_PORT, MOON_DATA, MOON_MOTD, MOON_GUESTS=on|off, "
        "MOON_WORKERS, MOON_REDIS, MOON_CONFIG. "
        "Precedence: flags > environment > config file > defaults. "
        "'moon-server backup FILE' copies the database, even while the server runs "
        "(see 'moon-server backup --help'); 'moon-server ratings --rebuild' computes "
        "the ratings again from the game records.",
    )
    defaults = ServerConfig()
    parser.add_argument("--host", help=f"address to listen on (default {defaults.host})")
    parser.add_argument("--port", type=number_in(0, 65535),
                        help=f"port to listen on (default {defaults.port})")
    parser.add_argument(
        "--data", type=Path,
        help=f"folder for the host key and database (default ./{defaults.data})",
    )
    parser.add_argument("--config", type=Path, help="a TOML configuration file")
    parser.add_argument("--workers", type=number_in(1, WORKERS_MAX),
                        help="worker processes sharing the port and the club through a bus "
                        "(default 1: one process, no bus)")
    parser.add_argument("--redis", metavar="URL",
                        help="the bus: unix:///path, rediss://... or redis://:PASSWORD@host "
                        "(default with --workers above 1: its own valkey-server in the data "
                        "folder)")
    parser.add_argument("--log-level", default="INFO", type=str.upper, choices=LOG_LEVELS,
                        help="DEBUG, INFO, WARNING or ERROR (default INFO)")
    return parser.parse_args(argv)


def parse_backup_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(
        prog="moon-server backup",
        description="Copy the server's database (accounts, keys, bans, game records) to "
        "FILE with SQLite's online backup: consistent, and safe while the server runs.",
        epilog=f"{DATA_FOLDER_EPILOG} The host key is not in the database: "
        "copy it once. Exit status: 0 written, 1 refused (FILE exists, no database, "
        "cannot read or write), 2 a wrong command line or configuration.",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="the backup file to write")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    add_data_arguments(parser)
    return parser.parse_args(argv)


def backup(argv: list[str]) -> int:
    """`moon-server backup FILE`: 0 written, 1 refused, 2 a wrong configuration."""
    args = parse_backup_args(argv)
    config = config_of("moon-server backup", args)
    if config is None:
        return 2
    try:
        made = back_up(config.database_path, args.file, force=args.force)
    except BackupRefused as error:
        say("moon-server backup", str(error))
        return 1
    print(f"moon-server backup: {made}")
    return 0


def _install_uvloop() -> bool:
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


RESTART_EXIT_STATUS = 75
"""An operator's restart ends `moon-server` with this status (EX_TEMPFAIL), so that the
service manager starts it again (`RestartForceExitStatus=75` in moon-server.service)."""


async def serve(config: ServerConfig, place: WorkerPlace | None = None) -> int:
    """Run until stopped: SIGINT stops at once; SIGTERM too, or, with
    `restart_countdown_seconds`, after telling everyone (a second SIGTERM: at once); an
    operator's restart stops it at the end of its countdown. Returns the exit status.
    `place`: one worker of a club on a bus (`supervisor.py`)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    started: MoonServer | None = None
    terms = 0

    def terminate() -> None:
        nonlocal terms
        terms += 1
        countdown = config.restart_countdown_seconds
        if started is None or countdown <= 0 or terms > 1:
            stop.set()
            return
        log.info("SIGTERM: restarting in %g s (another SIGTERM stops at once)", countdown)
        started.restart_on_signal(countdown)

    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGTERM, terminate)
        loop.add_signal_handler(signal.SIGINT, stop.set)
    async with MoonServer(config, freeze_memory=True, place=place) as server:
        started = server
        stopped = asyncio.create_task(server.stopped.wait())
        signalled = asyncio.create_task(stop.wait())
        await asyncio.wait({stopped, signalled}, return_when=asyncio.FIRST_COMPLETED)
        for task in (stopped, signalled):
            task.cancel()
        if stop.is_set():
            log.info("signal received: stopping")
    if server.restart.ended_by:  # an operator's restart: to be started again
        return RESTART_EXIT_STATUS
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["backup"]:
        return backup(argv[1:])
    if argv[:1] == ["ratings"]:
        from .ratings_cli import main as ratings

        return ratings(argv[1:])
    args = parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, args.log_level),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    try:
        config = build_config(
            config_file=args.config, host=args.host, port=args.port, data=args.data,
            workers=args.workers, redis=args.redis,
        )
    except ConfigError as error:
        say("moon-server", str(error))
        return 2
    place = None
    if config.workers > 1:
        from .supervisor import Supervisor
    elif config.redis:  # one worker on a bus (to measure what the bus costs)
        place = WorkerPlace(0, config.redis, supervised=False)
    if config.workers == 1 and _install_uvloop():
        log.info("using uvloop")
    try:
        if config.workers > 1:
            status = asyncio.run(Supervisor(config, args.log_level).run())
        else:
            status = asyncio.run(serve(config, place))
    except (CannotStart, UnsupportedVersion) as error:  # what to do, in one paragraph
        say("moon-server", f"cannot start: {error}")
        return 1
    except OSError as error:
        say("moon-server", f"cannot start: {error}")
        return 1
    except ValueError as error:
        say("moon-server", str(error))
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
