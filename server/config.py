"""The server's settings: embedded defaults, then a TOML file, then environment, then flags.

A club runs `moon-server` with no configuration at all; everything here has a default.
The settings the lobby has too (grace, chat limits, the computer players' pace) take the
lobby's defaults (`moon_tui.lobby.LobbyConfig`), and `ServerConfig.lobby_config()` hands
them on by name (`lobby_limits`): each default is written once, and a limit named as a
lobby setting reaches the lobby without a line of its own.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from moon_tui.commandline import whole_number
from moon_tui.files import MEGABYTE, read_limited
from moon_tui.lobby import LobbyConfig
from moon_tui.shown import brief, shown

_LOBBY = LobbyConfig()

DEFAULT_PORT = 2222
DEFAULT_DATA = "moon-data"
CONFIG_FILE_MAX_BYTES = MEGABYTE
"""The largest configuration file read (a real one is a few KB)."""
NUMBER_MAX = 10**15
"""No setting is a number past this (a count, seconds or bytes): larger is a mistake."""


class ConfigError(ValueError):
    """A configuration file or value that cannot be used, with the reason in words."""


@dataclass(frozen=True, slots=True)
class Limits:
    max_sessions: int = 300
    """Interactive sessions at once, over all players (operators get in past it)."""
    # --- places: what one address, one name, the guests may hold (issue 36) ---
    sessions_per_address_max: int = 30
    """Sessions (the welcome screen counts) from one address at once. A club behind one
    NAT is one address: keep it above the members who play from one place."""
    guest_sessions_per_address_max: int = 10
    """Guest sessions from one address at once (within `sessions_per_address_max`)."""
    sessions_per_name_max: int = 3
    """Sessions of one name at once (a second computer, a takeover, a session ending)."""
    places_kept_for_members: int = 30
    """Places of `max_sessions` guests may not take: kept for players with a key."""
    new_names_per_address_per_hour: int = 10
    """Names claimed from one address in an hour; past it new names wait there."""
    new_names_per_hour: int = 200
    """Names claimed on the whole server in an hour; past it new names wait."""
    # --- logins from one address, and bans (who may try, how often, for how long) ---
    connections_per_address: int = 12
    """Connections from one address still logging in at once. Past it, guests and new
    names wait; a key of an existing player still gets in (a NAT'd club is one address)."""
    connections_per_address_max: int = 48
    """Connections from one address still logging in at once, past which the oldest of
    them is closed (a flood costs little and stays at its address; a player's login,
    a few round trips, still gets through)."""
    failed_logins_per_address: int = 8
    """Refused keys, names or guest tries from one address before it must wait. While it
    waits, guests and new names are refused; a player's own key still gets in."""
    failure_backoff_seconds: float = 30.0
    """First wait after too many failed logins; doubles on each repeat, up to 15 minutes."""
    version_timeout_seconds: float = 10.0
    """A connection that has not sent the first line every SSH client sends at once (its
    version) by then is closed, before `login_timeout_seconds` (0: not checked). Silent
    sockets from many addresses otherwise each cost memory and collection time until the
    login timeout."""
    login_timeout_seconds: float = 15.0
    """A connection not logged in by then is closed; so is a logged-in one that has not
    opened its session by then (`ssh -N`). A key's passphrase is typed within it."""
    address_ban_days: float = 7.0
    """A ban also refuses guests and new names from the addresses the banned name last
    used, for this many days (keyed players of those addresses still get in; 0: never)."""
    kick_minutes: float = _LOBBY.kick_minutes
    """A kicked player (their name, and guests and new names from their address) is kept
    out this long, unless the operator gives a time (`kick bob 30m rude`)."""
    board_minutes: float = _LOBBY.board_minutes
    """An operator's broadcast stays on the lobby's notice board this long, unless the
    operator gives a time (`say 2h tea at 8`) or a new one replaces it."""
    idle_minutes: float = 30.0
    """No key pressed for this long ends the session."""
    starts_at_once: int = 4
    """Players' apps starting at the same time (each ~0.1 s of CPU, in small steps); the
    others wait their turn. After a restart everyone comes back at once: a few at a time
    keep the CPU busy without a gap and the players already in answered (server/door.py)."""
    keepalive_seconds: float = 30.0
    chat_lines_per_10s: int = _LOBBY.chat_lines_per_10s
    chat_max_chars: int = _LOBBY.chat_max_chars
    grace_seconds: float = _LOBBY.grace_seconds
    """A dropped player keeps their seat this long while a computer plays it."""
    reconnect_wait_seconds: float = _LOBBY.reconnect_wait_seconds
    """A dropped player's turn waits this long (from the drop) for them to come back before
    the computer plays it; the table's turn timer runs on meanwhile."""
    restart_grace_seconds: float = _LOBBY.restart_grace_seconds
    """After a restart, the players of the tables that came back keep their seats this long,
    and their turns wait for them as long."""
    trick_pause_seconds: float = _LOBBY.trick_pause
    """A finished trick stays in view at least this long before a computer leads the next."""
    hand_result_seconds: float = _LOBBY.hand_result_seconds
    """A hand's result stays until every seated player has read it (Enter), or this long."""
    tables_per_hour: int = _LOBBY.tables_per_hour
    """New tables one player (the guests of one address together) may open in any hour;
    operators are not counted."""
    tables_per_10_minutes: int = _LOBBY.tables_per_10_minutes
    """The same in any 10 minutes (each table opened costs everyone's keys a moment)."""
    # --- adding a key from another computer (server/link_codes.py) ---
    link_code_minutes: float = 10.0
    """A code from the keys dialog adds a key only within this time after it was made."""
    link_code_tries: int = 3
    """Codes a new key may type in one connection before the connection ends."""
    link_codes_per_name: int = 3
    """Codes a name may have waiting at once; a new one replaces the oldest."""
    # -- the data folder (storage) --
    records_kept_in_memory: int = 200
    """Game records kept in memory while the database cannot take them (disk full, folder
    read-only), retried until it can; past this many the oldest is lost (and logged)."""
    record_retry_seconds: float = 60.0
    """How often game records waiting in memory are offered to the database again."""
    # --- what one client may send: its terminal, environment and input (issue 11) ---
    max_terminal_width: int = 500
    """Columns a session is drawn at, at most; a wider terminal shows it in its corner."""
    max_terminal_height: int = 200
    """Rows a session is drawn at, at most."""
    max_term_chars: int = 64
    """Longest terminal type (TERM) kept; longer or odd ones are cut to letters, digits, -_.+"""
    max_env_variables: int = 8
    """Environment variables kept per session; only names the game reads are kept at all."""
    max_env_value_chars: int = 256
    """Longest environment value kept; a longer one is refused."""
    max_env_requests: int = 64
    """Environment variables a client may send on one session, kept or not; one more
    closes its connection (OpenSSH sends a handful; 60,000 were an attack)."""
    window_changes_per_10s: int = 60
    """Window changes a client may send on one session within 10 seconds; one more closes
    its connection. Each costs the server ~0.15 ms to decrypt, however the session merges
    them: 30,000 in a few seconds held every other player's keys 0.2-0.5 s, and 200 of
    them still 0.15 s on a busy machine (issue 36). A person dragging a window's corner
    sends one per column or row crossed, a few dozen."""
    receive_buffer_bytes: int = 32768
    """What the system holds of one connection's input before the server reads it
    (SO_RCVBUF; Linux doubles it). It bounds what one client makes the server decrypt in
    one turn of its loop, and what is read after the server closed a flooding client (a
    client sending 30 KB environment variables had the server take in 6 MB it no longer
    parsed, in one 0.9 s stall). Players send keys: a few KB. 0: the system's default."""
    loop_watchdog_seconds: float = 10.0
    """A server whose event loop has not turned for this long (every player frozen) says
    so in the log, with where it is stuck (0: not watched)."""
    channels_per_connection_max: int = 3
    """Session channels open at once on one connection (a game needs one; `help` or a
    refused second game another); more are refused as the SSH protocol allows (400,000
    bare channels grew a server by 2.8 GB)."""
    escape_max_chars: int = 256
    """An escape string (OSC, DCS, APC...) longer than this is dropped, unfinished or not."""
    escape_timeout_seconds: float = 0.5
    """An escape string or paste left open this long is dropped, and the keyboard works again."""
    paste_max_chars: int = 4096
    """Characters kept from one paste; the player is told when a paste was cut."""


LOBBY_NAMES = {"trick_pause_seconds": "trick_pause"}
"""The limits whose `LobbyConfig` field has another name (the setting names its unit)."""


def lobby_limits(limits: Limits) -> dict[str, Any]:
    """The limits the lobby has too, by its field names: every `Limits` field named (or
    renamed by `LOBBY_NAMES`) as a `LobbyConfig` field. Their defaults are the lobby's."""
    lobby_fields = {f.name for f in fields(LobbyConfig)}
    return {LOBBY_NAMES.get(f.name, f.name): getattr(limits, f.name) for f in fields(Limits)
            if LOBBY_NAMES.get(f.name, f.name) in lobby_fields}


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    data: Path = Path(DEFAULT_DATA)
    motd: str = ""
    guests: bool = True
    """Keyless connections may play under a guest-NNNN name (nothing kept)."""
    operators: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Operator name -> OpenSSH public key lines allowed to log in under that name."""
    limits: Limits = Limits()
    bot_delay: float = _LOBBY.bot_delay
    """Seconds a computer player "thinks" at least, so humans can follow."""
    bot_workers: int = _LOBBY.bot_workers
    """Processes the expert computers think in, shared by every table (default: one per
    core). They start at the first expert decision and run at a lower priority than the
    server."""
    shutdown_notice_seconds: float = 3.0
    """When the server stops, players read why on their full screen this long before
    they are let go (the same words then stay in their terminal)."""
    restart_countdown_seconds: float = 0.0
    """On SIGTERM, everyone is told the server restarts in this many seconds (again at
    60, 30, 10 and 5 s), then it stops. 0: it stops at once. A second SIGTERM, or
    SIGINT, always stops at once. The service manager's stop timeout must be longer
    (TimeoutStopSec in moon-server.service)."""

    workers: int = 1
    """Worker processes accepting SSH on the one port (SO_REUSEPORT), started and watched
    by a small supervisor (`supervisor.py`); above 1 they share the club through a bus.
    1: today's one-process server."""
    redis: str = ""
    """The bus: a Valkey or Redis server's URL (`unix:///path`, `rediss://...`, or
    `redis://:password@host:port`). Empty with `workers` above 1: the server starts its
    own valkey-server on a unix socket in the data folder (`bus_server.py`)."""

    def lobby_config(self) -> LobbyConfig:
        """The lobby's settings, with the ones this file also sets taken from here."""
        return replace(
            _LOBBY,
            **lobby_limits(self.limits),
            bot_delay=self.bot_delay,
            bot_workers=self.bot_workers,
            operators=frozenset(self.operators),
            motd=self.motd,
        )

    @property
    def host_key_path(self) -> Path:
        return self.data / "host_ed25519_key"

    @property
    def database_path(self) -> Path:
        return self.data / "moon.sqlite3"


WORKERS_MAX = 64
BUS_SCHEMES = ("unix", "redis", "rediss", "valkey", "valkeys")


def check_workers(key: str, value: int) -> int:
    if not 1 <= value <= WORKERS_MAX:
        raise ConfigError(f"{key} must be 1 to {WORKERS_MAX} processes, not {brief(value)}")
    return value


def check_bus_url(key: str, url: str) -> str:
    """A bus URL the workers may use: a unix socket, TLS, or TCP with a password (anyone
    who reaches an open Valkey port could read every hand and write any move)."""
    if not url:
        return url
    try:
        parsed = urlsplit(url)
        parsed.port  # noqa: B018 - checked now, not when a worker connects
    except ValueError as error:
        raise ConfigError(f"{key} is not a URL the bus can use: {error}") from None
    if parsed.scheme not in BUS_SCHEMES:
        # The URL itself is not quoted: it may hold a password.
        raise ConfigError(f"{key} must be a unix://, rediss:// or redis:// URL, not "
                          f"{brief(parsed.scheme, 20)}://...")
    if parsed.scheme == "unix":
        if not parsed.path:
            raise ConfigError(f"{key}: a unix:// URL names the socket's path (unix:///path)")
    elif not parsed.hostname:
        raise ConfigError(f"{key}: the URL names no host")
    elif parsed.scheme in ("redis", "valkey") and not parsed.password:
        raise ConfigError(
            f"{key}: a bus over TCP needs a password (redis://:PASSWORD@host:port) or TLS "
            "(rediss://): anyone who reaches an open port could read every hand")
    return url


def _check_type(key: str, value: Any, kind: type | tuple[type, ...]) -> Any:
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise ConfigError(f"{key} must be a number, not {brief(value)}")
    if not isinstance(value, kind):
        raise ConfigError(f"{key} has the wrong type: {brief(value)}")
    if isinstance(value, int | float) and not isinstance(value, bool) and (
            not math.isfinite(value) or abs(value) > NUMBER_MAX):
        raise ConfigError(f"{key} must be a number up to {NUMBER_MAX:.0e}, not {brief(value)}")
    return value


def _limits_from(table: Mapping[str, Any]) -> Limits:
    known = {f.name: f for f in fields(Limits)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"unknown setting limits.{shown(key, 40)} (known: "
                              f"{', '.join(known)})")
        default = getattr(Limits(), key)
        kind: type | tuple[type, ...] = int if isinstance(default, int) else (int, float)
        values[key] = _check_type(f"limits.{key}", value, kind)
    limits = replace(Limits(), **values)
    if limits.starts_at_once < 1:  # no app would ever start
        raise ConfigError(f"limits.starts_at_once must be at least 1, not "
                          f"{limits.starts_at_once}")
    return limits


def _operators_from(value: Any) -> dict[str, tuple[str, ...]]:
    if isinstance(value, list):
        return {str(_check_type("operators[]", name, str)): () for name in value}
    if isinstance(value, dict):
        result: dict[str, tuple[str, ...]] = {}
        for name, keys in value.items():
            if isinstance(keys, str):
                keys = [keys]
            _check_type(f"operators.{name}", keys, list)
            result[name] = tuple(_check_type(f"operators.{name}[]", k, str) for k in keys)
        return result
    raise ConfigError("operators must be a list of names or a table of name = [keys]")


def load_toml(path: Path, base: ServerConfig) -> ServerConfig:
    """Apply a TOML file to `base`; relative data folders are relative to the file."""
    try:
        text = read_limited(path, CONFIG_FILE_MAX_BYTES).decode("utf-8")
        table = tomllib.loads(text)
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror or error}") \
            from error
    except UnicodeDecodeError as error:
        raise ConfigError(f"config file {path} is not UTF-8 text (byte {error.start})") \
            from error
    except ValueError as error:  # TOMLDecodeError, or a number of 5,000 digits
        raise ConfigError(f"config file {path} is not valid TOML: {error}") from error
    config = base
    for key, value in table.items():
        if key == "host":
            config = replace(config, host=_check_type(key, value, str))
        elif key == "port":
            config = replace(config, port=_check_type(key, value, int))
        elif key == "data":
            data = Path(_check_type(key, value, str)).expanduser()
            config = replace(config, data=data if data.is_absolute() else path.parent / data)
        elif key == "motd":
            config = replace(config, motd=_check_type(key, value, str))
        elif key == "guests":
            config = replace(config, guests=_check_type(key, value, bool))
        elif key == "bot_delay":
            config = replace(config, bot_delay=float(_check_type(key, value, (int, float))))
        elif key == "bot_workers":
            workers = _check_type(key, value, int)
            if not 1 <= workers <= 256:
                raise ConfigError(f"{key} must be 1 to 256 processes, not {value!r}")
            config = replace(config, bot_workers=workers)
        elif key == "shutdown_notice_seconds":
            config = replace(config, shutdown_notice_seconds=float(
                _check_type(key, value, (int, float))))
        elif key == "restart_countdown_seconds":
            seconds = float(_check_type(key, value, (int, float)))
            if not 0 <= seconds <= 3600:
                raise ConfigError(f"{key} must be 0 to 3600 seconds, not {value!r}")
            config = replace(config, restart_countdown_seconds=seconds)
        elif key == "workers":
            config = replace(config, workers=check_workers(key, _check_type(key, value, int)))
        elif key == "redis":
            config = replace(config, redis=check_bus_url(key, _check_type(key, value, str)))
        elif key == "operators":
            config = replace(config, operators=_operators_from(value))
        elif key == "limits":
            config = replace(config, limits=_limits_from(_check_type(key, value, dict)))
        else:
            raise ConfigError(f"unknown setting {brief(key)} in {path}")
    return config


