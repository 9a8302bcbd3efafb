"""Plain words for the club's saved games: a list's cells, the JSON of `games --json`,
and why a game cannot be opened. Pure functions of `GameEntry` values, shared by the
games screen and the `games` command over plain ssh (one wording for both)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..lobby.messages import BOT_LEVELS, BotLevel
from ..lobby.seating import bot_name
from ..services import GameEntry, GameRefusal
from .words import fit, rules_cell

#: (title, width) of the games list: 79 columns with the cell padding, so it fits 80x24.
COLUMNS = (("When", 12), ("Players", 25), ("Rules", 11), ("Result", 17), ("Code", 6))
WIDTHS = tuple(width for _, width in COLUMNS)
PLAYERS_COLUMN, RULES_COLUMN, RESULT_COLUMN = 1, 2, 3


def when_cell(saved_at: float, now: float | None = None) -> str:
    """`14:05` today, `Dec 03 14:05` this year, `2025-12-03` before (server's local time)."""
    now = time.time() if now is None else now
    then, today = time.localtime(saved_at), time.localtime(now)
    if then[:3] == today[:3]:
        return time.strftime("today %H:%M", then)
    if then.tm_year == today.tm_year:
        return time.strftime("%b %d %H:%M", then)
    return time.strftime("%Y-%m-%d", then)


COMPUTERS: dict[str, BotLevel] = {bot_name(level): level for level in BOT_LEVELS}
"""A computer's name in the records (`normal bot`: its name in the ratings) -> its level."""


def told_apart(seats: Sequence[str]) -> tuple[str, ...]:
    """The seats' names as the viewer shows them. Two computers of one level read alike
    in the records, so each is `Bot 2` here, as the table called it (its level is shown
    by its seat, `replay_table`). Another name that sat twice gets its seat's number."""
    return tuple(f"Bot {seat + 1}" if name in COMPUTERS
                 else f"{name} {seat + 1}" if seats.count(name) > 1 else name
                 for seat, name in enumerate(seats))


def players_cell(entry: GameEntry, width: int) -> str:
    """Who sat, in seat order (a computer as `Bot 2`, as its table called it), the
    winners marked `*`; to fit `width`, the longest names are cut first, a character at
    a time (short names stay whole, and a cut name keeps its mark)."""
    marks = ["*" if winner else "" for winner in winners(entry)]
    named = told_apart(entry.seats)
    shown = list(named)

    def cell() -> str:
        return ", ".join(name + mark for name, mark in zip(shown, marks, strict=True))

    while len(cell()) > width:
        longest = max(range(len(shown)), key=lambda i: len(shown[i]))
        if len(shown[longest]) <= 3:
            break
        shown[longest] = fit(named[longest], len(shown[longest]) - 1)
    return cell()


def winners(entry: GameEntry) -> tuple[bool, ...]:
    """For each seat, whether it is on the winning side."""
    if entry.winner is None:
        return tuple(False for _ in entry.seats)
    return tuple(entry.rules.side_of(seat) == entry.winner for seat in range(len(entry.seats)))


def result_cell(entry: GameEntry, width: int = WIDTHS[RESULT_COLUMN]) -> str:
    """`won 23/-5/8` (scores per side, in seat order) or `unfinished 12/3/8`; where the
    scores do not fit `width`, only the winner's (`won with 23`)."""
    scores = "/".join(str(s) for s in entry.scores) or "-"
    word = "unfinished" if not entry.finished else "ended" if entry.winner is None else "won"
    cell = f"{word} {scores}"
    if len(cell) <= width:
        return cell
    if entry.winner is not None and entry.winner < len(entry.scores):
        return f"won with {entry.scores[entry.winner]}"
    return word


def game_row(entry: GameEntry, now: float | None = None,
             widths: tuple[int, ...] = WIDTHS) -> tuple[str, ...]:
    """The cells of one game in the list (`COLUMNS`)."""
    return (when_cell(entry.saved_at, now), players_cell(entry, widths[PLAYERS_COLUMN]),
            rules_cell(entry.rules, widths[RULES_COLUMN]),
            result_cell(entry, widths[RESULT_COLUMN]), entry.code)


def games_table(entries: tuple[GameEntry, ...], now: float | None = None) -> str:
    """The list as plain text, for `games` over ssh: one game a line under a header."""
    widths = WIDTHS
    rows = [tuple(title for title, _ in COLUMNS),
            *(game_row(e, now, widths) for e in entries)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip() for row in rows) + "\n"


def game_json(entry: GameEntry) -> dict[str, Any]:
    """One game in `games --json` (the README documents this shape)."""
    return {
        "code": entry.code,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(entry.saved_at)),
        "finished": entry.finished,
        "players": len(entry.seats),
        "seats": list(entry.seats),
        "rules": entry.rules.to_dict(),
        "hands": entry.hands,
        "scores": list(entry.scores),
        "winner": entry.winner,
        "winners": [n for n, w in zip(entry.seats, winners(entry), strict=True) if w],
    }


def refusal_words(why: GameRefusal, code: str) -> str:
    """Why the game `code` cannot be opened, in a sentence."""
    if why is GameRefusal.UNKNOWN:
        return f"no game has the code '{code}'"
    if why is GameRefusal.GUEST:
        return (f"game {code} was not finished: only its players may open it, and a guest's "
                "name is for one visit (log in with a key)")
    return f"game {code} was not finished: only its players may open it"
