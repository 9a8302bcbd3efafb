"""What every offline `moon-server` subcommand shares: how it finds the server's data.

`moon-server backup` and `moon-server ratings` read the database of a server that may be
running; they find its data folder exactly as the server does (--data, then MOON_DATA,
then 'data' in --config or MOON_CONFIG), so an operator never names it twice.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from moon_tui.commandline import say

from .config import ConfigError, ServerConfig, build_config

DATA_FOLDER_EPILOG = ("The data folder is found as the server finds it: --data, then "
                      "MOON_DATA, then 'data' in --config or MOON_CONFIG.")


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """The `--data` and `--config` options, as `moon-server` itself takes them."""
    parser.add_argument("--data", type=Path, help="the server's data folder")
    parser.add_argument("--config", type=Path, help="the server's TOML configuration file")


def config_of(prog: str, args: argparse.Namespace) -> ServerConfig | None:
    """The server's configuration, or None after saying (as `prog`) what is wrong with it."""
    try:
        return build_config(config_file=args.config, data=args.data)
    except ConfigError as error:
        say(prog, str(error))
        return None
