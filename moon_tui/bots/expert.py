"""The `expert` level: perfect-information Monte Carlo (PIMC).

For each decision it deals the hidden tiles at random in every way consistent with what its
seat has seen (`Knowledge.sample`: tiles played, suits each seat failed to follow, the
declarer's widow and discard), solves each deal exactly with the double-dummy `Solver`, and
takes the action with the best average utility. Bids, the discard and the trump are chosen
by the same simulation, from the declarer's seat.

What "best" means: the solver gives the declarer's side its trick count under best play
(declarer maximising, the others minimising together). `utility` turns that count into
points as the table scores them, seen from the declarer's side: its own score minus what
its opponents score, so with three players a defender's own tricks also count against the
declarer. A defender takes the negative. A made moon that wins the game outright is worth
far more than any score.
"""

from __future__ import annotations

import logging
import math
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..rules import MOON, Action, Phase, Rules, SeatView, tile_set
from ..rules.actions import DISCARDS, PLAYS
from ..rules.tiles import mask_of
from . import heuristic
from .inference import plausibility, sample_consistent
from .knowledge import Knowledge, SampleError
from .solver import SearchTimeout, Solver, bits
from .strength import discard_for, expected_tricks

log = logging.getLogger(__name__)

DEFAULT_BUDGET = 1.0
#: Fraction of the budget used for thinking, the rest is margin for the caller.
BUDGET_SHARE = 0.85
#: Samples after which more would not change the decision much.
MAX_SAMPLES = 120
#: The trumps (or discards, each with its best trump) the simulation compares, the
#: heuristic's favourites first.
TRUMP_SHORTLIST = 3
#: Fewer solved deals than this and a bid falls back to the heuristic's.
MIN_BID_SAMPLES = 6
#: Tricks taken off the double-dummy count when judging a bid (measured: none needed).
DD_OPTIMISM = 0.0
#: The same with four players, where the sampled partner also plays double dummy: the
#: declaring team took 0.6-0.75 tricks fewer than its simulation promised (the real partner
#: does not see the hands). Measured with `PASS_SHARE_4` = 0, 30 deals x 2 seatings on
#: the same deals (seed 301, 8 samples), expert team minus heuristic team per hand:
#: 0.0 (and the old pass value) -1.53; 0.5: +0.27; 1.0: +0.48 (declared 24 of 60, made 20).
DD_OPTIMISM_4 = 1.0
#: With 4 players a moon needs this share of sampled deals solved at 7 tricks: the sampled
#: partner plays double dummy, the real one cannot. Measured without it: 22 of 102 team
#: moons made (3 players: 43 of 56); with it, 5 tries in 24 games.
TEAM_MOON_SHARE = 0.9
#: What passing is worth, per point of the contract someone else will likely hold: with
#: three players an opponent's contract costs; with four a partner's gains, an opponent's
#: costs. Measured, 3 players, expert vs two heuristic, 30 games on the same seeds
#: (--samples 16): 0.3 won 10 (1.79 points a hand), 0.6 won 13 (2.01): a bolder bidder;
#: 0.9 won 12 (another 30 games), no better. With the compiled solver and the seats yet to
#: speak modelled (`FOLLOWERS_3`), on the CPU budget of 1 s, 150 games on each of seeds 131
#: and 151: 0.6 won 88 + 84 = 172 of 300, 0.9 won 94 + 89 = 183 (the same way on both).
PASS_COST_3 = 0.9
#: With four players a contract is a gamble for the side that holds it: set, it loses the
#: bid and the other side scores its tricks (break-even near 73% made), and the heuristic
#: team makes about 63% against the expert. So passing is worth about nothing either way,
#: and the expert bids only when its own contract is worth more than nothing. Measured
#: with 0.5: the expert team declared 45 hands of 60 and made 24 (see `DD_OPTIMISM_4`).
#: Measured again, valuing only an opponent's contract (`bench/team_duel.py`, 400 deals
#: x 2 seatings, one hand each from 0-0, expert team minus normal team, points a hand):
#: seed 11, 0.0 +1.15, +0.25 +1.01 (the expert declared 222 hands of 800 instead of 296),
#: -0.25 +1.28, -0.25 with `DD_OPTIMISM_4` 0.5 +1.41; on seed 12, held out, that last pair
#: +0.90 against +1.20 for 0.0. When the normal team declares, the expert team nets about 0.
PASS_SHARE_4 = 0.0
#: With three players, the seats yet to speak are expected to bid as a club player does
#: (the `normal` level's rule, on their sampled hands): a bid they would outbid is worth
#: what passing is, and passing when nobody would bid deals the hand again. Measured,
#: expert in each seat of 100 deals (seed 401, 16 samples) against the `normal` level in
#: the same seat, points a hand (own minus the others' mean): off +0.33, on +0.68; the
#: hands where the expert lost the contract the heuristic in its seat would have taken
#: and made fell from 39 (-104 points) to 10 (-39): it bids the level that keeps it.
FOLLOWERS_3 = True
#: With four players, the opponents yet to speak are expected to bid as the `normal` level
#: does (the lowest bid their estimate affords, on their sampled hands; the partner is
#: taken to pass), and the contract an opponent ends with, by outbidding this seat or
#: holding it when this seat passes, is worth minus its utility on the sampled deal: its
#: double-dummy tricks with its best trump, less `RIVAL_OPTIMISM_4`. So the expert bids
#: the level that keeps the contract when that beats letting the opponents have it, and
#: lets them have a contract the samples say they will go down in. Measured
#: (`bench/team_duel.py --deals 400`, expert team minus normal team, points a hand;
#: before: seed 11 +1.15, seed 12 +1.20): an opponent's contract worth 0 (no solve),
#: seed 11 +1.17 (the expert declared 370 hands of 800, not 296, but netted -0.33 on the
#: normal team's); valued as here, seed 11 +1.63 (declared 419, made 346; +0.25 on the
#: normal team's 381), seed 12 +1.28 (declared 411; +0.08 on the normal team's 389).
#: Held out, `moon-arena --seats expert,heuristic --players 4 --games 200 --seed 3031
#: --jobs 2 --cpu-clock --budget 1.0`: the expert team won 142 of 200 (71.0%, 95% CI
#: 64.4-76.8%; 2.44 points a hand against 1.53, bids made 608 of 842, decision p99 850 ms),
#: where before it won 119 of 200 on seed 2027 and 122 on another held-out seed; on seed
#: 5051, 145 of 200 (72.5%, CI 65.9-78.2%; 2.64 points a hand against 1.48).
#: Also valuing a contract the partner holds (when this seat would outbid it) by its
#: utility on the sampled deal, instead of `PASS_SHARE_4` of it: seed 11 +1.63, no gain.
FOLLOWERS_4 = True
#: Tricks taken off an opponent's double-dummy count when valuing its contract: the normal
#: team, declaring against the expert defence, took 5.1 tricks a hand where the
#: double-dummy count was 6.15 (33 hands of seed 11).
RIVAL_OPTIMISM_4 = 1.0
#: Winning (or losing) the game with this hand, on the points scale of `utility`.
GAME_END = 10.0
#: Early stop: at least this many samples, and a lead of this many standard errors.
#: Half the four-player plays end with the two best equal on every sample (the tile with
#: the lowest index is played). Measured, the `normal` level's play among them instead
#: (`bench/team_duel.py`, 400 deals, seed 11): +1.64 points a hand against +1.63: no gain.
SETTLE_MIN = 12
SETTLE_Z = 3.0


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action as the expert sees it: `value` is the expected gain of the seat's
    side in points (the scale of `utility`), `tricks` the tricks the declarer's side is
    expected to end the hand with (for a bid: this seat's, as declarer); `samples` the
    sampled deals behind the figures."""

    action: Action
    value: float
    tricks: float
    samples: int = 0


def hand_points(rules: Rules, bid: int, tricks: float) -> tuple[float, float]:
    """(the declarer side's points, each other side's points) for `tricks` of 7; with
    three players the defenders are taken to share their tricks evenly."""
    need = 7 if bid == MOON else bid
    made = tricks >= need
    others = 7.0 - tricks
    if rules.players == 3:
        others /= 2.0
    if rules.scoring == "marks":
        return (1.0, 0.0) if made else (0.0, 1.0)
    if not made:
        return -float(bid), others
    if bid == MOON:
        return float(MOON), others
    if rules.players == 4 and rules.team_scoring == "tricks":
        return float(tricks), others
    return float(bid), others


def utility(rules: Rules, bid: int, tricks: float,
            scores: Sequence[int] | None = None, declarer: int | None = None) -> float:
    """The declarer side's gain from taking `tricks` of 7 with this bid: its points minus
    an opponent's. Given the scores before the hand, a hand that ends the game adds
    `GAME_END` for a win of the declarer's side, or takes it away for another side's."""
    own, other = hand_points(rules, bid, tricks)
    value = own - other
    made = tricks >= (7 if bid == MOON else bid)
    if bid == MOON and rules.moon_wins_game:
        # A made moon wins; a failed one costs 21 and nearly loses: tried at about even odds.
        return value + (GAME_END if made else -GAME_END / 2)
    if scores is None or declarer is None:
        return value
    dside = rules.side_of(declarer)
    after = [sc + (own if side == dside else other) for side, sc in enumerate(scores)]
    if made and rules.tie_break == "declarer" and after[dside] >= rules.target:
        return value + GAME_END
    top = max(after)
    if top >= rules.target and after.count(top) == 1:
        return value + (GAME_END if after.index(top) == dside else -GAME_END)
    return value


def _uniform(hands: list[int]) -> float:
    return 1.0


def settled(scores: dict[int, list[float]], samples: int) -> bool:
    """True when more samples would hardly change the choice: the leading move beats the
    runner-up on the same deals by a clear margin (or they have been equal every time)."""
    if samples < SETTLE_MIN or samples % 4 or len(scores) < 2:
        return False
    ranked = sorted(scores, key=lambda t: -sum(scores[t]))
    diffs = [a - b for a, b in zip(scores[ranked[0]], scores[ranked[1]], strict=True)]
    mean = sum(diffs) / samples
    var = sum((d - mean) ** 2 for d in diffs) / (samples - 1)
    if var == 0.0:
        return True
    return mean > SETTLE_Z * math.sqrt(var / samples)


def _holder(view: SeatView) -> int | None:
    """The seat holding the highest bid so far (None: nobody has bid)."""
    return next((s for s, a in reversed(view.bids) if a.bid is not None), None)


def pass_value(view: SeatView) -> float:
    """A rough worth of passing, on the scale of `utility`: usually someone else declares,
    and an opponent's contract is mostly made (so passing costs), a partner's is a gain."""
    assert view.seat is not None
    rules = view.rules
    high = view.high_bid
    if high == 0 and len(view.bids) == rules.players - 1:
        return 0.0  # everybody passes: the hand is dealt again
    holder = _holder(view)
    contract = float(max(high, rules.min_bid))
    if rules.scoring == "marks":
        contract = 1.0
    friendly = holder is not None and rules.side_of(holder) == rules.side_of(view.seat)
    if rules.players == 4:
        return PASS_SHARE_4 * contract if friendly else -PASS_SHARE_4 * contract
    return -PASS_COST_3 * contract


def _later_seats(view: SeatView) -> list[int]:
    """The seats that speak after this one in the auction."""
    assert view.seat is not None
    spoken = {s for s, _ in view.bids} | {view.seat}
    return [s for s in range(view.rules.players) if s not in spoken]


def expected_bid(hand: int, everything: int, trumps: list[int], rules: Rules) -> int:
    """The highest bid a club player would dare with `hand` (the `normal` level's rule:
    its expected tricks, over every tile the widow could be, plus its boldness)."""
    unseen = everything & ~hand
    players = rules.players
    if rules.has_widow:
        widows = bits(unseen)
        total = sum(heuristic.best_trump(hand | 1 << w, trumps, unseen & ~(1 << w), players)[1]
                    for w in widows)
        estimate = total / len(widows)
    else:
        estimate = heuristic.best_trump(hand, trumps, unseen, players)[1]
    return min(int(estimate + heuristic.BID_BOLDNESS), 7)


class _BidValues(ABC):
    """Each legal bid's worth on each sampled deal, as the deals come (`enough` hears the
    bidder's double-dummy tricks `t` as declarer and the sampled hands, and says when
    the choice is settled)."""

    def __init__(self, view: SeatView) -> None:
        assert view.seat is not None
        rules = view.rules
        self.view = view
        self.me = view.seat
        self.rules = rules
        self.bids = [a.bid for a in view.legal]
        self.scores: dict[int, list[float]] = {i: [] for i in range(len(self.bids))}
        self.everything = mask_of(tile_set(rules.set))
        self.trumps = heuristic.allowed_trumps(view)
        self.high = max(view.high_bid, 0)
        self.optimism = DD_OPTIMISM if rules.players == 3 else DD_OPTIMISM_4

    @abstractmethod
    def enough(self, t: int, hands: list[int]) -> bool:
        """Take one sampled deal; True once more deals would not change the choice."""

    def _declared(self, bid: int, t: int) -> float:
        """This seat's contract at `bid`, taking `t` tricks."""
        return utility(self.rules, bid, t - self.optimism, self.view.scores, self.me)

    def _add(self, row: Sequence[float]) -> bool:
        for i, value in enumerate(row):
            self.scores[i].append(value)
        return settled(self.scores, len(self.scores[0]))


