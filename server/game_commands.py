"""The club's saved games over plain ssh: `games` lists them, `record CODE` prints one.

`ssh -p 2222 host games --player ann --json`, `ssh -p 2222 host record K7Q2MD > game.json`
(a finished game's record is the `moon/1` document `moon-rules replay` checks; an
unfinished one is shown to its players only, each their own seat: `seat_record`).
`replay CODE` opens the replay viewer and needs a terminal (`ssh -t`): door.py starts
the app for it; run here without one, it says so.
"""

from __future__ import annotations

import json

from moon_tui.rules.record import dumps_record
from moon_tui.rules.seat_record import seat_record
from moon_tui.services import GameQuery, GameRefusal, GameRefused
from moon_tui.ui.games_text import game_json, games_table, refusal_words

from .archive import open_game
from .commands import Answer, CommandContext, CommandError, command, words_of
from .game_index import PAGE_MAX, find_game, list_games, normal_code
from .identity import Player
from .logtext import shown

DEFAULT_LIMIT = 20
NAME_MAX = 16
"""A seat's name in a record is at most this long (a player's name, or `expert bot`)."""


def _player(context: CommandContext) -> Player:
    if context.player is None:  # only `help` runs before a login is settled
        raise CommandError("log in first")
    return context.player


def _value(args: list[str], i: int, flag: str) -> str:
    if i + 1 >= len(args):
        raise CommandError(f"{flag} needs a value")
    return args[i + 1]


def _number(text: str, flag: str, low: int, high: int) -> int:
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        raise CommandError(f"{flag} takes a number from {low} to {high}, not '{shown(text)}'")
    return int(text)


def games_query(args: list[str], context: CommandContext) -> tuple[GameQuery, bool]:
    """The listing asked for by `games`' arguments, and whether as JSON."""
    player: str | None = None
    players: int | None = None
    limit = DEFAULT_LIMIT
    before: int | None = None
    as_json = False
    i = 0
    while i < len(args):
        flag = args[i]
        if flag == "--json":
            as_json = True
            i += 1
            continue
        if flag not in ("--player", "--players", "--limit", "--before"):
            raise CommandError(f"games: unknown argument '{shown(flag)}' (try: games "
                               "[--player NAME] [--players 3|4] [--limit N] [--before CODE] "
                               "[--json])")
        value = _value(args, i, flag)
        if flag == "--player":
            if not value.isprintable() or not 0 < len(value) <= NAME_MAX:
                raise CommandError(f"--player takes a name of at most {NAME_MAX} characters")
            player = value
        elif flag == "--players":
            players = _number(value, flag, 3, 4)
        elif flag == "--limit":
            limit = _number(value, flag, 1, PAGE_MAX)
        else:
            code = normal_code(value)
            found = None if code is None else find_game(context.db.reader(), code)
            if found is None:
                raise CommandError(f"--before: no game has the code '{shown(value)}'")
            before = found[0].key
        i += 2
    return GameQuery(player, players, before, limit), as_json


@command("games", "[--player NAME] [--players 3|4] [--limit N] [--before CODE] [--json]: "
                  "the club's saved games, newest first")
async def _games(context: CommandContext, args: list[str]) -> Answer:
    _player(context)
    query, as_json = games_query(args, context)
    page = list_games(context.db.reader(), query)
    if as_json:
        return Answer(json.dumps({"games": [game_json(e) for e in page.games],
                                  "more": page.more}, ensure_ascii=False) + "\n")
    if not page.games:
        return Answer("No saved games" + (f" of {query.player}" if query.player else "")
                      + ".\n")
    text = games_table(page.games)
    if page.more:
        last = page.games[-1].code
        text += f"(older games: games --before {last})\n"
    return Answer(text)


def _refused(refused: GameRefused) -> Answer:
    """An unknown code: a usage error (status 2); a game not to be shown: refused (1)."""
    words = refusal_words(refused.why, shown(refused.code))
    if refused.why is GameRefusal.UNKNOWN:
        raise CommandError(words)
    return Answer(words[:1].upper() + words[1:] + ".\n", 1)


@command("record", "CODE: a saved game's record (moon/1 JSON; moon-rules replay reads it)")
async def _record(context: CommandContext, args: list[str]) -> Answer:
    player = _player(context)
    if len(args) != 1:
        raise CommandError("record takes one game code, e.g. record K7Q2MD")
    try:
        opened = open_game(context.db.reader(), args[0], player)
    except GameRefused as refused:
        return _refused(refused)
    if opened.seats is None:
        return Answer(dumps_record(opened.record))
    extra = {"seat_changes": list(opened.seat_changes)} if opened.seat_changes else None
    view = seat_record(opened.record, min(opened.seats), extra)
    return Answer(dumps_record(view))


def replay_to_open(context: CommandContext, line: str) -> str | None:
    """The code of the game `replay CODE` asks for, when it is for the viewer to open: the
    client has a terminal and the player may open the game. Otherwise None, and the
    `replay` command answers (a refusal, an unknown code, or "needs a terminal")."""
    if not context.terminal or context.player is None:
        return None
    try:
        words = words_of(line)
    except CommandError:
        return None
    if len(words) != 2 or words[0] != "replay":
        return None
    try:
        return open_game(context.db.reader(), words[1], context.player).entry.code
    except GameRefused:
        return None


@command("replay", "CODE: watch a saved game move by move (needs a terminal: ssh -t)")
async def _replay(context: CommandContext, args: list[str]) -> Answer:
    _player(context)
    if len(args) != 1:
        raise CommandError("replay takes one game code, e.g. replay K7Q2MD")
    try:
        open_game(context.db.reader(), args[0], _player(context))
    except GameRefused as refused:
        return _refused(refused)
    return Answer("replay shows the game on a full screen: connect with 'ssh -t' "
                  f"(ssh -t -p {context.port} yourname@this-host replay {shown(args[0])}).\n", 1)
