"""`leaderboard` and `stats` over plain ssh (the JSON is documented in the README).

    ssh -p 2222 host leaderboard [--players 3|4] [--page N] [--json]
    ssh -p 2222 host stats NAME [--json]

They run as the login's name (your own row of the board), read from the database's
ratings (`ratings.py`), and answer a name with no rated game, or an argument that does not
exist, with one line and exit status 2.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from moon_tui.ratings.board import LISTED_GAMES, PAGE_ROWS, LeaderboardPage, LeaderRow, PlayerCard
from moon_tui.shown import shown
from moon_tui.ui.card import plural, trump_words

from .commands import Answer, CommandContext, CommandError, command
from .ratings import read_card, read_leaderboard

MAX_PAGE = 10_000


def _flags(args: list[str], known: Sequence[str], valued: Sequence[str]
           ) -> tuple[dict[str, str], list[str]]:
    """The `--flag` and `--flag VALUE` options of a command, and the other words."""
    flags: dict[str, str] = {}
    words: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg in valued:
            value = next(rest, None)
            if value is None:
                raise CommandError(f"{arg} needs a value")
            flags[arg] = value
        elif arg in known:
            flags[arg] = ""
        elif arg.startswith("-"):
            raise CommandError(f"unknown option '{shown(arg)}'")
        else:
            words.append(arg)
    return flags, words


def _number(flag: str, value: str, choices: Sequence[int] | None = None,
            highest: int = MAX_PAGE) -> int:
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= highest \
            or (choices is not None and int(value) not in choices):
        wanted = " or ".join(map(str, choices)) if choices else f"a number from 1 to {highest}"
        raise CommandError(f"{flag} takes {wanted}, not '{shown(value, 20)}'")
    return int(value)


@command("leaderboard", "[--players 3|4] [--page N] [--json]  the club's best players")
async def leaderboard(context: CommandContext, args: list[str]) -> Answer:
    flags, words = _flags(args, ("--json",), ("--players", "--page"))
    if words:
        raise CommandError(f"leaderboard takes no name: '{shown(words[0])}'")
    players = _number("--players", flags.get("--players", "3"), (3, 4))
    page = _number("--page", flags.get("--page", "1"))
    me = None if context.player is None or context.player.guest else context.player.name
    db = context.db
    board = await db.run(lambda: read_leaderboard(
        db.connection(), players, (page - 1) * PAGE_ROWS, PAGE_ROWS, me))
    if "--json" in flags:
        return Answer(json.dumps(board.to_json(), ensure_ascii=False) + "\n")
    return Answer(leaderboard_text(board))


@command("stats", "NAME [--json]  a player's record (a computer: 'expert bot')")
async def stats(context: CommandContext, args: list[str]) -> Answer:
    flags, words = _flags(args, ("--json",), ())
    if not words:
        raise CommandError("stats needs a player's name: stats NAME")
    name = " ".join(words)  # `stats expert bot` as well as `stats "expert bot"`
    db = context.db
    card = await db.run(lambda: read_card(db.connection(), name))
    if card is None:
        raise CommandError(f"no rated game for '{shown(name, 40)}'")
    if "--json" in flags:
        return Answer(json.dumps(card.to_json(), ensure_ascii=False) + "\n")
    return Answer(card_text(card))


def _who(name: str, bot: bool) -> str:
    """A name from the records, escaped: a restored database is read as it comes."""
    return f"{shown(name, 40)} (computer)" if bot else shown(name, 40)


def _row_text(row: LeaderRow) -> str:
    place = f"{row.place:>4}" if row.place is not None else "   –"
    trend = "" if row.trend is None else f"{row.trend:+6.1f}"
    return (f"{place}  {_who(row.name, row.bot):<22} {row.rating:6.1f} {row.games:6} "
            f"{row.win_rate:5.0%} {trend}").rstrip()


def leaderboard_text(board: LeaderboardPage) -> str:
    lines = [f"Leaderboard, {board.players} players: {board.listed} placed "
             f"(fewer than {LISTED_GAMES} rated games: not placed yet)", "",
             f"{'#':>4}  {'name':<22} {'rating':>6} {'games':>6} {'win%':>5} {'trend':>6}"]
    lines += [_row_text(row) for row in board.rows]
    if not board.rows:
        lines.append("      nobody on this page")
    me = board.me
    if me is not None and all(row.name != me.name for row in board.rows):
        lines += ["", _row_text(me) + ("" if me.place is not None else
                                       f"  (you: {me.games} of {LISTED_GAMES} games)")]
    return "\n".join(lines) + "\n"


def card_text(card: PlayerCard) -> str:
    lines = [_who(card.name, card.bot)]
    for pool in card.pools:
        place = f"#{pool.place}" if pool.place is not None else "not placed yet"
        lines += [
            "",
            f"{pool.players} players: rating {pool.rating:.1f} ({place}), "
            f"{plural(pool.games, 'game')}, "
            f"{pool.wins} won ({pool.win_rate:.0%})",
            f"  bids made {pool.bids_made}/{pool.bids_tried}, moons made "
            f"{pool.moons_made}/{pool.moons_tried}, {pool.points_per_hand:+.2f} points a hand, "
            f"favourite trump {trump_words(pool.favourite_trump)}",
        ]
    if card.last_games:
        lines += ["", "Last games:"]
        for game in card.last_games:
            day = time.strftime("%Y-%m-%d %H:%M", time.gmtime(game.at))
            lines.append(f"  {day}  game {game.record_id}  place {game.place}"
                         f"{' (won)' if game.won else ''}  rating {game.rating:.1f}  "
                         f"with {', '.join(shown(n, 40) for n in game.seats if n != card.name)}")
    return "\n".join(lines) + "\n"
