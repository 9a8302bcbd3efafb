"""Settings: defaults, a TOML file, the environment and flags, in that order of strength."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from textual.events import Key, Paste

from moon_tui.lobby import LobbyConfig
from server.config import (
    LOBBY_NAMES,
    ConfigError,
    Limits,
    ServerConfig,
    build_config,
    lobby_limits,
)
from server.identity import name_fault
from server.keyboard import InputDecoder, TokenBucket
from server.memory import FreezePolicy
from server.terminal import TerminalProfile


class MemoryClock:
    """`server.memory`'s clock, moved by hand; its CPU time is `cpu()` (0 by default: no
    tick costs anything)."""

    def __init__(self, cpu: Callable[[], float] = lambda: 0.0) -> None:
        self.now = 1000.0
        self._cpu = cpu

    def perf_counter(self) -> float:
        return self.now

    def thread_time(self) -> float:
        return self._cpu()

    @classmethod
    def installed(cls, monkeypatch: pytest.MonkeyPatch,
                  cpu: Callable[[], float] = lambda: 0.0) -> MemoryClock:
        from server import memory

        clock = cls(cpu)
        monkeypatch.setattr(memory, "time", clock)
        return clock


class Ring:
    """An object only the cycle collector frees (it refers to itself)."""

    def __init__(self) -> None:
        self.me = self


def test_defaults_need_no_configuration() -> None:
    config = build_config(env={})
    assert config.port == 2222
    assert config.data == Path("moon-data")
    assert config.guests is True
    assert config.host_key_path == Path("moon-data/host_ed25519_key")


def test_the_lobby_gets_the_servers_settings_and_its_own_defaults_otherwise() -> None:
    assert ServerConfig().lobby_config() == LobbyConfig()  # one default per setting
    config = ServerConfig(motd="hi", bot_delay=0.1, bot_workers=3, operators={"olga": ()},
                          limits=Limits(grace_seconds=5, chat_max_chars=40,
                                        chat_lines_per_10s=2, tables_per_hour=4))
    lobby = config.lobby_config()
    assert (lobby.motd, lobby.bot_delay, lobby.operators) == ("hi", 0.1, frozenset({"olga"}))
    assert lobby.bot_workers == 3
    assert ServerConfig().bot_workers == len(os.sched_getaffinity(0))  # one per core
    assert (lobby.grace_seconds, lobby.chat_max_chars, lobby.chat_lines_per_10s) == (5, 40, 2)
    assert lobby.tables_per_hour == 4


def test_every_limit_the_lobby_has_too_reaches_it_under_its_lobby_name() -> None:
    # Derived, not copied by hand: the limits named as the lobby's settings are handed
    # on, each default is the lobby's, and no other limit reaches the lobby.
    shared = {"chat_lines_per_10s", "chat_max_chars", "grace_seconds",
              "reconnect_wait_seconds", "restart_grace_seconds", "trick_pause_seconds",
              "hand_result_seconds", "tables_per_hour", "tables_per_10_minutes",
              "kick_minutes", "board_minutes"}
    assert set(lobby_limits(Limits())) == {LOBBY_NAMES.get(n, n) for n in shared}
    for name in shared:
        lobby_name = LOBBY_NAMES.get(name, name)
        assert getattr(Limits(), name) == getattr(LobbyConfig(), lobby_name), name
        changed = ServerConfig(limits=replace(Limits(), **{name: 7})).lobby_config()
        assert getattr(changed, lobby_name) == 7, name
        assert replace(changed, **{lobby_name: getattr(LobbyConfig(), lobby_name)}) \
            == LobbyConfig(), f"{name} changed something else"


def test_file_then_environment_then_flags(tmp_path: Path) -> None:
    file = tmp_path / "config.toml"
    file.write_text(
        'host = "127.0.0.1"\nport = 2000\ndata = "club"\nmotd = "Tuesday night!"\n'
        "guests = false\nrestart_countdown_seconds = 60\nbot_workers = 4\n"
        'operators = { olga = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake olga"] }\n'
        "[limits]\nmax_sessions = 50\nidle_minutes = 10.5\n"
    )
    config = build_config(config_file=file, env={})
    assert (config.host, config.port, config.motd, config.guests) == (
        "127.0.0.1", 2000, "Tuesday night!", False,
    )
    assert config.data == tmp_path / "club"  # relative to the file
    assert config.restart_countdown_seconds == 60.0
    assert config.lobby_config().bot_workers == 4
    assert ServerConfig().restart_countdown_seconds == 0, "SIGTERM stops at once by default"
    assert config.limits == Limits(max_sessions=50, idle_minutes=10.5)
    assert set(config.operators) == {"olga"}

    env = {"MOON_PORT": "2100", "MOON_DATA": "/srv/moon", "MOON_GUESTS": "on"}
    config = build_config(config_file=file, env=env)
    assert (config.port, config.data, config.guests) == (2100, Path("/srv/moon"), True)

    config = build_config(config_file=file, env=env, port=22, data=Path("x"))
    assert (config.port, config.data) == (22, Path("x"))


def test_the_config_file_can_come_from_the_environment(tmp_path: Path) -> None:
    file = tmp_path / "moon.toml"
    file.write_text("port = 2345\n")
    assert build_config(env={"MOON_CONFIG": str(file)}).port == 2345


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("port = 'x'", "port"),
        ("colour = 1", "unknown setting"),
        ("[limits]\nmax_session = 3", "limits.max_session"),
        ("guests = 1", "guests"),
        ("port = [", "not valid TOML"),
        ("port = 70000", "out of range"),
        ("restart_countdown_seconds = -1", "restart_countdown_seconds must be 0 to 3600"),
        ("restart_countdown_seconds = '60'", "restart_countdown_seconds"),
        ("bot_workers = 0", "bot_workers must be 1 to 256"),
        ("bot_workers = 1.5", "bot_workers"),
        ("workers = 0", "workers must be 1 to 64"),
        ("redis = 'redis://bus.example.org:6379'", "needs a password .* or TLS"),
        ("redis = 'http://x'", "must be a unix://"),
        ("[limits]\nstarts_at_once = 0", "starts_at_once must be at least 1"),
    ],
)
def test_bad_files_are_explained(tmp_path: Path, text: str, words: str) -> None:
    file = tmp_path / "bad.toml"
    file.write_text(text)
    with pytest.raises(ConfigError, match=words):
        build_config(config_file=file, env={})


def test_bad_environment_is_explained() -> None:
    with pytest.raises(ConfigError, match="MOON_PORT"):
        build_config(env={"MOON_PORT": "twenty"})
    with pytest.raises(ConfigError, match="MOON_GUESTS"):
        build_config(env={"MOON_GUESTS": "maybe"})


def test_workers_and_the_bus_come_from_file_environment_and_flags(tmp_path: Path) -> None:
    assert (ServerConfig().workers, ServerConfig().redis) == (1, "")
    file = tmp_path / "club.toml"
    file.write_text("workers = 2\nredis = 'rediss://bus.example.org:6380'\n")
    config = build_config(config_file=file, env={})
    assert (config.workers, config.redis) == (2, "rediss://bus.example.org:6380")
    env = {"MOON_WORKERS": "3", "MOON_REDIS": "redis://:s3cret@10.0.0.5:6379/0"}
    config = build_config(config_file=file, env=env)
    assert (config.workers, config.redis) == (3, "redis://:s3cret@10.0.0.5:6379/0")
    config = build_config(config_file=file, env=env, workers=4, redis="unix:///run/v.sock")
    assert (config.workers, config.redis) == (4, "unix:///run/v.sock")
    with pytest.raises(ConfigError, match="MOON_REDIS: a bus over TCP needs a password"):
        build_config(env={"MOON_REDIS": "redis://10.0.0.5:6379"})
    with pytest.raises(ConfigError, match="MOON_WORKERS must be a number"):
        build_config(env={"MOON_WORKERS": "many"})
    with pytest.raises(ConfigError) as refused:
        build_config(env={"MOON_REDIS": "ftp://u:hunter2@x"})
    assert "hunter2" not in str(refused.value)  # a password is never quoted back


def test_the_example_config_of_the_deploy_folder_loads() -> None:
    example = Path(__file__).parent.parent / "deploy" / "config.toml"
    config = build_config(config_file=example, env={})
    assert isinstance(config, ServerConfig)
    assert config.port == 22


@pytest.mark.parametrize(
    ("name", "ok"),
    [("ann", True), ("bob_2", True), ("a-b", True), ("a", False), ("Ann", False),
     ("x" * 17, False), ("root", False), ("guest-12", False), ("1ann", False), ("é", False)],
)
def test_player_names(name: str, ok: bool) -> None:
    assert (name_fault(name) is None) is ok


@pytest.mark.parametrize(
    ("term", "env", "colours", "no_color"),
    [
        ("xterm", {}, "standard", False),
        ("xterm-256color", {}, "256", False),
        ("screen-256color", {"COLORTERM": "truecolor"}, "truecolor", False),
        ("vt100", {}, "standard", True),
        ("dumb", {}, "standard", True),
        (None, {}, "standard", True),
        ("xterm-256color", {"NO_COLOR": ""}, "256", True),
    ],
)
def test_terminal_profiles(
    term: str | None, env: dict[str, str], colours: str, no_color: bool
) -> None:
    profile = TerminalProfile.from_client(term, (80, 24), env)
    assert (profile.color_system, profile.no_color) == (colours, no_color)


def test_pastes_are_cut_out_of_the_stream_even_split_across_reads() -> None:
    decoder = InputDecoder(paste_limit=10)
    events = list(decoder.feed("a\x1b[20"))
    events += list(decoder.feed("0~hello world, this is long\x1b[2"))
    events += list(decoder.feed("01~b"))
    names = [type(e).__name__ for e in events]
    assert names == ["Key", "Paste", "Key"]
    assert isinstance(events[1], Paste) and events[1].text == "hello worl"


def test_escape_strings_are_dropped_whole_or_given_up_and_open_pastes_end() -> None:
    now = [0.0]
    decoder = InputDecoder(paste_limit=4, escape_limit=8, escape_timeout=0.5,
                           clock=lambda: now[0])

    def keys(text: str) -> str:
        return "".join(e.character or "" for e in decoder.feed(text) if isinstance(e, Key))

    assert keys("a\x1b]0;ti") + keys("tle\x1b") + keys("\\b") == "ab"  # OSC ended by ST
    assert keys("\x1b_apc\x07c") == "c"  # APC ended by BEL
    assert keys("\x1bP" + "z" * 8 + "q") == "q"  # past escape_limit: given up
    assert keys("\x1b]open") == ""
    assert decoder.waiting
    now[0] = 1.0
    assert list(decoder.tick()) == [] and not decoder.waiting
    assert keys("x") == "x"
    paste = list(decoder.feed("\x1b[200~123456"))
    assert paste == [] and decoder.cut_paste == 0
    now[0] = 2.0  # no end marker: the paste ends after escape_timeout without input
    (pasted,) = list(decoder.tick())
    assert isinstance(pasted, Paste) and pasted.text == "1234"
    assert decoder.cut_paste == 6


def test_a_token_bucket_meters_and_refills() -> None:
    bucket = TokenBucket(rate=1000.0, burst=3)
    assert [bucket.take(1) for _ in range(4)] == [True, True, True, False]
    assert 0 < bucket.wait_time() <= 0.002


def test_the_freeze_policy_reclaims_when_quiet_or_when_the_garbage_is_a_share_of_the_frozen(
) -> None:
    import gc

    policy = FreezePolicy()
    try:
        policy.start()
        policy.tick(live=6, connections=6)  # collects what is not frozen yet, then freezes it
        frozen = gc.get_freeze_count()
        assert frozen > 0
        share = policy.RECLAIM_SHARE * frozen
        for _ in range(int(0.9 * share / policy.SESSION_GARBAGE)):
            policy.session_ended()
        policy.tick(live=3, connections=3)
        assert policy.reclaims == 0  # the garbage counted is under the share
        stamp = policy.connection_opened()
        policy.tick(live=3, connections=4)  # the freeze waits for the young connection
        assert policy.freezes == 2
        policy.connection_closed(stamp)
        policy.tick(live=3, connections=3)  # ended before a freeze: the ticks collect it
        assert (policy.freezes, policy.dead_connections, policy.reclaims) == (3, 0, 0)
        for _ in range(int(0.2 * share / policy.CONNECTION_GARBAGE)):
            policy.connection_closed(0)  # opened before the first freeze, closed after it
        policy.tick(live=3, connections=3)
        assert policy.reclaims == 1  # unfreeze, collect, freeze
        assert policy.dead == policy.dead_connections == 0

        quiet = FreezePolicy()  # a reclaim when nobody is connected needs QUIET_DEAD ended
        for _ in range(quiet.QUIET_DEAD - 1):
            quiet.session_ended()
        quiet.connection_closed(-1)  # one that a freeze caught
        quiet.tick(live=0, connections=1)
        assert quiet.reclaims == 0  # someone is at the banner
        quiet.tick(live=2, connections=0)
        assert quiet.reclaims == 0  # two apps still ending after their clients left
        quiet.tick(live=0, connections=0)
        assert quiet.reclaims == 1  # nobody connected at all
        assert gc.get_freeze_count() > 0
    finally:
        policy.stop()


def test_frozen_garbage_nobody_counted_is_reclaimed_once_the_frozen_objects_grow(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Screens and tables a player leaves while their session goes on end no session and
    close no connection: frozen, their garbage was kept for good (65 MB after a guest
    cycled tables). A quarter more frozen objects than after the last reclaim brings one."""
    import gc

    clock = MemoryClock.installed(monkeypatch)
    policy = FreezePolicy()
    try:
        policy.start()
        base = gc.get_freeze_count()
        kept = [Ring() for _ in range(int(base * 0.1))]  # alive: 10% more
        clock.now += policy.RECOUNT
        policy.tick(live=1, connections=1)  # frozen (alive), counted: under the growth
        assert policy.reclaims == 0
        rings = [Ring() for _ in range(int(base * 0.4))]  # what a closed screen leaves
        policy.tick(live=1, connections=1)
        del rings  # garbage now, but frozen: only a reclaim finds it
        clock.now += policy.RECOUNT
        policy.tick(live=1, connections=1)
        assert policy.reclaims == 1, "the frozen objects grew by a quarter"
        after = gc.get_freeze_count()
        assert after < base * 1.25 and len(kept) > 0
        clock.now += policy.RECOUNT
        policy.tick(live=1, connections=1)
        assert policy.reclaims == 1, "no growth since: no other reclaim"
    finally:
        policy.stop()