class _ThreeSeatBids(_BidValues):
    """The seats yet to speak bid as the `normal` level would on their sampled hands
    (`FOLLOWERS_3`); a contract they take is worth what another's costs in `pass_value`."""

    def __init__(self, view: SeatView) -> None:
        super().__init__(view)
        self.passing = pass_value(view)
        self.later = _later_seats(view) if self.rules.players == 3 and FOLLOWERS_3 else []

    def enough(self, t: int, hands: list[int]) -> bool:
        rules, high, later = self.rules, self.high, self.later
        over = max((expected_bid(hands[s], self.everything, self.trumps, rules)
                    for s in later), default=0)
        if over < rules.min_bid:
            over = rules.min_bid if high == 0 and rules.all_pass == "force_last" else 0
        lost = -PASS_COST_3 * (1.0 if rules.scoring == "marks" else over)
        row: list[float] = []
        for bid in self.bids:
            if bid is None:
                if not later:
                    value = self.passing
                elif over <= high:
                    # Nobody after this seat outbids the contract held (or the hand is
                    # dealt again when nobody bid).
                    value = self.passing if high else 0.0
                else:
                    value = lost
            elif bid != MOON and over > bid:
                value = lost  # a later seat takes the contract
            else:
                value = self._declared(bid, t)
            row.append(value)
        return self._add(row)


