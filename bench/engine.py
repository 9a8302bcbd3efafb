"""How fast the rules engine plays random hands (3 players, the default table).

A hand is the whole of it: the deal, uniformly random legal bids, the widow and a random
discard, a random trump, 21 random legal plays, and the scoring. Measured three ways:

1. through the public API (`GameState.deal`, `legal_actions`, `apply_action`), each action
   picked with `rng.choice(legal)`;
2. the same, each action picked as `legal[int(rng.random() * len(legal))]` (also uniform,
   a cheaper pick: the difference is the harness, not the engine);
3. through the compact playout path (`moon_tui.rules.playout.random_hand`), the one bots
   use for rollouts.

And the mean time of one `legal_actions()` + `apply_action()` pair, from replaying recorded
random hands with and without those calls.

Times are CPU time of this process (one core), so other work on a shared machine counts
less against it; the machine is shared, so each figure is measured in several rounds and
the best and the median round are printed.

    .venv/bin/python bench/engine.py [--hands N] [--rounds R] [--seed S]
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import time
from collections.abc import Callable

from moon_tui.rules import Action, GameState, Rules
from moon_tui.rules.playout import random_hand


def cpu_seconds(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def public_api_choice(rules: Rules, rng: random.Random, hands: int) -> None:
    choice = rng.choice
    state = GameState(rules, rng.randrange(rules.players))
    for _ in range(hands):
        if state.is_terminal():
            state = GameState(rules, rng.randrange(rules.players))
        state.deal(rng)
        legal_actions = state.legal_actions
        apply_action = state.apply_action
        legal = legal_actions()
        while legal:
            apply_action(choice(legal))
            legal = legal_actions()


def public_api_index(rules: Rules, rng: random.Random, hands: int) -> None:
    rnd = rng.random
    state = GameState(rules, rng.randrange(rules.players))
    for _ in range(hands):
        if state.is_terminal():
            state = GameState(rules, rng.randrange(rules.players))
        state.deal(rng)
        legal_actions = state.legal_actions
        apply_action = state.apply_action
        legal = legal_actions()
        while legal:
            apply_action(legal[int(rnd() * len(legal))])
            legal = legal_actions()


def compact(rules: Rules, rng: random.Random, hands: int) -> None:
    first = rng.randrange(rules.players)
    for _ in range(hands):
        random_hand(rules, rng, first)
        first = (first + 1) % rules.players


def rounds_of(play: Callable[[Rules, random.Random, int], None], rules: Rules, seed: int,
              hands: int, rounds: int) -> list[float]:
    """Hands per CPU second in each round."""
    play(rules, random.Random(seed - 1), max(hands // 10, 100))  # warm up
    return [hands / cpu_seconds(functools.partial(play, rules, random.Random(seed + r), hands))
            for r in range(rounds)]


def recorded_hands(rules: Rules, seed: int, hands: int) -> list[tuple[int, list[Action]]]:
    """(deal seed, actions in order) of random hands, to replay with and without the calls."""
    rng = random.Random(seed)
    out = []
    for i in range(hands):
        state = GameState(rules, i % rules.players)
        state.deal(random.Random(seed * 1_000_003 + i))
        actions = []
        legal = state.legal_actions()
        while legal:
            action = rng.choice(legal)
            actions.append(action)
            state.apply_action(action)
            legal = state.legal_actions()
        out.append((seed * 1_000_003 + i, actions))
    return out


def legal_apply_us(rules: Rules, seed: int, hands: int) -> float:
    """Mean µs of one legal_actions() + apply_action(): replay recorded hands with both
    calls, then without them, and divide the difference by the number of actions."""
    recorded = recorded_hands(rules, seed, hands)
    steps = sum(len(actions) for _, actions in recorded)

    def with_calls() -> None:
        for i, (deal_seed, actions) in enumerate(recorded):
            state = GameState(rules, i % rules.players)
            state.deal(random.Random(deal_seed))
            legal_actions = state.legal_actions
            apply_action = state.apply_action
            for action in actions:
                legal_actions()
                apply_action(action)

    def without_calls() -> None:
        for i, (deal_seed, actions) in enumerate(recorded):
            state = GameState(rules, i % rules.players)
            state.deal(random.Random(deal_seed))
            legal_actions = state.legal_actions
            apply_action = state.apply_action
            for _action in actions:
                pass
            del legal_actions, apply_action

    full = min(cpu_seconds(with_calls) for _ in range(5))
    base = min(cpu_seconds(without_calls) for _ in range(5))
    return (full - base) / steps * 1e6


def report(name: str, per_round: list[float], note: str = "") -> None:
    print(f"{name:<28} best {max(per_round):8,.0f} hands/s   median "
          f"{statistics.median(per_round):8,.0f}   {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.make()
    print(f"moon engine: random 3-player hands (moon22, default rules), {args.rounds} rounds "
          f"of {args.hands:,} hands, CPU time; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    report("public API, rng.choice", rounds_of(public_api_choice, rules, args.seed,
                                                args.hands, args.rounds))
    report("public API, random index", rounds_of(public_api_index, rules, args.seed,
                                                  args.hands, args.rounds))
    report("compact playout path", rounds_of(compact, rules, args.seed, args.hands,
                                             args.rounds), "(rules.playout.random_hand)")
    us = legal_apply_us(rules, args.seed, args.hands)
    print(f"legal_actions() + apply_action(): {us:.2f} µs per action (mean over "
          f"{args.hands:,} recorded hands)")


if __name__ == "__main__":
    main()
