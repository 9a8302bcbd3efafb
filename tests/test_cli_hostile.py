"""Every command line against hostile arguments and files (issue 31): huge numbers, lone
surrogates, control characters, other scripts' digits, special files, FIFOs, symlinks to
devices and bytes that are not UTF-8 each get one plain line on standard error and the
documented exit status, never a traceback and never a hang.

Most runs call the commands' `main` in this process (fast); a few run them as real
processes under a timeout, where only a process shows the fault (standard input, a FIFO
that would block `open()`, `/dev/zero` read until memory runs out).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moon_tui.bots.arena import main as arena_main
from moon_tui.local import main as moon_main
from moon_tui.rules.cli import main as rules_main
from moon_tui.rules.cli import replay_command
from moon_tui.rules.record import SEAT_NAME_MAX
from server.cli import main as server_main

REPO = Path(__file__).resolve().parent.parent
Main = Callable[[Sequence[str]], int]


def server_backup(argv: Sequence[str]) -> int:
    return server_main(["backup", *argv])


COMMANDS: dict[str, tuple[Main, str]] = {
    "moon-rules": (rules_main, "moon-rules"),
    "moon-arena": (arena_main, "moon-arena"),
    "moon": (moon_main, "moon"),
    "moon-server": (server_main, "moon-server"),
    "moon-server backup": (server_backup, "moon-server backup"),
}


def run_main(command: str, argv: Sequence[str],
             capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    main, _ = COMMANDS[command]
    try:
        code = main(list(argv))
    except SystemExit as stop:  # argparse's way out
        code = stop.code if isinstance(stop.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str, prog: str) -> str:
    """The one line a refusal is: from the command, no traceback, nothing a terminal would
    act on (an escape, a bell, a lone surrogate)."""
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    (line,) = lines
    assert line.startswith(prog.split()[0]), line
    assert line.isprintable(), repr(line)
    return line


BIG = "9" * 5000
HOSTILE_WORDS = [BIG, "\ud800", "\udcff", "\x1b[2J", "\x07\x9b31m", "٣", "²", "-1", "nan",
                 "1e999", ""]


@pytest.fixture
def special(tmp_path: Path) -> dict[str, str]:
    """Files no command may read as data: a FIFO, a folder, devices and symlinks to them,
    a file of bytes that are not UTF-8, a file with a 5,000-digit number."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    urandom = tmp_path / "urandom"
    urandom.symlink_to("/dev/urandom")
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe\x00 not text \x80")
    digits = tmp_path / "digits"
    digits.write_text(f"port = {BIG}\n")
    return {"fifo": str(fifo), "folder": str(tmp_path), "null": "/dev/null",
            "zero": str(zero), "urandom": str(urandom), "binary": str(binary),
            "digits": str(digits), "missing": str(tmp_path / "no" / "such"),
            "non-utf8 name": os.fsdecode(bytes(tmp_path) + b"/\xff\x1b[2J")}


# --- moon-rules ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "folder", "null", "zero", "urandom", "binary",
                                  "missing", "non-utf8 name"])
