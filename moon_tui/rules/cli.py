"""`moon-rules`: check and tell a recorded game, or write a random legal one.

    moon-rules replay FILE [--json] [--max-size MB]
                                 exit 0 legal, 1 illegal, 2 not a moon/1 record
    moon-rules random [--seed N] [--players 3|4] [--hands N] [--rule key=value ...]
                      [--names a,b,c]

`FILE` may be `-` for standard input (a pipe or a file). A bad file never shows a
traceback: one line says what is wrong and where, with anything unprintable escaped. Only
a regular file is read, and at most `--max-size` MB of it (a FIFO, a device or a symlink
to `/dev/zero` are refused at once).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Sequence
from typing import BinaryIO, TextIO

from ..commandline import OneLineParser, number_in
from ..files import MEGABYTE, open_limited, open_stdin_limited
from ..shown import brief, one_line
from .options import Rules, RulesError, parse_options
from .record import (
    RecordFormatError,
    dumps_record,
    read_record,
    record_of,
    seat_name_problem,
)
from .replay import write_json
from .report import write_report
from .state import CHANCE, GameState

EXIT_LEGAL = 0
EXIT_ILLEGAL = 1
EXIT_NOT_A_RECORD = 2

DEFAULT_NAMES = ("alice", "bob", "carol", "dave")
MAX_RANDOM_HANDS = 1000
"""Random bids rarely let anyone reach the target; without --hands a game stops here."""
HANDS_MAX = 100_000
"""The most hands `random --hands` plays (a few seconds; its record, about 44 MB, is
within what `replay` reads by default)."""
RECORD_MAX_MB = 64
"""The largest record `replay` reads unless told otherwise (`--max-size`)."""
MESSAGE_MAX = 400
"""Characters of the one line that says why a file is not a record."""


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="moon-rules", description="The rules of Moon: replay a game record, or write a "
        "random legal one.")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replay", help="check a moon/1 record and tell the game",
                         description="Check every decision of a moon/1 record against the "
                         "rules. Exit 0 legal, 1 illegal, 2 not a moon/1 record.")
    rep.add_argument("file", metavar="FILE", help="the record (- for standard input)")
    rep.add_argument("--json", action="store_true", help="print the RECORD.md JSON shape")
    rep.add_argument("--max-size", type=number_in(1, 4096), default=RECORD_MAX_MB,
                     metavar="MB",
                     help=f"refuse a record larger than this (default {RECORD_MAX_MB} MB)")
    rnd = sub.add_parser("random", help="write a random legal record to standard output",
                         description="Play a game with random legal decisions and write its "
                         "moon/1 record.")
    rnd.add_argument("--seed", type=number_in(0, 2**64 - 1), default=None,
                     help="seed of the random generator")
    rnd.add_argument("--players", type=number_in(3, 4), default=None)
    rnd.add_argument("--hands", type=number_in(0, HANDS_MAX), default=None,
                     help=f"stop after N hands, 0 to {HANDS_MAX:,} (default: the end of the "
                     f"game, at most {MAX_RANDOM_HANDS})")
    rnd.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                     help="a table option of RULES.md, e.g. min_bid=3 (repeatable)")
    rnd.add_argument("--names", default=None, help="seat names, comma separated")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "replay":
        return replay_command(args.file, args.json, sys.stdout, sys.stderr,
                              max_bytes=args.max_size * MEGABYTE)
    return random_command(args, sys.stdout, sys.stderr)


def _open(path: str, max_bytes: int) -> BinaryIO:
    """The record's file (or stdin), ready to be read twice. `OSError` when it cannot be
    read (or is no regular file or pipe, or is too large)."""
    return open_stdin_limited(max_bytes) if path == "-" else open_limited(path, max_bytes)


_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def json_line(text: str) -> str:
    """JSON text safe for any terminal or UTF-8 stream: what `json.dumps` leaves raw with
    `ensure_ascii=False` (C1 controls, DEL, lone surrogates) written as `\\uXXXX`."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _refuse(reason: str, hand: int | None, as_json: bool, out: TextIO, err: TextIO) -> int:
    reason = one_line(reason, MESSAGE_MAX)  # one line, nothing a terminal acts on
    err.write(f"moon-rules: {reason}\n")
    if as_json:
        payload = {"ok": False, "error": {"hand": hand, "play": None, "seat": None,
                                          "reason": reason}}
        out.write(json_line(json.dumps(payload, ensure_ascii=False)) + "\n")
    return EXIT_NOT_A_RECORD


def replay_command(path: str, as_json: bool, out: TextIO, err: TextIO, *,
                   max_bytes: int = RECORD_MAX_MB * MEGABYTE) -> int:
    """`moon-rules replay`: print the match report (or JSON) and return the exit status.

    The file is read twice, a hand at a time: once to check it is a record at all (exit 2
    before anything is printed), once to replay it as it is printed.
    """
    where = "standard input" if path == "-" else path
    try:
        with _open(path, max_bytes) as file:
            record = read_record(file)
            if as_json:
                game = write_json(record, lambda text: out.write(json_line(text)))
                out.write("\n")
            else:
                game = write_report(record, out)
    except OSError as exc:
        return _refuse(f"cannot read {where}: {exc.strerror or exc}", None, as_json, out, err)
    except RecordFormatError as exc:
        return _refuse(f"{where}: {exc}", exc.hand, as_json, out, err)
    return EXIT_LEGAL if game.ok else EXIT_ILLEGAL


def random_game(rules: Rules, rng: random.Random, hands: int | None = None) -> GameState:
    """A game of random legal decisions: to its end, or until `hands` hands are over."""
    limit = MAX_RANDOM_HANDS if hands is None else hands
    state = GameState(rules, rng.randrange(rules.players))
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            if len(state.logs) >= limit:
                break
            state.deal(rng)
            continue
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def random_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        options = parse_options(args.rule)
        if args.players is not None:
            if options.get("players", args.players) != args.players:
                raise RulesError(f"--players {args.players} and --rule "
                                 f"players={options['players']} disagree", "players")
            options["players"] = args.players
        rules = Rules.make(**options)
        rules.check_new()
    except RulesError as exc:
        err.write(f"moon-rules: {one_line(str(exc), MESSAGE_MAX)}\n")
        return 2
    names = DEFAULT_NAMES[:rules.players] if args.names is None else \
        tuple(n.strip() for n in args.names.split(","))
    if len(names) != rules.players:
        err.write(f"moon-rules: --names needs {rules.players} names, not {len(names)}\n")
        return 2
    for name in names:
        problem = seat_name_problem(name)
        if problem is None and not _utf8(name):
            problem = "a name is UTF-8 text (this one came from bytes that are not)"
        if problem is not None:  # its own replay would refuse the record
            err.write(f"moon-rules: --names {brief(name)}: {problem}\n")
            return 2
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    state = random_game(rules, random.Random(seed), args.hands)
    if args.hands is None and not state.is_terminal():
        err.write(f"moon-rules: nobody won in {MAX_RANDOM_HANDS} hands of random play "
                  f"(seed {seed}); the record stops there\n")
    out.write(dumps_record(record_of(state, names)))
    return 0


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
