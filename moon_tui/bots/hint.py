"""A hint: the expert's ranking of a seat's legal actions, with what each is worth.

For the replay's analysis and practice tables (`h`). It runs the expert's own evaluation
with a fixed number of samples and a fixed seed, so the same view always gets the same
hint. `HintTask` is the same as a job for a bot worker (`BotPool.run_spare`): a few
seconds of thinking that must not hold up the server's event loop.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules import SeatView
from .expert import Choice, ExpertBot

#: Sampled deals behind a hint: enough for a steady ranking, a few seconds of thinking.
HINT_SAMPLES = 24


def hint(view: SeatView, *, samples: int = HINT_SAMPLES, seed: int = 0) -> list[Choice]:
    """Every legal action of `view`, best first by the expert, each with its expected value
    for the seat's side (points) and the declarer side's expected tricks.

    Raises ValueError when it is not the seat's turn.
    """
    if not view.my_turn or not view.legal:
        raise ValueError(f"seat {view.seat} has nothing to do: it is not its turn")
    # Every trump and every discard is simulated, not the bot's short list.
    bot = ExpertBot(max_samples=samples, fixed_samples=True, shortlist=len(view.legal))
    ranked = bot.evaluate(view, random.Random(seed))
    seen = {c.action for c in ranked}
    # Actions the simulation did not weigh (a short list, a lone legal action) come last.
    rest = [Choice(a, float("nan"), float("nan")) for a in view.legal if a not in seen]
    return ranked + rest


@dataclass(frozen=True, slots=True)
class HintTask:
    """`hint(view)` as a picklable job for a bot worker."""

    view: SeatView
    samples: int = HINT_SAMPLES
    seed: int = 0

    def __call__(self) -> list[Choice]:
        return hint(self.view, samples=self.samples, seed=self.seed)


__all__ = ["Choice", "HintTask", "hint"]