@pytest.mark.parametrize("as_json", [False, True])
def test_replay_refuses_what_is_not_a_record_file(
        kind: str, as_json: bool, special: dict[str, str],
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main("moon-rules",
                              ["replay", special[kind], *(["--json"] if as_json else [])],
                              capsys)
    assert code == 2
    one_line(err, "moon-rules")
    if as_json:
        answer = json.loads(out)
        assert answer["ok"] is False and answer["error"]["reason"]


def record_text(**changes: object) -> str:
    record: dict[str, object] = {"format": "moon/1", "rules": {}, "seats": ["a", "b", "c"],
                                 "first_bidder": 0, "hands": []}
    record.update(changes)
    return json.dumps(record)


DEAL = [["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "5-5"],
        ["5-4", "5-3", "5-2", "5-1", "4-4", "4-3", "0-0"],
        ["4-2", "4-1", "3-3", "3-2", "3-1", "2-2", "2-1"]]


def with_tile(where: str, tile: str) -> str:
    hand: dict[str, object] = {"deal": [list(h) for h in DEAL], "widow": "1-1",
                               "bids": [4, "pass", "pass"], "discard": "1-1", "trump": "6",
                               "plays": ["6-6"]}
    if where == "deal":
        hand["deal"][0][0] = tile  # type: ignore[index]
    else:
        hand[where] = tile if where != "plays" else [tile]
    return record_text(hands=[hand])


@pytest.mark.parametrize("where", ["deal", "widow", "discard", "plays"])
@pytest.mark.parametrize("tile", ["9" * 4301 + "-1", "1-" + "9" * 5000,
                                  "0" * 5000 + "1-1", "٣-1", "\ud800-1", "1-1\x1b[2J"],
                         ids=["long-left", "long-right", "zeros", "arabic", "surrogate",
                              "escape"])
def test_a_tile_of_thousands_of_digits_is_not_a_tile(where: str, tile: str, tmp_path: Path
                                                     ) -> None:
    path = tmp_path / "r.json"
    path.write_text(with_tile(where, tile), encoding="utf-8", errors="surrogatepass")
    for as_json in (False, True):
        out, err = io.StringIO(), io.StringIO()
        assert replay_command(str(path), as_json, out, err) == 2
        line = one_line(err.getvalue(), "moon-rules")
        assert "unknown tile" in line and where in line
        if as_json:
            out.getvalue().encode("utf-8")  # no lone surrogate reaches the stream


@pytest.mark.parametrize("text", [
    record_text(seats=["\ud800", "b", "c"]),
    record_text(seats=["\x1b[2J\x1b]0;owned\x07", "b\x9b", "c"]),
    record_text(rules={"\ud800": 1}),
    record_text(rules={"\x1b[2J": 1}),
    record_text(rules={"players": BIG[:4000]}),
    record_text(seats=["x" * (SEAT_NAME_MAX + 1), "b", "c"]),
    record_text(seats=["x" * 10_000_000, "b", "c"]),
], ids=["surrogate-name", "escape-name", "surrogate-key", "escape-key", "long-value",
        "long-name", "huge-name"])
def test_names_and_keys_are_shown_escaped_or_refused(
        text: str, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    for as_json in (False, True):
        out, err = io.StringIO(), io.StringIO()
        code = replay_command(str(path), as_json, out, err)
        printed = out.getvalue()
        printed.encode("utf-8")  # printable on any UTF-8 stream
        assert "\x1b" not in printed and "\x9b" not in printed and "\x07" not in printed
        assert len(printed) < 10_000
        if code == 2:
            one_line(err.getvalue(), "moon-rules")
        else:
            assert code == 0 and err.getvalue() == ""
            if not as_json:
                assert "\\x1b[2J" in printed or "\\ud800" in printed


def test_a_seat_name_longer_than_the_servers_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(record_text(seats=["x" * 17, "b", "c"]))
    out, err = io.StringIO(), io.StringIO()
    assert replay_command(str(path), False, out, err) == 2
    assert "at most 16 characters" in one_line(err.getvalue(), "moon-rules")
    assert out.getvalue() == ""


def test_a_record_larger_than_the_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as file:
        file.truncate(2 * 1024 * 1024)  # sparse: 2 MB of zeros, nothing written
    out, err = io.StringIO(), io.StringIO()
    assert replay_command(str(path), False, out, err, max_bytes=1024 * 1024) == 2
    assert "larger than 1 MB" in one_line(err.getvalue(), "moon-rules")


@pytest.mark.parametrize("argv", [
    ["random", "--hands", "1000000000"], ["random", "--hands", BIG], ["random", "--hands", "٣"],
    ["random", "--seed", BIG], ["random", "--seed", "²"], ["random", "--players", "5"],
    ["random", "--rule", "min_bid=٣"], ["random", "--rule", f"target={BIG}"],
    ["random", "--rule", "\x1b[2J=1"], ["random", "--rule", "\ud800=1"],
    ["random", "--names", "\udcff,b,c"], ["random", "--names", "a,b"],
    ["random", "--names", "x" * 17 + ",b,c"], ["replay"], ["replay", "a", "--max-size", BIG],
    ["replay", "a", "--max-size", "0"], ["nonsense\x1b[2J"], [],
])
def test_moon_rules_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main("moon-rules", argv, capsys)
    assert code == 2 and out == ""
    one_line(err, "moon-rules")


def test_random_names_are_accepted_as_its_own_replay_accepts_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main("moon-rules", ["random", "--names", "\x1b[2J,b,c", "--hands",
                                             "1", "--seed", "3"], capsys)
    assert code == 0 and err == ""
    path = tmp_path / "r.json"
    path.write_text(out)
    code, out, err = run_main("moon-rules", ["replay", str(path)], capsys)
    assert code == 0 and "\\x1b[2J (seat 0)" in out and "\x1b" not in out


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(
    st.text(max_size=300),
    st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                           st.text(max_size=20)),
                 lambda inner: st.lists(inner, max_size=5)
                 | st.dictionaries(st.text(max_size=10), inner, max_size=5),
                 max_leaves=30).map(json.dumps),
    st.builds(lambda seats, hands: record_text(seats=seats, hands=hands),
              st.lists(st.text(max_size=20), min_size=3, max_size=3),
              st.lists(st.dictionaries(st.sampled_from(["deal", "widow", "bids", "discard",
                                                        "trump", "plays"]),
                                       st.one_of(st.text(max_size=8), st.integers(),
                                                 st.lists(st.text(max_size=6), max_size=8))),
                       max_size=2)),
))
def test_any_text_is_a_record_or_one_line(text: str) -> None:
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"moon-fuzz-{os.getpid()}.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        for as_json in (False, True):
            out, err = io.StringIO(), io.StringIO()
            code = replay_command(str(path), as_json, out, err)
            assert code in (0, 1, 2)
            out.getvalue().encode("utf-8")
            if code == 2:
                one_line(err.getvalue(), "moon-rules")
            if as_json:
                json.loads(out.getvalue())
    finally:
        path.unlink()