def load_environment(env: Mapping[str, str], base: ServerConfig) -> ServerConfig:
    """MOON_HOST, MOON_PORT, MOON_DATA, MOON_MOTD, MOON_GUESTS (on/off), MOON_WORKERS,
    MOON_REDIS."""
    config = base
    if "MOON_HOST" in env:
        config = replace(config, host=env["MOON_HOST"])
    if "MOON_PORT" in env:
        port = whole_number(env["MOON_PORT"])
        if port is None:
            raise ConfigError(f"MOON_PORT must be a number, not {brief(env['MOON_PORT'])}")
        config = replace(config, port=port)
    if env.get("MOON_DATA"):
        config = replace(config, data=Path(env["MOON_DATA"]).expanduser())
    if "MOON_MOTD" in env:
        config = replace(config, motd=env["MOON_MOTD"])
    if "MOON_GUESTS" in env:
        flag = env["MOON_GUESTS"].strip().lower()
        if flag not in ("on", "off", "1", "0", "yes", "no", "true", "false"):
            raise ConfigError(f"MOON_GUESTS must be on or off, not {brief(flag)}")
        config = replace(config, guests=flag in ("on", "1", "yes", "true"))
    if "MOON_WORKERS" in env:
        workers = whole_number(env["MOON_WORKERS"])
        if workers is None:
            raise ConfigError(f"MOON_WORKERS must be a number, not {brief(env['MOON_WORKERS'])}")
        config = replace(config, workers=check_workers("MOON_WORKERS", workers))
    if "MOON_REDIS" in env:
        config = replace(config, redis=check_bus_url("MOON_REDIS", env["MOON_REDIS"]))
    return config


def build_config(
    *,
    config_file: Path | None = None,
    env: Mapping[str, str] | None = None,
    host: str | None = None,
    port: int | None = None,
    data: Path | None = None,
    workers: int | None = None,
    redis: str | None = None,
) -> ServerConfig:
    """Defaults < config file (--config or $MOON_CONFIG) < environment < flags."""
    env = os.environ if env is None else env
    config = ServerConfig()
    if config_file is None and env.get("MOON_CONFIG"):
        config_file = Path(env["MOON_CONFIG"])
    if config_file is not None:
        config = load_toml(config_file, config)
    config = load_environment(env, config)
    if host is not None:
        config = replace(config, host=host)
    if port is not None:
        config = replace(config, port=port)
    if data is not None:
        config = replace(config, data=data)
    if workers is not None:
        config = replace(config, workers=check_workers("--workers", workers))
    if redis is not None:
        config = replace(config, redis=check_bus_url("--redis", redis))
    if not 0 <= config.port <= 65535:
        raise ConfigError(f"port {config.port} is out of range")
    return config
