"""The first lesson's hand, and the same hand as a practice table at a club.

`moon --lesson` and the welcome banner's `l` play the lesson in a lobby of its own
(`lesson.py`), seeded with `LESSON_SEED`; the help's `l`, in a session already at the
club, plays the same deal at a practice table of the club's lobby (`lesson_play_on`):
a table of the learner's own, private, unwatched, unrated, unsaved.
"""

from __future__ import annotations

import random

from .lobby.messages import BotLevel, PlayOn
from .rules import GameState, Rules
from .rules.record import dumps_record, record_of

LESSON_SEED = 31705
"""The lesson lobby's seed: the learner (the first seat) bids first with four 5s and the
5-5, the computers pass a bid of 4, and played as the lesson says the learner follows a
suit once, has none of another, and makes the bid with 5 tricks of 7 (found by trying
seeds with the rules engine and the bots: tests/test_ui_lesson.py plays it)."""
LESSON_RULES = Rules.make(players=3)
LESSON_LEVEL: BotLevel = "normal"
"""The lesson's computer players: an instant level (no worker process is started)."""


def lesson_game() -> GameState:
    """The lesson's game just dealt, as its own lobby deals it (the first table's seed
    drawn from the lobby's, `TableHost`)."""
    table_seed = random.Random(LESSON_SEED).getrandbits(64)
    return GameState.new_game(LESSON_RULES, random.Random(table_seed))


def lesson_play_on() -> PlayOn:
    """The lesson's deal as a play-on: the learner in the first seat."""
    record = record_of(lesson_game(), ("you", "normal bot", "normal bot"))
    return PlayOn(dumps_record(record), 0, LESSON_LEVEL)


__all__ = ["LESSON_RULES", "LESSON_SEED", "lesson_game", "lesson_play_on"]
