"""The game state: whose turn it is, the legal actions, applying them, the end of the game.

The contract (after OpenSpiel): `current_player()`, `legal_actions()` (sorted by code),
`apply_action(a)`, `is_terminal()` / `outcome()`, and `view(seat)` for what one seat may
know. The deal is an explicit chance step (`deal(rng)` or `deal_tiles(...)`), so a game
replays exactly from its record.

Inside, tiles are ints 0..27 and hands are bitmasks; every suit and rank question is a
lookup in the tables of `tiles.py`. During play the state keeps the mask of the tiles the
seat to move may play (`_allowed`), so `legal_actions` and `apply_action` are one lookup.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import (
    BIDS,
    DISCARD_BASE,
    DISCARDS,
    PASS,
    PASS_CODE,
    PLAY_BASE,
    PLAYS,
    TRUMP_BASE,
    TRUMPS,
    Action,
)
from .illegal import Breach, IllegalActionError, RuleBroken
from .options import MOON, Rules
from .scoring import score_hand
from .tiles import (
    FOLLOW,
    LEAD_SUIT,
    SUIT_TRUMP,
    TILES,
    TRUMP_NAMES,
    WIN_RANK,
    SetName,
    Tile,
    mask_of,
    tile_set,
    tiles_of,
)
from .view import HandResult, Outcome, Phase, SeatView, Termination, Trick

CHANCE: Final = -1
"""`current_player()` while the next hand must be dealt."""
TERMINAL: Final = -2
"""`current_player()` once the game is over."""

HAND_SIZE: Final = 7

_DEAL: Final = Phase.DEAL
_BID: Final = Phase.BID
_DISCARD: Final = Phase.DISCARD
_TRUMP: Final = Phase.TRUMP
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER


def _mask_actions(table: tuple[Action, ...], offset: int, bits: int) -> list[tuple[Action, ...]]:
    """For every `bits`-bit mask, the actions of its set bits in ascending order."""
    out: list[tuple[Action, ...]] = [()] * (1 << bits)
    for m in range(1, 1 << bits):
        low = (m & -m).bit_length() - 1
        out[m] = (table[offset + low],) + out[m & (m - 1)]
    return out


# Two 14-bit halves of a 28-tile mask: the actions of any mask are one concatenation.
_PLAY_LO: Final = _mask_actions(PLAYS, 0, 14)
_PLAY_HI: Final = _mask_actions(PLAYS, 14, 14)
_DISCARD_LO: Final = _mask_actions(DISCARDS, 0, 14)
_DISCARD_HI: Final = _mask_actions(DISCARDS, 14, 14)
_LOW14: Final = (1 << 14) - 1


@functools.cache
def _set_indexes(name: SetName) -> tuple[int, ...]:
    return tuple(t.index for t in tile_set(name))


@functools.cache
def _set_mask(name: SetName) -> int:
    return mask_of(tile_set(name))


@functools.cache
def _bid_actions(low: int, may_pass: bool) -> tuple[Action, ...]:
    """The legal bids when the lowest allowed bid is `low` (moon always allowed)."""
    return ((PASS,) if may_pass else ()) + tuple(BIDS[b] for b in range(low, 8)) + (BIDS[MOON],)


@functools.cache
def _shuffle_steps(length: int) -> tuple[tuple[int, int, int], ...]:
    """(position, positions to draw from, bits to draw) for each step of a shuffle."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(length - 1, 0, -1))


