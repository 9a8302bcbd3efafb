"""A saved game's decisions weighed: what each legal choice was worth, and what the one
made cost.

Two figures per choice, both the tricks the chooser's side can still take (the trick in
progress included):
- `dd`: double dummy, every hand known and best play by all (`Solver`): hindsight, shown
  only for a finished game (RULES.md: its deals are public);
- `fair`: what the seat could know, from the expert's sampled deals consistent with its
  view (`hint.hint`): a player is not judged on tiles they could not see.
A bid gets only the fair figure, and in points (the expert's expected gain for the
bidder's side): the tricks a bid leads to depend on a discard and a trump not yet chosen.

`DecisionTask` weighs one decision in a bot worker (`BotPool.run_spare`, behind the tables'
computer players); `Analyst` runs a hand's tasks and keeps the results per game: the last
`CACHE_HANDS` in memory, and every one in its `AnalysisStore` (the server's database,
`server/analyses.py`), so a hand is weighed once, whoever opens it, restarts included.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ..rules import Action, Phase, SeatView
from ..rules.tiles import mask_of
from ..rules.timeline import Timeline
from . import heuristic
from .expert import Choice
from .hint import HintTask, hint
from .pool import BotPool
from .solver import Solver, bits

log = logging.getLogger(__name__)

HAND_TRICKS: Final = 7
#: Sampled deals behind each fair figure (the hint's own default is 24: the analysis weighs
#: every decision of a hand, so fewer, and a fixed seed keeps it the same each time).
ANALYSIS_SAMPLES: Final = 16
#: Seconds one decision may take in a worker before it counts as hung.
TASK_TIMEOUT: Final = 60.0
#: Hands kept analysed (in memory, shared by every player of the server).
CACHE_HANDS: Final = 200
#: Swings listed per hand.
TOP_SWINGS: Final = 5


@dataclass(frozen=True, slots=True)
class Option:
    """One legal choice: its double-dummy and its fair figure (None: not known)."""

    action: Action
    dd: float | None
    fair: float | None


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a hand weighed (`index` counts the hand's decisions from 0)."""

    index: int
    seat: int
    chosen: Action
    options: tuple[Option, ...]
    """Best first (by `dd` where known, else by `fair`)."""

    def _cost(self, figure: Callable[[Option], float | None]) -> float | None:
        values = [(o.action, figure(o)) for o in self.options]
        known = [v for _, v in values if v is not None]
        mine = next((v for a, v in values if a == self.chosen), None)
        if mine is None or not known:
            return None
        return max(known) - mine

    @property
    def dd_cost(self) -> float | None:
        """Tricks the choice made gave away with every hand known."""
        return self._cost(lambda o: o.dd)

    @property
    def fair_cost(self) -> float | None:
        """What it gave away by the expert's reckoning from the seat's view."""
        return self._cost(lambda o: o.fair)

    @property
    def cost(self) -> float:
        """The cost a swing is ranked by: double dummy where known, else fair."""
        dd = self.dd_cost
        value = dd if dd is not None else self.fair_cost
        return value or 0.0


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    hand: int
    decisions: tuple[Decision, ...]

    def at(self, index: int) -> Decision | None:
        return next((d for d in self.decisions if d.index == index), None)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe, as the store keeps it (`from_json` reads it back)."""
        return {"hand": self.hand, "decisions": [
            {"index": d.index, "seat": d.seat, "chosen": str(d.chosen),
             "options": [[str(o.action), o.dd, o.fair] for o in d.options]}
            for d in self.decisions]}

    @classmethod
    def from_json(cls, data: Any) -> HandAnalysis:
        """What `to_json` wrote; ValueError (or TypeError, KeyError) for anything else."""
        def figure(value: object) -> float | None:
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"not a figure: {value!r}")
            return float(value)

        decisions = tuple(
            Decision(int(d["index"]), int(d["seat"]), Action.parse(d["chosen"]),
                     tuple(Option(Action.parse(a), figure(dd), figure(f))
                           for a, dd, f in d["options"]))
            for d in data["decisions"])
        return cls(int(data["hand"]), decisions)

    def swings(self, top: int = TOP_SWINGS) -> list[Decision]:
        """The costliest decisions, the biggest first (none that cost nothing)."""
        costly = [d for d in self.decisions if d.cost > 1e-9]
        return sorted(costly, key=lambda d: (-d.cost, d.index))[:top]


# -- one decision, in a worker ------------------------------------------------------------

def _side(view: SeatView, declarer: int) -> tuple[bool, ...]:
    rules = view.rules
    return tuple(rules.side_of(s) == rules.side_of(declarer) for s in range(rules.players))


def _for_chooser(view: SeatView, declarer_tricks: float, remaining: int) -> float:
    """The declarer side's tricks still to take, seen from the chooser's side."""
    assert view.seat is not None and view.declarer is not None
    if _side(view, view.declarer)[view.seat]:
        return declarer_tricks
    return remaining - declarer_tricks


def _declarer_best(solvers: dict[int, Solver], hands: list[int], declarer: int,
                   trumps: Sequence[int], discards: int | None) -> dict[int, int]:
    """For each trump: the declarer's tricks from the first lead, with the best of the
    `discards` (a mask of tiles one of which is still to be laid away) where one is due."""
    out = {}
    full = hands[declarer]
    for trump in trumps:
        solver = solvers[trump]
        if discards is None:
            out[trump] = solver.solve(hands, declarer)
            continue
        best = 0
        for d in bits(discards):
            hands[declarer] = full & ~(1 << d)
            best = max(best, solver.solve(hands, declarer))
        hands[declarer] = full
        out[trump] = best
    return out


def double_dummy(view: SeatView, hands: Sequence[int], widow: int | None
                 ) -> dict[Action, float]:
    """Each legal action of `view` (the chooser's, all `hands` known): the tricks the
    chooser's side can still take with best play. Empty for a bid."""
    assert view.seat is not None
    if view.phase is Phase.BID or view.declarer is None:
        return {}
    declarer = view.declarer
    side = _side(view, declarer)
    h = list(hands)
    if view.phase is Phase.PLAY:
        assert view.trump is not None
        trick = view.current_trick
        plays = [] if trick is None else [t.index for _, t in trick.plays]
        leader = trick.leader if trick is not None and plays else view.seat
        values = Solver(view.trump, len(h), side).move_values(h, leader, plays)
        remaining = HAND_TRICKS - len(view.tricks)
        return {a: _for_chooser(view, values[a.tile.index], remaining)
                for a in view.legal if a.tile is not None and a.tile.index in values}
    # The declarer's own choices: every trick of the hand is still to come.
    trumps = [view.trump] if view.trump is not None else heuristic.allowed_trumps(view)
    solvers = {t: Solver(t, len(h), side) for t in trumps}
    out: dict[Action, float] = {}
    if view.phase is Phase.TRUMP:
        discards = None
        if view.rules.has_widow and not view.widow_taken and widow is not None:
            h[declarer] |= 1 << widow  # the widow joins after the trump, then a discard
            discards = h[declarer]
        by_trump = _declarer_best(solvers, h, declarer, trumps, discards)
        for a in view.legal:
            if a.trump is not None:
                out[a] = by_trump[a.trump]
        return out
    for a in view.legal:  # the discard: each with its best trump
        assert a.tile is not None
        h[declarer] = hands[declarer] & ~(1 << a.tile.index)
        out[a] = max(_declarer_best(solvers, h, declarer, trumps, None).values())
    return out


def fair(view: SeatView, samples: int, seed: int) -> dict[Action, float]:
    """Each legal action of `view`: the chooser's side's expected tricks still to take by
    the expert's samples from what the seat knew (a bid: the expected gain in points)."""
    ranked = hint(view, samples=samples, seed=seed)
    out: dict[Action, float] = {}
    if view.phase is Phase.BID:
        return {c.action: c.value for c in ranked if not math.isnan(c.value)}
    side = _side(view, view.declarer) if view.declarer is not None else ()
    taken = sum(w for s, w in enumerate(view.tricks_won) if side and side[s])
    remaining = HAND_TRICKS - len(view.tricks)
    for c in ranked:
        if not math.isnan(c.tricks):
            out[c.action] = _for_chooser(view, c.tricks - taken, remaining)
    return out


@dataclass(frozen=True, slots=True)
class DecisionTask:
    """One decision to weigh in a bot worker: the chooser's view, and every hand (and the
    widow) when the game may be shown whole (None: only the fair figure)."""

    index: int
    view: SeatView
    chosen: Action
    hands: tuple[int, ...] | None
    widow: int | None
    samples: int = ANALYSIS_SAMPLES
    seed: int = 0

    def __call__(self) -> Decision:
        assert self.view.seat is not None
        dd = double_dummy(self.view, self.hands, self.widow) if self.hands is not None else {}
        weighed = fair(self.view, self.samples, self.seed) if len(self.view.legal) > 1 else {}
        options = [Option(a, dd.get(a), weighed.get(a)) for a in self.view.legal]
        options.sort(key=lambda o: (-(o.dd if o.dd is not None else -99.0),
                                    -(o.fair if o.fair is not None else -99.0)))
        return Decision(self.index, self.view.seat, self.chosen, tuple(options))


def tasks_of(timeline: Timeline, hand: int, seats: frozenset[int] | None,
             samples: int = ANALYSIS_SAMPLES) -> list[DecisionTask]:
    """The decisions of `hand` to weigh: all of them for a game shown whole (`seats`
    None), else only those of `seats`, each from its own view and without hindsight."""
    out = []
    start = timeline.index_of((hand, 0))
    for step in timeline.steps[hand]:
        if seats is not None and step.seat not in seats:
            continue
        position = start + step.index
        view = timeline.view(position, step.seat)
        hands = widow = None
        if seats is None:
            hands = tuple(mask_of(t) for t in timeline.hands(position))
            shown_widow, _ = timeline.widow_and_discard(position)
            widow = None if shown_widow is None else shown_widow.index
        out.append(DecisionTask(step.index, view, step.action, hands, widow, samples,
                                seed=hand * 1000 + step.index))
    return out


# -- a hand's analysis, over the pool -----------------------------------------------------

Progress = Callable[[int, int], None]
"""Told (decisions weighed, decisions in all) as a hand's analysis goes."""
Key = tuple[str, int, frozenset[int] | None]
"""A hand's analysis: the game's code, the hand, the seats shown (None: all hands open)."""


class AnalysisStore(Protocol):
    """Where weighed hands are kept (the server's database): the text of
    `HandAnalysis.to_json`, by game code, hand, seats shown and samples."""

    async def load(self, code: str, hand: int, seats: str, samples: int) -> str | None:
        ...

    async def save(self, code: str, hand: int, seats: str, samples: int, text: str) -> None:
        ...


def seats_key(seats: frozenset[int] | None) -> str:
    """`all`, or the seats shown: `0`, `1,2`."""
    return "all" if seats is None else ",".join(map(str, sorted(seats)))


class Analyst:
    """Weighs the hands of saved games in the bot workers, one decision at a time behind
    the tables' computer players, and keeps the results (per game code, hand and the seats
    shown) for whoever opens the game next."""

    def __init__(self, pool: BotPool, *, samples: int = ANALYSIS_SAMPLES,
                 keep: int = CACHE_HANDS, store: AnalysisStore | None = None) -> None:
        self.pool = pool
        self.store = store
        self.samples = samples
        self.keep = keep
        self._done: OrderedDict[Key, HandAnalysis] = OrderedDict()
        self._running: dict[tuple[str, int, frozenset[int] | None],
                            asyncio.Task[HandAnalysis]] = {}
        self._listeners: dict[tuple[str, int, frozenset[int] | None], list[Progress]] = {}

    def cached(self, code: str, hand: int, seats: frozenset[int] | None) -> HandAnalysis | None:
        return self._done.get((code, hand, seats))

    async def hand(self, code: str, timeline: Timeline, hand: int,
                   progress: Progress | None = None) -> HandAnalysis:
        """The analysis of `hand` of the game `code`, as `timeline` may show it."""
        key = (code, hand, timeline.seats)
        done = self._done.get(key)
        if done is not None:
            self._done.move_to_end(key)
            return done
        if progress is not None:
            self._listeners.setdefault(key, []).append(progress)
        running = self._running.get(key)
        if running is None:
            tasks = tasks_of(timeline, hand, timeline.seats, self.samples)
            running = asyncio.get_running_loop().create_task(self._run(key, tasks))
            self._running[key] = running
        try:
            return await asyncio.shield(running)
        finally:
            if progress is not None and progress in self._listeners.get(key, []):
                self._listeners[key].remove(progress)

    async def _run(self, key: tuple[str, int, frozenset[int] | None],
                   tasks: list[DecisionTask]) -> HandAnalysis:
        try:
            kept = await self._load(key)
            if kept is not None:
                self._keep(key, kept)
                return kept
            decisions: list[Decision] = []
            for task in tasks:
                self._tell(key, len(decisions), len(tasks))
                if len(task.view.legal) < 2:
                    only = task.view.legal[0] if task.view.legal else task.chosen
                    decisions.append(Decision(task.index, task.view.seat or 0, task.chosen,
                                              (Option(only, None, None),)))
                    continue
                decisions.append(await self.pool.run_spare(task, TASK_TIMEOUT))
            self._tell(key, len(tasks), len(tasks))
            result = HandAnalysis(key[1], tuple(decisions))
            self._keep(key, result)
            await self._save(key, result)
            return result
        finally:
            del self._running[key]
            self._listeners.pop(key, None)

    def _keep(self, key: Key, result: HandAnalysis) -> None:
        self._done[key] = result
        while len(self._done) > self.keep:
            self._done.popitem(last=False)

    async def _load(self, key: Key) -> HandAnalysis | None:
        """The hand as the store kept it (None: not there, or the store failed: it is
        weighed again)."""
        if self.store is None:
            return None
        code, hand, seats = key
        try:
            text = await self.store.load(code, hand, seats_key(seats), self.samples)
            return None if text is None else HandAnalysis.from_json(json.loads(text))
        except Exception:
            log.exception("the analysis of game %s hand %d could not be read", code, hand)
            return None

    async def _save(self, key: Key, result: HandAnalysis) -> None:
        if self.store is None:
            return
        code, hand, seats = key
        try:
            await self.store.save(code, hand, seats_key(seats), self.samples,
                                  json.dumps(result.to_json(), allow_nan=False))
        except Exception:  # shown anyway; weighed again next time
            log.exception("the analysis of game %s hand %d could not be kept", code, hand)

    async def hint(self, view: SeatView) -> list[Choice]:
        """The expert's ranking of `view`'s legal actions (a practice table's `h`), in a
        bot worker behind the tables' computer players."""
        ranked: list[Choice] = await self.pool.run_spare(HintTask(view), TASK_TIMEOUT)
        return ranked

    def _tell(self, key: tuple[str, int, frozenset[int] | None], done: int, total: int) -> None:
        for listener in list(self._listeners.get(key, [])):
            listener(done, total)


__all__ = ["AnalysisStore", "Analyst", "Decision", "DecisionTask", "HandAnalysis", "Option",
           "double_dummy", "fair", "seats_key", "tasks_of"]
