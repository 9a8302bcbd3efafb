"""What a table's core asks its shell to do: effects, as values.

The core (`core.py`) decides; it never waits, reads a clock, posts, writes or starts a
task. Each step returns the effects of a message, in order, and the shell (`table.py`)
performs them: sets its timers at once, and sends what it tells, stores records and
starts a computer only once the pass's changes are in the journal (durability before
telling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..bots.claim import ClaimProof
from ..rules import SeatView
from .internal import GraceOver, TableMessage, TableOutput
from .messages import BotLevel, ChatLine


@dataclass(frozen=True, slots=True)
class Send:
    """Out of the table (an event for a member, its entry, its counts): after the write."""

    output: TableOutput


@dataclass(frozen=True, slots=True)
class Wait:
    """The one thing the game waits on now: `message` after `seconds` (at once if 0).
    Replaces the wait before it."""

    seconds: float
    message: TableMessage


@dataclass(frozen=True, slots=True)
class StopWaiting:
    """Wait on nothing: the game timer and a computer still thinking are called off."""


@dataclass(frozen=True, slots=True)
class Grace:
    """A member went away: `message` (their `GraceOver`) after `seconds`, unless called off."""

    name: str
    seconds: float
    message: GraceOver


@dataclass(frozen=True, slots=True)
class EndGrace:
    """A member's grace period is over or called off."""

    name: str


@dataclass(frozen=True, slots=True)
class Think:
    """A computer chooses `seat`'s move from its `view`, once the pass is out (so readers
    of what it told go first); its answer comes back as `BotMoved`."""

    generation: int
    seat: int
    level: BotLevel
    view: SeatView
    stand_in: bool


@dataclass(frozen=True, slots=True)
class Prove:
    """Prove a claim off the event loop (in the bots' worker pool), once the pass is out;
    the answer comes back as `ClaimChecked`. `proof` holds a copy of the game."""

    generation: int
    proof: ClaimProof


@dataclass(frozen=True, slots=True)
class Said:
    """A line of the table chat, for the journal."""

    line: ChatLine


@dataclass(frozen=True, slots=True)
class StoreRecord:
    """A game's record, stored once the journal has its end."""

    record: dict[str, Any]
    finished: bool


Effect = Send | Wait | StopWaiting | Grace | EndGrace | Think | Prove | Said | StoreRecord
