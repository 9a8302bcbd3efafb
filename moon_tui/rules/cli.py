"""`moon-rules`: check and tell a recorded game, or write a random legal one.

    moon-rules replay FILE [--json]      exit 0 legal, 1 illegal, 2 not a moon/1 record
    moon-rules random [--seed N] [--players 3|4] [--hands N] [--rule key=value ...]
                      [--names a,b,c]

`FILE` may be `-` for standard input. A bad file never shows a traceback: the message says
what is wrong and where.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from typing import TextIO

from .options import Rules, RulesError, parse_options
from .record import RecordFormatError, dumps_record, parse_record, record_of
from .replay import replay_game
from .report import render_report
from .state import CHANCE, GameState

EXIT_LEGAL = 0
EXIT_ILLEGAL = 1
EXIT_NOT_A_RECORD = 2

DEFAULT_NAMES = ("alice", "bob", "carol", "dave")
MAX_RANDOM_HANDS = 1000
"""Random bids rarely let anyone reach the target; without --hands a game stops here."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="moon-rules", description="The rules of Moon: replay a game record, or write a "
        "random legal one.")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replay", help="check a moon/1 record and tell the game",
                         description="Check every decision of a moon/1 record against the "
                         "rules. Exit 0 legal, 1 illegal, 2 not a moon/1 record.")
    rep.add_argument("file", metavar="FILE", help="the record (- for standard input)")
    rep.add_argument("--json", action="store_true", help="print the RECORD.md JSON shape")
    rnd = sub.add_parser("random", help="write a random legal record to standard output",
                         description="Play a game with random legal decisions and write its "
                         "moon/1 record.")
    rnd.add_argument("--seed", type=int, default=None, help="seed of the random generator")
    rnd.add_argument("--players", type=int, choices=(3, 4), default=None)
    rnd.add_argument("--hands", type=int, default=None,
                     help=f"stop after N hands (default: the end of the game, at most "
                     f"{MAX_RANDOM_HANDS})")
    rnd.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                     help="a table option of RULES.md, e.g. min_bid=3 (repeatable)")
    rnd.add_argument("--names", default=None, help="seat names, comma separated")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "replay":
        return replay_command(args.file, args.json, sys.stdout, sys.stderr)
    return random_command(args, sys.stdout, sys.stderr)


def _read(path: str) -> str:
    """The text of a file (or stdin). `OSError` when it cannot be read, `RecordFormatError`
    when it is not UTF-8 text."""
    if path == "-":
        if sys.stdin is None:
            raise OSError("no standard input")
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordFormatError(f"not UTF-8 text (byte {exc.start})") from None


def _refuse(reason: str, hand: int | None, as_json: bool, out: TextIO, err: TextIO) -> int:
    err.write(f"moon-rules: {reason}\n")
    if as_json:
        payload = {"ok": False, "error": {"hand": hand, "play": None, "seat": None,
                                          "reason": reason}}
        out.write(json.dumps(payload, ensure_ascii=False) + "\n")
    return EXIT_NOT_A_RECORD


def replay_command(path: str, as_json: bool, out: TextIO, err: TextIO) -> int:
    """`moon-rules replay`: print the match report (or JSON) and return the exit status."""
    shown = "standard input" if path == "-" else path
    try:
        game = replay_game(parse_record(_read(path)))
    except OSError as exc:
        return _refuse(f"cannot read {shown}: {exc.strerror or exc}", None, as_json, out, err)
    except RecordFormatError as exc:
        return _refuse(f"{shown}: {exc}", exc.hand, as_json, out, err)
    if as_json:
        out.write(json.dumps(game.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(render_report(game))
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
                                 f"players={options['players']} disagree")
            options["players"] = args.players
        rules = Rules.make(**options)
    except RulesError as exc:
        err.write(f"moon-rules: {exc}\n")
        return 2
    if args.hands is not None and args.hands < 0:
        err.write("moon-rules: --hands must be 0 or more\n")
        return 2
    names = DEFAULT_NAMES[:rules.players] if args.names is None else \
        tuple(n.strip() for n in args.names.split(","))
    if len(names) != rules.players:
        err.write(f"moon-rules: --names needs {rules.players} names, not {len(names)}\n")
        return 2
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    state = random_game(rules, random.Random(seed), args.hands)
    if args.hands is None and not state.is_terminal():
        err.write(f"moon-rules: nobody won in {MAX_RANDOM_HANDS} hands of random play "
                  f"(seed {seed}); the record stops there\n")
    out.write(dumps_record(record_of(state, names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