class _FourSeatBids(_BidValues):
    """Who ends with the contract after each bid of this seat (`FOLLOWERS_4`): the
    opponents yet to speak bid as the `normal` level does (the lowest bid their estimate
    affords), the partner is taken to pass. An opponent's contract is worth the negative
    of its utility, on its double-dummy tricks on the deal with its best trump
    (`rival_tricks(hands, seat, trump)`), less `RIVAL_OPTIMISM_4`."""

    def __init__(self, view: SeatView,
                 rival_tricks: Callable[[list[int], int, int], int]) -> None:
        super().__init__(view)
        self.rival_tricks = rival_tricks
        self.holder = _holder(view)
        self.rivals = [s for s in _later_seats(view)
                       if self.rules.side_of(s) != self.rules.side_of(self.me)]

    def enough(self, t: int, hands: list[int]) -> bool:
        rules = self.rules
        targets = {s: expected_bid(hands[s], self.everything, self.trumps, rules)
                   for s in self.rivals}
        solved: dict[int, float] = {}

        def rival_value(seat: int, level: int) -> float:
            # Minus the worth of `seat`'s contract to its side.
            if seat not in solved:
                trump, _ = heuristic.best_trump(hands[seat], self.trumps,
                                                self.everything & ~hands[seat], rules.players)
                solved[seat] = self.rival_tricks(hands, seat, trump)
            return -utility(rules, level, solved[seat] - RIVAL_OPTIMISM_4, self.view.scores,
                            seat)

        def outcome(bid: int | None) -> float:
            # The final holder and level when this seat says `bid`.
            who, level = (self.me, bid) if bid is not None else (self.holder, self.high)
            if bid != MOON:
                for s in self.rivals:
                    need = max(rules.min_bid, level + 1)
                    if targets[s] >= need:
                        who, level = s, need
            if who is None:
                return 0.0
            if who == self.me:
                assert bid is not None
                return self._declared(bid, t)
            if rules.side_of(who) == rules.side_of(self.me):
                return PASS_SHARE_4 * level
            return rival_value(who, level)

        try:
            row = [outcome(bid) for bid in self.bids]
        except SearchTimeout:
            return True
        return self._add(row)