def shuffled(items: Sequence[int], rng: random.Random) -> list[int]:
    """A Fisher-Yates shuffle drawing from `rng.getrandbits`.

    For a plain `random.Random` it gives exactly `rng.shuffle`'s order, in about half the
    time (the deal is a sizeable part of a random hand).
    """
    out = list(items)
    getrandbits = rng.getrandbits
    for i, n, k in _shuffle_steps(len(out)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        out[i], out[j] = out[j], out[i]
    return out


_BIT: Final = tuple(1 << i for i in range(28))

_KIND_OF_PHASE: Final[dict[Phase, tuple[str, ...]]] = {
    _BID: ("pass", "bid"), _DISCARD: ("discard",), _TRUMP: ("trump",), _PLAY: ("play",),
}
"""The kinds of action each phase of a hand calls for."""


@dataclass(slots=True)
class HandLog:
    """The decisions of one hand, as the `moon/1` record stores them."""

    deal_masks: tuple[int, ...]
    widow: Tile | None
    bids: list[int | str] = field(default_factory=list)
    discard: Tile | None = None
    trump: int | None = None
    plays: list[int] = field(default_factory=list)
    """Tile indexes in the order played (shared with the live state: read, don't write)."""

    def played_tiles(self) -> list[Tile]:
        return [TILES[i] for i in self.plays]

    @property
    def deal(self) -> tuple[tuple[Tile, ...], ...]:
        """Each seat's seven tiles, highest first."""
        return tuple(tiles_of(m) for m in self.deal_masks)


class GameState:
    """A whole game of Moon: hands one after another until a side wins."""

    def __init__(self, rules: Rules | None = None, first_bidder: int = 0) -> None:
        self.rules: Final = rules if rules is not None else Rules.make()
        n = self.rules.players
        if isinstance(first_bidder, bool) or not isinstance(first_bidder, int) \
                or not 0 <= first_bidder < n:
            raise ValueError(f"first bidder must be a seat 0..{n - 1}, not {first_bidder!r}")
        self.players: Final = n
        self.game_first_bidder: Final = first_bidder
        self._next = tuple((s + 1) % n for s in range(n))
        self._set = _set_indexes(self.rules.set)
        self._has_widow = self.rules.has_widow
        min_bid = self.rules.min_bid
        self._force_last = self.rules.all_pass == "force_last"
        #: The legal bids by the highest bid so far (0 = none), and when passing is barred.
        self._bid_choices = tuple(_bid_actions(max(min_bid, high + 1), True)
                                  for high in range(8))
        self._bid_codes = tuple(frozenset(a.code for a in bids) for bids in self._bid_choices)
        self._forced_bids = _bid_actions(min_bid, False)
        self._scores = [0] * self.rules.sides
        self._results: list[HandResult] = []
        self._last_result: HandResult | None = None
        self.logs: list[HandLog] = []
        self._hands_cleared = 0
        """Hands whose logs and results `clear_history` let go (they still count)."""
        self._outcome: Outcome | None = None
        self._first_bidder = first_bidder
        self._phase = _DEAL
        self._to_move = CHANCE
        self._reset_hand()

    @classmethod
    def new_game(cls, rules: Rules | None = None, rng: random.Random | None = None) -> GameState:
        """A new game: the first bidder drawn at random and the first hand dealt."""
        rng = rng if rng is not None else random.Random()
        rules = rules if rules is not None else Rules.make()
        state = cls(rules, rng.randrange(rules.players))
        state.deal(rng)
        return state

    @classmethod
    def resumed(cls, rules: Rules, first_bidder: int, hand_number: int,
                scores: Sequence[int], results: Sequence[HandResult]) -> GameState:
        """A game whose earlier hands are known only by their results, as a seat's view
        shows a game under way: the next deal is hand `hand_number` (its first bidder
        `first_bidder`) and the sides have `scores`. For foreseeing a seat's own move
        (`foresight.py`), which needs the rules to go on from there, not the earlier deals.
        """
        if len(scores) != rules.sides:
            raise ValueError(f"{len(scores)} scores for {rules.sides} sides")
        if hand_number < 0:
            raise ValueError(f"hand number {hand_number} is below 0")
        state = cls(rules, first_bidder)
        state._scores = list(scores)
        state._results = list(results)
        state._last_result = results[-1] if results else None
        state._hands_cleared = hand_number
        return state

    def clone(self) -> GameState:
        """An independent copy (for search): actions applied to it leave this state alone."""
        other = copy.copy(self)
        other._hands = list(self._hands)
        other._bids = list(self._bids)
        other._plays = list(self._plays)
        other._winners = list(self._winners)
        other._tricks_won = list(self._tricks_won)
        other._scores = list(self._scores)
        other._results = list(self._results)
        other.logs = [dataclasses.replace(log, bids=list(log.bids), plays=list(log.plays))
                      for log in self.logs]
        if other.logs:
            other.logs[-1].plays = other._plays
        return other

    def _reset_hand(self) -> None:
        n = self.players
        self._hands = [0] * n
        self._widow = -1
        self._widow_taken = False
        self._discard = -1
        self._bids: list[tuple[int, Action]] = []
        self._high = 0
        self._declarer = -1
        self._trump = -1
        self._plays: list[int] = []
        self._count = 0
        self._leader = -1
        self._led = -1
        self._allowed = 0
        self._follow = 0
        self._best_seat = -1
        self._best_rank = -1
        self._ranks: tuple[int, ...] = ()
        # The tables of the trump in play (set when the play starts).
        self._lead_table: tuple[int, ...] = ()
        self._rank_table: tuple[tuple[int, ...], ...] = ()
        self._follow_table: tuple[int, ...] = ()
        self._winners: list[int] = []
        """The winner of each completed trick; the tiles are `_plays` in runs of n."""
        self._tricks_won = [0] * n

    # -- reading the state ---------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    def current_player(self) -> int:
        """The seat to act, or `CHANCE` (deal next) or `TERMINAL`."""
        return self._to_move

    @property
    def hand_number(self) -> int:
        """The number of the hand in play (0-based); counts redeals too."""
        return max(self._hands_cleared + len(self.logs) - 1, 0)

    @property
    def first_bidder(self) -> int:
        """The first bidder of the hand in play, or of the next hand between hands."""
        return self._first_bidder

    @property
    def declarer(self) -> int | None:
        return None if self._declarer < 0 else self._declarer

    @property
    def bid(self) -> int | None:
        """The declarer's bid (the highest so far during the auction), None before any."""
        return self._high if self._high else None

    @property
    def trump(self) -> int | None:
        return None if self._trump < 0 else self._trump

    @property
    def bids(self) -> tuple[tuple[int, Action], ...]:
        """(seat, pass or bid) in the order spoken in the hand in play (or just ended)."""
        return tuple(self._bids)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    @property
    def results(self) -> tuple[HandResult, ...]:
        """The result of every finished hand (since `clear_history`, if it was called)."""
        return tuple(self._results)

    @property
    def last_result(self) -> HandResult | None:
        """The result of the last hand finished (`results[-1]` without copying them all)."""
        return self._last_result

    def clear_history(self) -> None:
        """Let go of the logs and results of the hands that are over, as python-chess's
        `Board.clear_stack` does: the game goes on exactly as before (scores, hand numbers,
        whose turn, `last_result`), but `logs` and `results` now start at the hand in play.

        A replay of 250,000 hands kept every one of them (a gigabyte) to print the last.
        """
        keep = 1 if self._phase in (_BID, _DISCARD, _TRUMP, _PLAY) else 0
        cleared = len(self.logs) - keep
        self._hands_cleared += cleared
        del self.logs[:cleared]
        self._results.clear()

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """Tricks taken per seat in the hand in play (or the hand just ended)."""
        return tuple(self._tricks_won)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks of the hand in play (or of the hand just ended)."""
        n = self.players
        plays = self._plays
        leader = self._declarer
        out = []
        for i, winner in enumerate(self._winners):
            tiles = plays[i * n:(i + 1) * n]
            out.append(self._make_trick(leader, tiles, self._lead_table[tiles[0]], winner,
                                        winner))
            leader = winner
        return tuple(out)

    @property
    def current_trick(self) -> Trick | None:
        """The open trick (possibly empty during play), None outside of play."""
        if self._phase is not _PLAY:
            return None
        if not self._count:
            return Trick(self._leader, ())
        return self._make_trick(self._leader, self._plays[len(self._plays) - self._count:],
                                self._led, self._best_seat, None)

    def outcome(self) -> Outcome | None:
        """The winner and why, once the game is over; the one source of truth for the end."""
        return self._outcome

    def is_terminal(self) -> bool:
        return self._outcome is not None

    def hand_of(self, seat: int) -> tuple[Tile, ...]:
        """The tiles a seat holds now (full information: not for a player's screen)."""
        return tiles_of(self._hands[seat])

    # -- the deal (chance) ---------------------------------------------------------------
    def _check_can_deal(self) -> None:
        if self._phase is not _DEAL:
            raise IllegalActionError(Breach(RuleBroken.DEAL_NOT_DUE, phase=self._phase))

    def deal(self, rng: random.Random) -> None:
        """Shuffle and deal the next hand."""
        self._check_can_deal()
        tiles = shuffled(self._set, rng)
        bit = _BIT
        masks = []
        for start in range(0, self.players * HAND_SIZE, HAND_SIZE):
            a, b, c, d, e, f, g = tiles[start:start + HAND_SIZE]
            masks.append(bit[a] | bit[b] | bit[c] | bit[d] | bit[e] | bit[f] | bit[g])
        self._start_hand(masks, tiles[-1] if self._has_widow else -1)

    def deal_tiles(self, hands: Sequence[Sequence[Tile]], widow: Tile | None = None) -> None:
        """Deal these exact tiles (a replay or a scripted test); checks the deal is whole."""
        self._check_can_deal()
        n = self.players
        tile_set = self.rules.set

        def bad(rule: RuleBroken, **facts: Any) -> IllegalActionError:
            return IllegalActionError(Breach(rule, **facts))

        if len(hands) != n:
            raise bad(RuleBroken.DEAL_HAND_COUNT, limit=n, count=len(hands))
        masks = []
        seen = 0
        for seat, hand in enumerate(hands):
            if len(hand) != HAND_SIZE:
                raise bad(RuleBroken.DEAL_HAND_SIZE, seat=seat, limit=HAND_SIZE,
                          count=len(hand))
            mask = 0
            for t in hand:
                if (mask | seen) >> t.index & 1:
                    raise bad(RuleBroken.DEAL_TILE_TWICE, seat=seat, tile=t)
                if not _set_mask(tile_set) >> t.index & 1:
                    raise bad(RuleBroken.DEAL_TILE_NOT_IN_SET, seat=seat, tile=t,
                              tile_set=tile_set)
                mask |= 1 << t.index
            masks.append(mask)
            seen |= mask
        if self._has_widow:
            if widow is None:
                raise bad(RuleBroken.DEAL_WIDOW_MISSING, tile_set=tile_set)
            if seen >> widow.index & 1:
                raise bad(RuleBroken.DEAL_TILE_TWICE, tile=widow)
            if not _set_mask(tile_set) >> widow.index & 1:
                raise bad(RuleBroken.DEAL_TILE_NOT_IN_SET, tile=widow, tile_set=tile_set)
        elif widow is not None:
            raise bad(RuleBroken.DEAL_WIDOW_UNEXPECTED, tile_set=tile_set)
        self._start_hand(masks, -1 if widow is None else widow.index)

    def _start_hand(self, masks: list[int], widow: int) -> None:
        self._reset_hand()
        self._hands = masks
        self._widow = widow
        self.logs.append(HandLog(tuple(masks), None if widow < 0 else TILES[widow],
                                 plays=self._plays))
        self._phase = _BID
        self._to_move = self._first_bidder

    # -- legal actions -------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """Every action the seat to move may take, sorted by code; empty at chance/terminal."""
        phase = self._phase
        if phase is _PLAY:
            m = self._allowed
            return [*_PLAY_LO[m & _LOW14], *_PLAY_HI[m >> 14]]
        if phase is _BID:
            if self._force_last and self._must_bid():
                return list(self._forced_bids)
            return list(self._bid_choices[self._high])
        if phase is _DISCARD:
            m = self._hands[self._to_move]
            return [*_DISCARD_LO[m & _LOW14], *_DISCARD_HI[m >> 14]]
        if phase is _TRUMP:
            return [TRUMPS[trump] for trump in self.rules.trumps]
        return []

    def is_legal(self, action: Action) -> bool:
        return self.breach(action) is None

    def _must_bid(self) -> bool:
        """`all_pass = force_last`: the last seat to speak may not pass if all others did."""
        return (self.rules.all_pass == "force_last" and len(self._bids) == self.players - 1
                and self._high == 0)

    def breach(self, action: Action) -> Breach | None:
        """The rule `action` would break now, with its facts; None when it is legal."""
        phase = self._phase
        if phase is _OVER:
            return Breach(RuleBroken.GAME_OVER)
        if phase is _DEAL:
            return Breach(RuleBroken.NOT_DEALT)
        seat = self._to_move
        kind = action.kind
        wanted = _KIND_OF_PHASE[phase]
        if kind not in wanted:
            return Breach(RuleBroken.WRONG_ACTION, seat=seat, phase=phase, kind=kind)
        if phase is _PLAY or phase is _DISCARD:
            tile = action.tile
            assert tile is not None
            bit = 1 << tile.index
            if not self._hands[seat] & bit:
                return Breach(RuleBroken.NOT_IN_HAND, seat=seat, kind=kind, tile=tile)
            if phase is _PLAY and not self._allowed & bit:
                return Breach(RuleBroken.MUST_FOLLOW, seat=seat, suit=self._led,
                              held=tiles_of(self._allowed))
            return None
        if phase is _BID:
            amount = action.bid
            if amount is None:
                return Breach(RuleBroken.MUST_BID, seat=seat) if self._must_bid() else None
            if amount != MOON and amount < self.rules.min_bid:
                return Breach(RuleBroken.BID_TOO_LOW, seat=seat, bid=amount,
                              limit=self.rules.min_bid)
            if amount <= self._high:
                return Breach(RuleBroken.BID_NOT_HIGHER, seat=seat, bid=amount,
                              limit=self._high)
            return None
        if action.trump not in self.rules.trumps:
            return Breach(RuleBroken.TRUMP_NOT_ALLOWED, seat=seat, trump=action.trump)
        return None

    # -- applying actions ----------------------------------------------------------------
    def apply_action(self, action: Action) -> None:
        """Apply the action of the seat to move; `IllegalActionError` names the broken rule."""
        code = action.code
        if code >= PLAY_BASE and self._phase is _PLAY and \
                self._allowed >> (code - PLAY_BASE) & 1:
            # The inner loop of every bot: a legal play, checked by one bit test and
            # applied inline (this is `_play`, unrolled for speed).
            index = code - PLAY_BASE
            seat = self._to_move
            hands = self._hands
            hands[seat] ^= 1 << index
            self._plays.append(index)
            count = self._count + 1
            if count == 1:
                led = self._led = self._lead_table[index]
                ranks = self._ranks = self._rank_table[led]
                self._follow = self._follow_table[led]
                self._best_rank = ranks[index]
                self._best_seat = seat
            else:
                rank = self._ranks[index]
                if rank > self._best_rank:
                    self._best_rank = rank
                    self._best_seat = seat
                if count == self.players:
                    self._end_trick()
                    return
            self._count = count
            nxt = self._to_move = self._next[seat]
            hand = hands[nxt]
            self._allowed = (hand & self._follow) or hand
            return
        if self._phase is _BID and code in self._bid_codes[self._high] and \
                (code != PASS_CODE or not self._must_bid()):
            self._bid(self._to_move, action)
            return
        breach = self.breach(action)
        if breach is not None:
            raise IllegalActionError(breach, action=action)
        assert code < PLAY_BASE, "every legal play takes the path above"
        if code >= TRUMP_BASE:
            self._name_trump(code - TRUMP_BASE)
        elif code >= DISCARD_BASE:
            self._discard_tile(code - DISCARD_BASE)
        else:
            self._bid(self._to_move, action)

    def _bid(self, seat: int, action: Action) -> None:
        self._bids.append((seat, action))
        self.logs[-1].bids.append("pass" if action.bid is None else action.bid)
        if action.bid is not None:
            self._high = action.bid
            self._declarer = seat
        if action.bid == MOON or len(self._bids) == self.players:
            self._end_auction()
        else:
            self._to_move = self._next[seat]

    def _end_auction(self) -> None:
        if self._declarer < 0:
            self._finish_hand()
            return
        self._to_move = self._declarer
        if self._has_widow and not self.rules.trump_before_widow:
            self._take_widow()
        else:
            self._phase = _TRUMP

    def _take_widow(self) -> None:
        self._hands[self._declarer] |= 1 << self._widow
        self._widow_taken = True
        self._phase = _DISCARD

    def _discard_tile(self, index: int) -> None:
        self._hands[self._declarer] &= ~(1 << index)
        self._discard = index
        self.logs[-1].discard = TILES[index]
        if self._trump >= 0:
            self._start_play()
        else:
            self._phase = _TRUMP

    def _name_trump(self, trump: int) -> None:
        self._trump = trump
        self.logs[-1].trump = trump
        if self._has_widow and not self._widow_taken:
            self._take_widow()
        else:
            self._start_play()

    def _start_play(self) -> None:
        self._phase = _PLAY
        self._leader = self._to_move = self._declarer
        self._allowed = self._hands[self._declarer]
        self._lead_table = LEAD_SUIT[self._trump]
        self._rank_table = WIN_RANK[self._trump]
        self._follow_table = FOLLOW[self._trump]

    def _end_trick(self) -> None:
        winner = self._best_seat
        self._count = 0
        self._tricks_won[winner] += 1
        self._winners.append(winner)
        self._leader = self._to_move = winner
        if len(self._winners) == HAND_SIZE:
            self._allowed = 0
            self._finish_hand()
        else:
            self._allowed = self._hands[winner]

    # -- scoring and the end -------------------------------------------------------------
    def _finish_hand(self) -> None:
        rules = self.rules
        sides = rules.sides
        points = [0] * sides
        declarer = self.declarer
        made: bool | None = None
        if declarer is not None:
            made, points = score_hand(rules, declarer, self._high, self._tricks_won)
            for side in range(sides):
                self._scores[side] += points[side]
        self._last_result = HandResult(
            number=self._hands_cleared + len(self.logs) - 1,
            first_bidder=self._first_bidder,
            bids=tuple(self._bids),
            declarer=declarer,
            bid=self._high if declarer is not None else None,
            trump=self.trump,
            tricks_won=tuple(self._tricks_won),
            made=made,
            points=tuple(points),
            scores=tuple(self._scores),
        )
        self._results.append(self._last_result)
        if declarer is not None:
            self._outcome = self._decide_winner(rules.side_of(declarer), bool(made))
        self._first_bidder = self._next[self._first_bidder]
        if self._outcome is not None:
            self._phase = _OVER
            self._to_move = TERMINAL
        else:
            self._phase = _DEAL
            self._to_move = CHANCE

    def _decide_winner(self, dside: int, made: bool) -> Outcome | None:
        rules = self.rules
        if made and self._high == MOON and rules.moon_wins_game:
            return Outcome(dside, Termination.MOON)
        scores = self._scores
        if made and rules.tie_break == "declarer" and scores[dside] >= rules.target:
            return Outcome(dside, Termination.TIE_BREAK)
        top = max(scores)
        if top >= rules.target and scores.count(top) == 1:
            return Outcome(scores.index(top), Termination.TARGET)
        return None

    # -- views -----------------------------------------------------------------------------
    def view(self, seat: int | None) -> SeatView:
        """What `seat` may know now (RULES.md section 11); `None` for a spectator."""
        if seat is not None and (isinstance(seat, bool) or not 0 <= seat < self.players):
            raise ValueError(f"no seat {seat!r} at a {self.players}-player table")
        is_declarer = seat is not None and seat == self._declarer
        to_move = self._to_move if self._to_move >= 0 else None
        in_hand = self._phase in (_BID, _DISCARD, _TRUMP, _PLAY)
        return SeatView(
            rules=self.rules,
            seat=seat,
            phase=self._phase,
            hand_number=self.hand_number,
            first_bidder=self._first_bidder if in_hand or self._last_result is None
            else self._last_result.first_bidder,
            to_move=to_move,
            hand=tiles_of(self._hands[seat]) if seat is not None else (),
            hand_sizes=tuple(h.bit_count() for h in self._hands),
            bids=tuple(self._bids),
            declarer=self.declarer,
            bid=self._high if self._declarer >= 0 else None,
            trump=self.trump,
            widow_taken=self._widow_taken,
            widow=TILES[self._widow] if is_declarer and self._widow_taken else None,
            discard=TILES[self._discard] if self._discard >= 0 and (
                is_declarer or self.rules.discard_shown) else None,
            tricks=self.tricks,
            current_trick=self.current_trick,
            tricks_won=tuple(self._tricks_won),
            scores=tuple(self._scores),
            results=tuple(self._results),
            legal=tuple(self.legal_actions()) if seat is not None and seat == to_move else (),
            outcome=self._outcome,
        )

    def _make_trick(self, leader: int, tiles: Sequence[int], led: int, winning: int,
                    winner: int | None) -> Trick:
        n = self.players
        return Trick(leader, tuple(((leader + i) % n, TILES[t]) for i, t in enumerate(tiles)),
                     winner, led, winning)

    def spectator_view(self) -> SeatView:
        return self.view(None)

    def describe(self) -> str:
        """One line for logs: phase, hand number, whose turn."""
        trump = "" if self._trump < 0 else f", trump {TRUMP_NAMES[self._trump]}"
        return (f"hand {self.hand_number} {self._phase.value}, to move {self._to_move}"
                f"{trump}, scores {self._scores}")


__all__ = ["CHANCE", "TERMINAL", "GameState", "HandLog", "IllegalActionError", "SUIT_TRUMP",
           "shuffled"]