# --- moon-arena, moon, moon-server --------------------------------------------------------

@pytest.mark.parametrize("option", ["--games", "--seed", "--jobs", "--samples", "--players",
                                    "--budget"])
@pytest.mark.parametrize("word", HOSTILE_WORDS)
def test_moon_arena_numbers(option: str, word: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main("moon-arena", ["--seats", "random,random,random", option, word],
                            capsys)
    assert code == 2
    one_line(err, "moon-arena")


@pytest.mark.parametrize("argv", [
    ["--seats", "\x1b[2J,b,c"], ["--seats", "\ud800"], ["--seats", "x" * 100_000],
    ["--seats", "random,random,random", "--rule", "min_bid=٣"],
    ["--seats", "random,random,random", "--rule", "\x1b[2J=1"],
])
def test_moon_arena_seats_and_rules(argv: list[str],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main("moon-arena", argv, capsys)
    assert code == 2
    one_line(err, "moon-arena")


@pytest.mark.parametrize("command, argv", [
    ("moon-arena", ["--seats", "random,random,random,random", "--players", "4", "--rule",
                    "discard_shown=true"]),
    ("moon-arena", ["--seats", "random,random,random", "--rule", "set=moon21", "--rule",
                    "trump_before_widow=true"]),
    ("moon-arena", ["--seats", "random,random,random", "--rule", "team_scoring=bid"]),
    ("moon", ["--players", "4", "--rule", "trump_before_widow=true"]),
    ("moon", ["--rule", "set=moon21", "--rule", "discard_shown=true"]),
])
def test_a_game_is_not_made_with_an_option_that_means_nothing_there(
        command: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # The widow's options need the widow (3 players with the 0-0), the teams' need teams.
    code, _, err = run_main(command, argv, capsys)
    assert code == 2
    line = one_line(err, command)
    assert "needs the widow" in line or "is for 4 players" in line


@pytest.mark.parametrize("kind", ["null", "binary", "fifo"])
def test_moon_arena_records_over_something_else(
        kind: str, special: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main("moon-arena", ["--seats", "random,random,random", "--games", "1",
                                           "--records", special[kind]], capsys)
    assert code == 2
    assert "not a folder" in one_line(err, "moon-arena")


def test_moon_arena_random_seats_end_with_unfinished_games_not_a_traceback(
        capsys: pytest.CaptureFixture[str]) -> None:
    # seed 5: the third game drifts below zero and has no winner after 500 hands.
    code, out, err = run_main("moon-arena", ["--seats", "random,random,random",
                                             "--games", "3", "--seed", "5"], capsys)
    assert code == 0, err
    assert "1 of 3 games had no winner after 500 hands" in out


@pytest.mark.parametrize(("option", "word"), [
    *((option, word) for option in ("--timer", "--seed", "--players")
      for word in [*HOSTILE_WORDS, "1" + "0" * 99]),
    ("--timer", "0"), ("--timer", "3601"), ("--players", "0")])
def test_moon_numbers(option: str, word: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main("moon", [option, word], capsys)
    assert code == 2
    one_line(err, "moon")


@pytest.mark.parametrize("kind", ["folder", "missing", "null"])
def test_moon_log_somewhere_it_cannot_write(
        kind: str, special: dict[str, str], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    target = special[kind] if kind != "null" else str(tmp_path)  # /dev/null is writable
    code, _, err = run_main("moon", ["--log", target], capsys)
    assert code == 2
    assert "cannot write the log" in one_line(err, "moon")


@pytest.mark.parametrize("kind", ["fifo", "folder", "null", "zero", "urandom", "binary",
                                  "digits", "missing", "non-utf8 name"])
@pytest.mark.parametrize("command", ["moon-server", "moon-server backup"])
def test_moon_server_config_files(kind: str, command: str, special: dict[str, str],
                                  capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["--config", special[kind]]
    if command == "moon-server backup":
        argv = [str(tmp_path / "b.sqlite3"), *argv]
    else:
        argv += ["--data", str(tmp_path / "data")]
    code, _, err = run_main(command, argv, capsys)
    assert code == 2
    one_line(err, command)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("text", [
    f"port = {BIG}\n", "port = 1e999\n", "bot_delay = nan\n", "bot_delay = inf\n",
    "[limits]\nidle_minutes = -inf\n", f"[limits]\nmax_sessions = {'9' * 30}\n",
    '"\\u001b[2J" = 1\n', "motd = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
])
def test_moon_server_config_values(text: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text(text)
    code, _, err = run_main("moon-server", ["--config", str(config), "--data",
                                            str(tmp_path / "data")], capsys)
    assert code == 2
    one_line(err, "moon-server")


@pytest.mark.parametrize("argv", [
    ["--log-level", "LOUD"], ["--log-level", "\x1b[2J"], ["--port", BIG], ["--port", "٣"],
    ["--port", "70000"], ["--port", "-1"], ["--host"], ["--bogus"],
])
def test_moon_server_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main("moon-server", argv, capsys)
    assert code == 2
    one_line(err, "moon-server")


@pytest.mark.parametrize("argv", [[], ["a", "b"], ["x", "--data"], ["\udcff", "--bogus"]])
def test_moon_server_backup_arguments(argv: list[str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main("moon-server backup", argv, capsys)
    assert code == 2
    one_line(err, "moon-server backup")


# --- real processes: standard input, FIFOs and devices, under a timeout ------------------

def run_process(argv: list[str], stdin: int | None = subprocess.DEVNULL
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], cwd=REPO, stdin=stdin, capture_output=True,
                          text=True, timeout=60, errors="backslashreplace")


@pytest.mark.parametrize("stdin_path", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_replay_from_standard_input_refuses_a_device(stdin_path: str) -> None:
    fd = os.open(stdin_path, os.O_RDONLY)
    try:
        done = run_process(["-m", "moon_tui.rules.cli", "replay", "-"], stdin=fd)
    finally:
        os.close(fd)
    assert done.returncode == 2
    assert "a terminal or a device" in one_line(done.stderr, "moon-rules")


def test_replay_reads_a_record_on_standard_input_a_file_or_a_pipe_bounded(
        tmp_path: Path) -> None:
    # The record is read twice (checked, then replayed): a pipe is kept in a temporary
    # file, a file given as standard input is read from where it stands.
    made = run_process(["-m", "moon_tui.rules.cli", "random", "--seed", "2", "--hands", "40"])
    path = tmp_path / "r.json"
    path.write_text("junk that is not read" + made.stdout)
    with path.open("rb") as file:
        file.seek(len("junk that is not read"))
        from_file = subprocess.run([sys.executable, "-m", "moon_tui.rules.cli", "replay", "-",
                                    "--json"], stdin=file, cwd=REPO, capture_output=True,
                                   text=True, timeout=60)
    from_pipe = subprocess.run([sys.executable, "-m", "moon_tui.rules.cli", "replay", "-",
                                "--json"], input=made.stdout, cwd=REPO, capture_output=True,
                               text=True, timeout=60)
    assert from_file.returncode == from_pipe.returncode == 0, from_file.stderr
    assert from_file.stdout == from_pipe.stdout
    assert len(json.loads(from_pipe.stdout)["hands"]) == 40
    too_big = subprocess.run([sys.executable, "-m", "moon_tui.rules.cli", "replay", "-",
                              "--max-size", "1"], input=made.stdout * 200, cwd=REPO,
                             capture_output=True, text=True, timeout=60)
    assert too_big.returncode == 2
    assert "larger than 1 MB" in one_line(too_big.stderr, "moon-rules")


def test_replay_reads_a_pipe_on_standard_input() -> None:
    done = subprocess.run(f"printf junk | {sys.executable} -m moon_tui.rules.cli replay -",
                          shell=True, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "not JSON" in one_line(done.stderr, "moon-rules")


def test_a_fifo_hangs_no_command(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    for argv, prog in (
            (["-m", "moon_tui.rules.cli", "replay", str(fifo)], "moon-rules"),
            (["-m", "server.cli", "--config", str(fifo), "--data", str(tmp_path / "d")],
             "moon-server"),
            (["-m", "server.cli", "--config", str(zero), "--data", str(tmp_path / "d")],
             "moon-server"),
            (["-m", "server.cli", "backup", str(tmp_path / "b"), "--config", str(zero)],
             "moon-server backup")):
        done = run_process(argv)
        assert done.returncode == 2, done.stderr
        one_line(done.stderr, prog)