class ExpertBot:
    """PIMC over a double-dummy solver, within `time_budget` seconds per decision."""

    name = "expert"

    def __init__(self, time_budget: float | None = None, max_samples: int = MAX_SAMPLES,
                 fixed_samples: bool = False, infer: bool = True,
                 shortlist: int = TRUMP_SHORTLIST + 1,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.time_budget = DEFAULT_BUDGET if time_budget is None else time_budget
        self.max_samples = max_samples
        self.fixed_samples = fixed_samples
        """Take `max_samples` samples whatever the time: reproducible, for tests and arenas."""
        self.infer = infer
        self.shortlist = shortlist
        """Trumps (or discards) the declarer's simulation compares."""
        self.clock = clock
        """What the budget is measured on: wall time, or `time.process_time` for CPU time
        (an arena on a busy machine, where wall time would starve the search)."""
        """Read the auction into the samples (`inference`); off only to measure its worth."""
        self._solvers: dict[tuple[int, tuple[bool, ...]], Solver] = {}
        self._hand_key: tuple[int, int] = (-1, -1)

    def choose(self, view: SeatView, rng: random.Random, *,
               budget: float | None = None) -> Action:
        """The best action found within `budget` seconds (None: `time_budget`)."""
        if not view.legal:
            raise ValueError(f"seat {view.seat} has nothing to do: it is not its turn")
        if len(view.legal) == 1:
            return view.legal[0]
        ranked = self.evaluate(view, rng, budget=budget)
        if not ranked:
            return heuristic.HeuristicBot().choose(view, rng)
        return ranked[0].action

    def evaluate(self, view: SeatView, rng: random.Random, *,
                 budget: float | None = None) -> list[Choice]:
        """The legal actions of `view`, best first, with their expected worth, found
        within `budget` seconds (None: `time_budget`); empty when the simulation had no
        time for a single deal (the caller falls back)."""
        if not view.legal:
            raise ValueError(f"seat {view.seat} has nothing to do: it is not its turn")
        hand_key = (view.hand_number, len(view.results))
        if hand_key != self._hand_key:
            # Positions never repeat across hands: free the tables.
            self._solvers.clear()
            self._hand_key = hand_key
        seconds = self.time_budget if budget is None else budget
        deadline = math.inf if self.fixed_samples else self.clock() + seconds * BUDGET_SHARE
        phase = view.phase
        try:
            if phase is Phase.PLAY:
                return self._play(view, rng, deadline)
            if phase is Phase.BID:
                return self._bid(view, rng, deadline)
            if phase is Phase.DISCARD:
                return self._discard(view, rng, deadline)
            return self._trump(view, rng, deadline)
        except SampleError:
            log.warning("seat %s: no consistent deal, falling back to the heuristic", view.seat)
            return []

    # -- shared ---------------------------------------------------------------------------
    def _plausibility(self, view: SeatView) -> Callable[[list[int]], float]:
        return plausibility(view) if self.infer else _uniform

    def _solver(self, trump: int, side: tuple[bool, ...], deadline: float) -> Solver:
        solver = self._solvers.get((trump, side))
        if solver is None:
            if len(self._solvers) > 24:
                self._solvers.clear()
            solver = self._solvers[(trump, side)] = Solver(trump, len(side), side)
        solver.deadline = None if math.isinf(deadline) else deadline
        solver.clock = self.clock
        return solver

    @staticmethod
    def _side(rules: Rules, declarer: int) -> tuple[bool, ...]:
        return tuple(rules.side_of(s) == rules.side_of(declarer) for s in range(rules.players))

    # -- play -----------------------------------------------------------------------------
    def _play(self, view: SeatView, rng: random.Random, deadline: float) -> list[Choice]:
        assert view.seat is not None and view.trump is not None and view.declarer is not None
        assert view.bid is not None
        rules = view.rules
        know = Knowledge.of(view)
        weight = self._plausibility(view)
        side = self._side(rules, view.declarer)
        solver = self._solver(view.trump, side, deadline)
        trick = view.current_trick
        plays = [] if trick is None else [t.index for _, t in trick.plays]
        leader = view.seat if trick is None or not plays else trick.leader
        taken = sum(w for s, w in enumerate(view.tricks_won) if side[s])
        sign = 1.0 if side[view.seat] else -1.0
        legal = [a.tile.index for a in view.legal if a.tile is not None]
        scores: dict[int, list[float]] = {t: [] for t in legal}
        tricks = dict.fromkeys(legal, 0.0)
        samples = 0
        while samples < self.max_samples:
            hands, _ = sample_consistent(know, rng, weight)
            try:
                values = solver.move_values(hands, leader, plays)
            except SearchTimeout:
                break
            samples += 1
            for tile, v in values.items():
                scores[tile].append(sign * utility(rules, view.bid, taken + v, view.scores,
                                                           view.declarer))
                tricks[tile] += v
            if self.clock() > deadline or settled(scores, samples):
                break
        if samples == 0:
            return []
        ranked = sorted(legal, key=lambda t: (-sum(scores[t]), -sign * tricks[t], t))
        return [Choice(PLAYS[t], sum(scores[t]) / samples, taken + tricks[t] / samples, samples)
                for t in ranked]

    # -- the declarer's choices, by simulation -------------------------------------------
    def _simulate(self, view: SeatView, rng: random.Random, deadline: float,
                  options: Sequence[tuple[int, int]],
                  widow_joins: bool) -> tuple[list[list[float]], int]:
        """Tricks this seat takes as declarer for each (hand mask, trump) option, on the
        same sampled deals; `widow_joins`: the sampled widow is added to the hand and the
        weakest tile discarded (the bid phase). Returns per-option trick lists."""
        assert view.seat is not None
        rules = view.rules
        know = Knowledge.of(view)
        weight = self._plausibility(view)
        side = self._side(rules, view.seat)
        unseen = heuristic.unseen_mask(view)
        results: list[list[float]] = [[] for _ in options]
        samples = 0
        while samples < self.max_samples and self.clock() < deadline:
            hands, out = sample_consistent(know, rng, weight)
            row = []
            try:
                for hand, trump in options:
                    if widow_joins and out:
                        full = hand | out
                        hand = full & ~(1 << discard_for(full, trump, unseen & ~full))
                    hands[view.seat] = hand
                    solver = self._solver(trump, side, deadline)
                    row.append(float(solver.solve(hands, view.seat)))
            except SearchTimeout:
                break
            for i, v in enumerate(row):
                results[i].append(v)
            samples += 1
        return results, samples

    def _bid(self, view: SeatView, rng: random.Random, deadline: float) -> list[Choice]:
        rules = view.rules
        values: _BidValues
        if rules.players == 4 and FOLLOWERS_4:
            def rival_tricks(hands: list[int], seat: int, trump: int) -> int:
                return self._solver(trump, self._side(rules, seat), deadline).solve(hands, seat)

            values = _FourSeatBids(view, rival_tricks)
        else:
            values = _ThreeSeatBids(view)
        tricks = self._declarer_tricks(view, rng, deadline, values.enough)
        scores = values.scores
        if len(tricks) < MIN_BID_SAMPLES or not scores[0]:
            return []
        mean = sum(tricks) / len(tricks)
        all_seven = sum(1 for t in tricks if t >= 7) / len(tricks)
        ranked: list[tuple[bool, float, Choice]] = []
        for i, action in enumerate(view.legal):
            value = sum(scores[i]) / len(scores[i])
            # A team moon the samples do not all but guarantee is never advised.
            advised = not (action.bid == MOON and rules.players == 4
                           and all_seven < TEAM_MOON_SHARE)
            ranked.append((advised, value, Choice(action, value, mean, len(tricks))))
        ranked.sort(key=lambda r: (not r[0], -r[1], r[2].action.code))
        return [c for _, _, c in ranked]

    def _declarer_tricks(self, view: SeatView, rng: random.Random, deadline: float,
                         enough: Callable[[int, list[int]], bool] | None = None) -> list[int]:
        """Tricks this seat would take as declarer on sampled deals, one solve per deal.

        On each deal the seat takes the sampled widow, then discards and names trump as
        the heuristic would from its own eight tiles (it cannot see the others' hands when
        it chooses), so the trick counts are those of a choice it could really make.
        `enough` hears each count (with the sampled hands) and stops the sampling when it
        says the choice is clear.
        """
        assert view.seat is not None
        rules = view.rules
        know = Knowledge.of(view)
        weight = self._plausibility(view)
        side = self._side(rules, view.seat)
        hand = mask_of(view.hand)
        unseen = heuristic.unseen_mask(view)
        trumps = heuristic.allowed_trumps(view)
        tricks: list[int] = []
        plain_trump: int | None = None
        while len(tricks) < self.max_samples and self.clock() < deadline:
            hands, out = sample_consistent(know, rng, weight)
            mine = hand
            if out and rules.has_widow:
                full = hand | out
                trump, _ = heuristic.best_trump(full, trumps, unseen & ~out, rules.players)
                mine = full & ~(1 << discard_for(full, trump, unseen & ~out))
            else:
                if plain_trump is None:
                    plain_trump, _ = heuristic.best_trump(hand, trumps, unseen, rules.players)
                trump = plain_trump
            hands[view.seat] = mine
            try:
                t = self._solver(trump, side, deadline).solve(hands, view.seat)
            except SearchTimeout:
                break
            tricks.append(t)
            if enough is not None and enough(t, hands):
                break
        return tricks

    def _trump(self, view: SeatView, rng: random.Random, deadline: float) -> list[Choice]:
        assert view.bid is not None
        hand = mask_of(view.hand)
        unseen = heuristic.unseen_mask(view)
        rules = view.rules
        legal = [a.trump for a in view.legal if a.trump is not None]
        keep = min(hand.bit_count(), 7)
        ranked = sorted(legal, key=lambda t: -expected_tricks(
            hand, t, unseen, rules.players, keep))[:self.shortlist]
        widow_joins = rules.has_widow and not view.widow_taken
        options = [(hand, t) for t in ranked]
        results, samples = self._simulate(view, rng, deadline, options, widow_joins)
        if samples == 0:
            return []
        return _ranked([Action.make_trump(t) for t in ranked], results, view)

    def _discard(self, view: SeatView, rng: random.Random, deadline: float) -> list[Choice]:
        assert view.bid is not None
        hand = mask_of(view.hand)
        unseen = heuristic.unseen_mask(view)
        rules = view.rules
        trumps = [view.trump] if view.trump is not None else heuristic.allowed_trumps(view)
        pairs = []
        for d in bits(hand):
            # Each discard with the trump it suits best: the list names distinct discards.
            rest = hand & ~(1 << d)
            pairs.append(max((expected_tricks(rest, t, unseen, rules.players), rest, t, d)
                             for t in trumps))
        pairs.sort(key=lambda p: -p[0])
        shortlist = pairs[:self.shortlist]
        options = [(rest, t) for _, rest, t, _ in shortlist]
        results, samples = self._simulate(view, rng, deadline, options, False)
        if samples == 0:
            return []
        return _ranked([DISCARDS[d] for *_, d in shortlist], results, view)


def _ranked(actions: Sequence[Action], results: Sequence[Sequence[float]],
            view: SeatView) -> list[Choice]:
    """The declarer's options by their average utility over the same sampled deals (ties:
    the heuristic's order, which `actions` is in)."""
    assert view.bid is not None
    choices = []
    for action, r in zip(actions, results, strict=True):
        value = sum(utility(view.rules, view.bid, t, view.scores, view.declarer)
                    for t in r) / len(r)
        choices.append(Choice(action, value, sum(r) / len(r), len(r)))
    order = sorted(range(len(choices)), key=lambda i: (-choices[i].value, i))
    return [choices[i] for i in order]


__all__ = ["Choice", "ExpertBot", "utility"]
