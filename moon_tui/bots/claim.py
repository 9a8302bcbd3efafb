"""A claim: the player to lead says they take every remaining trick, and the double-dummy
solver proves it on the real deal before the rest is played out at once.

What is proven (the honest definition): with every hand known, as the table knows them,
the claimant *alone* takes every remaining trick of the hand against any play by every
other seat, a partner included. The solver searches with the claimant maximising and all
the others minimising the claimant's own tricks, so "whatever the others do" is a min
over each of their choices, not a guess about their hands. (A claim that needs a
partner's help is refused: the partner might not give it.)

The play-out is then fixed: the claimant leads, each trick, a tile that keeps every
trick (the first in the solver's lead order); the others play their lowest legal tile
(any legal tile would do: the proof holds against all of them). The plays are ordinary
actions, applied by the table one by one, so the record holds every play.

`ClaimProof` is a picklable task: a table runs it in the bots' worker pool (a proof at
the first lead of a hand can take long with the pure-Python solver, see
`bench/claim.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

from ..rules import Action, GameState, Phase
from ..rules.tiles import mask_of
from .solver import LEAD_STRENGTH, SearchTimeout, Solver

#: Seconds a proof may search before the claim is refused as too long to check. With the
#: compiled solver the slowest proof measured at a hand's first lead is ~0.3 s (4
#: players, bench/claim.py); with the pure-Python one a 4-player claim there took up to
#: 8.4 s, and such a claim is answered "could not be checked now" (play on, claim later).
PROOF_SECONDS: Final = 5.0


class ClaimTooLong(Exception):
    """The proof ran out of its time (`PROOF_SECONDS`): the claim is not proven."""


def can_claim(game: GameState, seat: int) -> bool:
    """Whether `seat` may claim now: play is on, it is their lead, and no tile of the
    trick is down yet."""
    trick = game.current_trick
    return (game.phase is Phase.PLAY and game.current_player() == seat
            and trick is not None and not trick.plays)


@dataclass(frozen=True, slots=True)
class ClaimProof:
    """The proof of `seat`'s claim on `game` (a copy: the task runs in another process);
    calling it gives the plays of the rest of the hand, None when not proven, `()` when
    it ran out of time."""

    game: GameState
    seat: int
    seconds: float = PROOF_SECONDS

    def __call__(self) -> tuple[Action, ...] | None:
        """As `claim_plays`, but a proof out of time gives `()` (not checked) rather than
        raising: a worker's exception would cost the worker (the pool replaces it)."""
        try:
            return claim_plays(self.game, self.seat, self.seconds)
        except ClaimTooLong:
            return ()


def claim_plays(game: GameState, seat: int,
                seconds: float = PROOF_SECONDS) -> tuple[Action, ...] | None:
    """Every play left in the hand if `seat` takes each remaining trick whatever the
    others play, in order; None when it cannot be proven (a trick could be lost).

    `game` is left alone (a copy is played). Raises `ClaimTooLong` past `seconds`."""
    if not can_claim(game, seat):
        return None
    trump = game.trump
    assert trump is not None
    state = game.clone()
    n = state.players
    solver = Solver(trump, n, [s == seat for s in range(n)])
    solver.deadline = solver.clock() + seconds
    plays: list[Action] = []
    try:
        hands = [mask_of(state.hand_of(s)) for s in range(n)]
        left = hands[seat].bit_count()
        if solver.solve(hands, seat, (), guess=left) < left:
            return None
        while state.phase is Phase.PLAY:
            hands = [mask_of(state.hand_of(s)) for s in range(n)]
            lead = _keeping_lead(solver, state, hands, seat)
            if lead is None:
                return None  # cannot happen when the solver is right: never claim wrongly
            plays.append(lead)
            plays.extend(_others(state, seat))
            if state.phase is Phase.PLAY and state.current_player() != seat:
                return None  # as above: a trick lost is no claim
    except SearchTimeout:
        raise ClaimTooLong(f"no proof in {seconds:.1f} s") from None
    return tuple(plays)


def _keeping_lead(solver: Solver, state: GameState, hands: list[int],
                  seat: int) -> Action | None:
    """A lead of `seat` after which it still takes every trick left; played on `state`."""
    left = hands[seat].bit_count()
    trump = state.trump
    assert trump is not None
    strength = LEAD_STRENGTH[trump]
    leads = sorted(state.legal_actions(),
                   key=lambda a: -strength[a.tile.index] if a.tile else 0)
    for action in leads:
        tile = action.tile
        assert tile is not None
        rest = list(hands)
        rest[seat] ^= 1 << tile.index
        if solver.solve(rest, seat, (tile.index,), guess=left) >= left:
            state.apply_action(action)
            return action
    return None


def _others(state: GameState, seat: int) -> list[Action]:
    """The others' plays to the trick just led: each its lowest legal tile."""
    plays = []
    while state.phase is Phase.PLAY and state.current_player() != seat:
        action = min(state.legal_actions(), key=lambda a: a.tile.index if a.tile else 0)
        state.apply_action(action)
        plays.append(action)
    return plays


def timed_proof(game: GameState, seat: int) -> tuple[float, bool]:
    """Seconds the proof of `seat`'s claim takes on `game`, and whether it held (bench)."""
    start = time.perf_counter()
    plays = claim_plays(game, seat, seconds=3600.0)
    return time.perf_counter() - start, plays is not None