def _walks_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each count of the frozen objects from now on (a walk of them all), as counted."""
    walks: list[int] = []
    count = gc.get_freeze_count

    def counted() -> int:
        walks.append(count())
        return walks[-1]

    monkeypatch.setattr(gc, "get_freeze_count", counted)
    return walks


@contextlib.contextmanager
def _counted_policy(monkeypatch: pytest.MonkeyPatch
                    ) -> Iterator[tuple[FreezePolicy, MemoryClock, list[int]]]:
    """A started `FreezePolicy` on a clock moved by hand, and each count of the frozen
    objects it takes (`_walks_counted`); stopped after."""
    clock = MemoryClock.installed(monkeypatch)
    policy = FreezePolicy()
    try:
        policy.start()
        yield policy, clock, _walks_counted(monkeypatch)
    finally:
        policy.stop()


def _hold_until(kept: list[Ring], blocks: int) -> None:
    """Keep objects alive in `kept` until Python's allocated blocks reach `blocks`."""
    while sys.getallocatedblocks() < blocks:
        kept.extend(Ring() for _ in range(1000))


def test_the_frozen_objects_are_counted_only_once_the_heap_grew(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A count walks every frozen object, all over the heap: 62 ms for 663,000 with 60
    club players, a pause for everyone every `RECOUNT`. A heap that did not grow holds
    no more of them: no count."""
    with _counted_policy(monkeypatch) as (policy, clock, walks):
        for _ in range(3):
            clock.now += policy.RECOUNT
            policy.tick(live=0, connections=1)
        assert not walks, "nothing grew: nothing walked"
        kept: list[Ring] = []
        _hold_until(kept, int(sys.getallocatedblocks() * (1 + policy.HEAP_GROWTH)))
        clock.now += policy.RECOUNT
        policy.tick(live=0, connections=1)
        assert len(walks) == 1 and policy.counts == 1 and kept


def test_the_heap_that_new_sessions_hold_brings_no_count(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The last players of a club's arrival grew the heap past `HEAP_GROWTH` after a count
    among the first, and a count walked ~800,000 frozen objects in the steady play that
    followed (117-146 ms, bench/ssh_load.py --mix club, 176 players on two workers).
    What the new sessions hold is not counted; growth past it still is."""
    with _counted_policy(monkeypatch) as (policy, clock, walks):
        heap = sys.getallocatedblocks()
        players = max(4, heap // policy.SESSION_BLOCKS)  # the heap doubles, at least
        kept: list[Ring] = []
        _hold_until(kept, heap + players * policy.SESSION_BLOCKS)
        clock.now += policy.RECOUNT
        policy.tick(live=players, connections=players)
        assert not walks, "what the new sessions hold was counted"
        _hold_until(kept, int(sys.getallocatedblocks() * (1 + policy.HEAP_GROWTH)))
        clock.now += policy.RECOUNT
        policy.tick(live=players, connections=players)
        assert len(walks) == 1 and kept


def test_sessions_warming_up_after_the_arrivals_bring_no_count(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A club player's session holds about 14,400 blocks when the last player sits down
    and 16,750 after five minutes of play (bench/ssh_load.py --mix club, 100 players):
    counted at the first figure, that warming up alone brought a count of the frozen
    objects a minute or two after every arrival (120-190 ms, one per worker)."""
    seated, warmed = 14_400, 16_750
    with _counted_policy(monkeypatch) as (policy, clock, walks):
        heap = sys.getallocatedblocks()
        # Enough players that their warming up is more than a tenth of the whole heap.
        players = max(4, heap // 5_000)
        kept: list[Ring] = []
        for per_session in (seated, warmed):
            _hold_until(kept, heap + players * per_session)
            clock.now += policy.RECOUNT
            policy.tick(live=players, connections=players)
        assert not walks and kept, "the sessions' own warming up was counted"


def test_frozen_objects_that_new_players_hold_bring_no_reclaim(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After a restart every seated player comes back at once: the frozen objects grow
    with what their sessions hold, and a reclaim then walked them all for nothing (3.3 s
    with 160 players, bench/restart_burst.py). Growth past what the live sessions hold
    still brings one."""
    import gc

    clock = MemoryClock.installed(monkeypatch)
    policy = FreezePolicy()
    try:
        policy.start()
        base = gc.get_freeze_count()
        players = max(4, int(base / policy.SESSION_OBJECTS))  # the frozen objects double
        sessions = [[Ring() for _ in range(policy.SESSION_OBJECTS)] for _ in range(players)]
        clock.now += policy.RECOUNT
        policy.tick(live=players, connections=players)
        assert gc.get_freeze_count() >= 1.9 * base
        assert policy.reclaims == 0, "what the players hold is no garbage"
        rings = [Ring() for _ in range(int(base * 0.7))]  # what closed screens leave
        policy.tick(live=players, connections=players)
        del rings
        clock.now += policy.RECOUNT
        policy.tick(live=players, connections=players)
        assert policy.reclaims == 1, "grown past what the players hold"
        assert len(sessions) == players
    finally:
        policy.stop()


def test_the_freeze_waits_for_young_connections_at_most_max_defer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection that ends before the next freeze leaves nothing frozen; under a flood
    of them, the freeze waits `MAX_DEFER` at most."""

    clock = MemoryClock.installed(monkeypatch)
    policy = FreezePolicy()
    try:
        policy.tick(live=1, connections=1)
        assert policy.freezes == 1
        first = policy.connection_opened()
        clock.now += policy.MAX_DEFER / 2
        second = policy.connection_opened()
        policy.tick(live=1, connections=3)
        assert policy.freezes == 1
        policy.connection_closed(first)
        policy.tick(live=1, connections=2)
        assert policy.freezes == 1  # the second is still open
        clock.now += policy.MAX_DEFER / 2
        policy.tick(live=1, connections=2)
        assert (policy.freezes, policy.deferred_freezes) == (2, 1)  # waited long enough
        policy.connection_closed(second)
        assert (policy.young, policy.dead_connections) == (0, 1)  # frozen while open
        policy.tick(live=1, connections=1)
        assert policy.freezes == 3
    finally:
        policy.stop()


def test_the_freeze_waits_no_longer_once_the_next_full_collection_would_cost_too_much(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """While the freeze waits for young connections, its full collections walk all that
    waits: four guests arriving and opening tables grew one from under `FREEZE_COST` to
    2.5 times it in two seconds, a pause for everyone. The freeze comes once the next one,
    growing as much again, would cost more than `FREEZE_COST`."""
    cpu = {"now": 0.0}

    def thread_time() -> float:  # moved on by each full collection's cost
        return cpu["now"]

    clock = MemoryClock.installed(monkeypatch, cpu=thread_time)
    policy = FreezePolicy()
    try:
        policy.tick(live=1, connections=1)
        policy.connection_opened()  # a guest arriving: the freeze waits for it
        frozen = policy.freezes

        def full_tick(cost: float) -> None:
            real_collect = gc.collect

            def collect(generation: int = 2) -> int:
                cpu["now"] += cost
                return real_collect(generation)

            monkeypatch.setattr(gc, "collect", collect)
            clock.now += FreezePolicy.FULL_EVERY
            policy.tick(live=1, connections=2)
            monkeypatch.setattr(gc, "collect", real_collect)

        full_tick(FreezePolicy.FREEZE_COST * 0.4)
        full_tick(FreezePolicy.FREEZE_COST * 0.45)  # grew a little: it waits
        assert policy.freezes == frozen
        full_tick(FreezePolicy.FREEZE_COST * 0.8)  # under the mark, but the next is not
        assert policy.freezes == frozen + 1
        assert policy.deferred_freezes == 1
    finally:
        policy.stop()


def test_memory_ticks_are_full_while_sessions_come_and_go_and_young_in_a_steady_spell(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A young collection would freeze the garbage of arriving and leaving sessions (Python's
    own collections had moved it to the old generation): full ticks for `FRESH` seconds
    after any change, young ones after that."""
    import time as real_time

    clock = MemoryClock.installed(monkeypatch, cpu=real_time.thread_time)
    policy = FreezePolicy()
    try:
        policy.tick(live=3, connections=3)
        clock.now += FreezePolicy.FRESH / 2
        policy.tick(live=3, connections=3)
        assert (policy.full_ticks, policy.young_ticks) == (2, 0)  # the arrivals' spell
        clock.now += FreezePolicy.FRESH
        policy.tick(live=3, connections=3)
        assert (policy.full_ticks, policy.young_ticks) == (2, 1)  # steady
        policy.tick(live=3, connections=4)  # someone at the banner
        policy.session_ended()
        clock.now += FreezePolicy.FRESH - 0.5
        policy.tick(live=3, connections=4)  # ended, another started: same counts
        assert (policy.full_ticks, policy.young_ticks) == (4, 1)
        clock.now += FreezePolicy.FRESH
        policy.tick(live=3, connections=4)
        assert (policy.full_ticks, policy.young_ticks) == (4, 2)
        policy.connection_opened()  # the freeze waits for it: young ticks, a full one
        clock.now += FreezePolicy.FULL_EVERY  # every FULL_EVERY seconds
        policy.tick(live=3, connections=4)
        policy.tick(live=3, connections=4)
        assert (policy.full_ticks, policy.young_ticks, policy.freezes) == (5, 3, 6)
    finally:
        policy.stop()
