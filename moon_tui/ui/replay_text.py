"""Words of the replay viewer: where the replay stands, the decision that led there, who
made it, all hands open. Pure functions of a `Timeline` and the game's entry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text

from ..lobby.messages import SeatInfo, TableInfo
from ..rules import Tile
from ..rules.timeline import Step, Timeline
from ..services import GameEntry
from .base import heading
from .dominoes import small_tile
from .games_text import COMPUTERS, told_apart
from .words import action_words, fit, points_words, result_words

WHY = {"away": "standing in while away", "back": "back", "left": "after the player left",
       "kicked": "after the player was kicked", "timeout": "the turn timer ran out",
       "joined": "joined"}
"""`seat_changes` reasons (RECORD.md), worded."""


def replay_table(entry: GameEntry) -> TableInfo:
    """The saved game as a table the table screen's text functions can draw: a
    computer's seat as the table showed it (`Bot 2`, `computer, normal`)."""
    seats = tuple(SeatInfo(bot_level=COMPUTERS[name]) if name in COMPUTERS
                  else SeatInfo(shown) for name, shown in zip(entry.seats,
                                                              told_apart(entry.seats),
                                                              strict=True))
    return TableInfo(table_id=f"replay-{entry.code}", name=f"game {entry.code}", owner="",
                     rules=entry.rules, seats=seats,
                     status="finished" if entry.finished else "playing", private=False,
                     spectators_allowed=False, spectators=(), turn_seconds=None)


def decided_by(step: Step, seats: Sequence[str],
               changes: Sequence[Mapping[str, Any]]) -> str:
    """Who made `step` when it was not the seat's named player (`seat_changes`), else ``."""
    latest: Mapping[str, Any] | None = None
    for change in changes:
        if change["seat"] == step.seat and (change["hand"], change["at"]) <= (step.hand,
                                                                              step.index):
            latest = change
    if latest is None or latest["why"] == "back":
        return ""
    who = "a computer" if latest["computer"] else str(latest["name"])
    why = WHY.get(str(latest["why"]), str(latest["why"]))
    return f"{who} for {seats[step.seat]} ({why})"


def step_lines(timeline: Timeline, index: int, entry: GameEntry,
               changes: Sequence[Mapping[str, Any]], names: int) -> Text:
    """Where the replay stands and what was just decided, for the side panel."""
    hand, k = timeline.at(index)
    text = heading(f"Move {index} of {timeline.last}")
    text.append(f"\nhand {hand + 1} of {len(timeline.steps)}")
    step = timeline.step_to(index)
    if step is None:
        text.append("\n\nThe tiles are dealt.")
    else:
        text.append(f"\n\n{fit(entry.seats[step.seat], names)} {action_words(step.action)}")
        by = decided_by(step, entry.seats, changes)
        if by:
            text.append(f"\n({by})", style="italic")
    upcoming = timeline.next_step(index)
    if upcoming is not None:
        text.append(f"\nnext: {fit(entry.seats[upcoming.seat], names)}")
    elif k and hand == len(timeline.steps) - 1 and not entry.finished:
        text.append("\n\nThe game stopped here.")
    return text


def open_hands(timeline: Timeline, index: int, entry: GameEntry, names: int) -> Text:
    """Every seat's tiles at this position, a line each, then the widow and discard."""
    hands = timeline.hands(index)
    width = max(len(fit(n, names)) for n in entry.seats)
    text = Text(no_wrap=True, overflow="ellipsis")
    for seat, tiles in enumerate(hands):
        if seat:
            text.append("\n")
        text.append(f" {fit(entry.seats[seat], names):<{width}}  ", style="bold")
        text.append(" ".join(small_tile(t) for t in tiles) or "–")
    widow, discard = timeline.widow_and_discard(index)
    if widow is not None:
        text.append(f"\n {'widow':<{width}}  {small_tile(widow)}")
        if discard is not None:
            text.append(f"   discard {small_tile(discard)}")
    return text


def hand_result(timeline: Timeline, index: int, table: TableInfo) -> Text:
    """At a hand's end: its result and the scores (the table screen's words)."""
    state = timeline.state(index)
    results = state.results
    text = heading(f"Hand {len(results)} is over")
    if results:
        result = results[-1]
        rules = timeline.record.rules
        text.append("\n" + result_words(result, rules, table))
        if not result.redeal:
            text.append("\nThis hand: " + points_words(result.points, rules, table))
        text.append("\nScores: " + points_words(result.scores, rules, table).replace("+", ""))
    return text


def tiles_words(tiles: Sequence[Tile]) -> str:
    return " ".join(small_tile(t) for t in tiles)
