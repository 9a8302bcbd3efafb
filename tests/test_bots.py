"""Bots: always a legal action, whatever the options; and nothing but the seat's view."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from moon_tui.bots import LEVELS, make_bot
from moon_tui.bots.base import Bot
from moon_tui.bots.expert import MIN_BID_SAMPLES, ExpertBot, expected_bid
from moon_tui.bots.knowledge import Knowledge
from moon_tui.rules import Action, GameState, Phase, Rules, SeatView, Tile, tile_set
from moon_tui.rules.tiles import mask_of, tiles_of


def random_rules(rng: random.Random) -> Rules:
    """Any table the rules allow."""
    players = rng.choice((3, 4))
    options: dict[str, Any] = {
        "players": players,
        "min_bid": rng.choice((3, 4, 5)),
        "all_pass": rng.choice(("redeal", "force_last")),
        "scoring": rng.choice(("points", "marks")),
        "team_scoring": rng.choice(("tricks", "bid")),
        "moon_wins_game": rng.random() < 0.5,
        "tie_break": rng.choice(("continue", "declarer")),
        "doubles_trump": rng.random() < 0.7,
        "no_trump": rng.random() < 0.7,
        "target": rng.choice((5, 11, 21)),
    }
    if players == 3:
        options["set"] = rng.choice(("moon22", "moon21"))
        options["trump_before_widow"] = rng.random() < 0.5
    return Rules.make(**options)


def random_states(seed: int, count: int):  # type: ignore[no-untyped-def]
    """`count` decision points of random games under random rules: (state, seat)."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        state = GameState.new_game(random_rules(rng), rng)
        # A few hundred decisions per game: many rule sets (each phase of each) are met,
        # whatever the seed (one long game once left no discard in 2,500 decisions).
        stop = produced + 300
        while not state.is_terminal() and produced < min(count, stop):
            if state.phase is Phase.DEAL:
                state.deal(rng)
                continue
            seat = state.current_player()
            yield state, seat
            produced += 1
            state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("level", ["random", "easy", "normal", "heuristic"])
def test_cheap_levels_always_choose_a_legal_action(level: str) -> None:
    bot = make_bot(level)
    rng = random.Random(7)
    phases = set()
    for state, seat in random_states(seed=len(level), count=2500):
        view = state.view(seat)
        action = bot.choose(view, rng)
        assert state.is_legal(action), f"{level} chose {action} in {state.describe()}"
        phases.add(view.phase)
    assert phases == {Phase.BID, Phase.DISCARD, Phase.TRUMP, Phase.PLAY}


def test_expert_always_chooses_a_legal_action() -> None:
    bot = ExpertBot(time_budget=0.05, max_samples=2)
    rng = random.Random(3)
    for state, seat in random_states(seed=11, count=300):
        action = bot.choose(state.view(seat), rng)
        assert state.is_legal(action), f"expert chose {action} in {state.describe()}"


def test_expert_simulates_bids_trump_and_discard() -> None:
    """With enough samples the declarer's choices come from the simulation, not the
    heuristic fallback; they are legal too."""
    bot = ExpertBot(max_samples=MIN_BID_SAMPLES, fixed_samples=True)
    rng = random.Random(5)
    seen: dict[Phase, int] = {}
    for state, seat in random_states(seed=21, count=3000):
        phase = state.phase
        if phase is Phase.PLAY or seen.get(phase, 0) >= 2:
            continue
        if state.rules.players == 4:
            continue
        seen[phase] = seen.get(phase, 0) + 1
        action = bot.choose(state.view(seat), rng)
        assert state.is_legal(action)
        if sum(seen.values()) >= 6:
            break
    assert set(seen) == {Phase.BID, Phase.DISCARD, Phase.TRUMP}


def test_make_bot_levels() -> None:
    for level in LEVELS:
        assert make_bot(level, time_budget=0.1).name == level
    assert make_bot("heuristic").name == "normal"
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster")


# -- honesty: a bot sees its seat's view and nothing else ------------------------------------

def tiles_in(value: object) -> set[Tile]:
    """Every tile reachable from a view's fields."""
    if isinstance(value, Tile):
        return {value}
    if isinstance(value, Action):
        return {value.tile} if value.tile is not None else set()
    if isinstance(value, (tuple, list)):
        return set().union(*(tiles_in(v) for v in value)) if value else set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(tiles_in(getattr(value, f.name))
                             for f in dataclasses.fields(value)))
    return set()


def visible_tiles(view: SeatView) -> set[Tile]:
    allowed = set(view.hand) | set(view.played_tiles())
    if view.widow is not None:
        allowed.add(view.widow)
    if view.discard is not None:
        allowed.add(view.discard)
    return allowed


class Game:
    """A game driven by random actions, remembering each hand's deal and decisions so the
    current hand can be dealt again differently."""

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        self.rng = rng
        self.first = rng.randrange(rules.players)
        self.state = GameState(rules, self.first)
        self.hands: list[tuple[list[tuple[Tile, ...]], Tile | None, list[Action]]] = []

    def deal(self) -> None:
        self.state.deal(self.rng)
        log = self.state.logs[-1]
        self.hands.append(([tiles_of(m) for m in log.deal_masks], log.widow, []))

    def act(self, action: Action) -> None:
        self.hands[-1][2].append(action)
        self.state.apply_action(action)

    def rebuilt(self, last_deal: list[tuple[Tile, ...]], widow: Tile | None,
                discard: Tile | None) -> GameState:
        """The same game with the current hand dealt as given (and that discard)."""
        state = GameState(self.state.rules, self.first)
        for i, (deal, w, actions) in enumerate(self.hands):
            last = i == len(self.hands) - 1
            state.deal_tiles(last_deal if last else deal, widow if last else w)
            for action in actions:
                if last and action.kind == "discard" and discard is not None:
                    action = Action.make_discard(discard)
                state.apply_action(action)
        return state


def other_deal(game: Game, seat: int, rng: random.Random) -> GameState:
    """The current hand dealt again: the same for `seat`, every hidden tile moved, every
    tile already played by the same seat, every failure to follow still true."""
    state = game.state
    view = state.view(seat)
    hands, out = Knowledge.of(view).sample(rng)
    played: dict[int, set[Tile]] = {s: set() for s in range(state.players)}
    tricks = list(view.tricks) + ([view.current_trick] if view.current_trick else [])
    for trick in tricks:
        for s, t in trick.plays:
            played[s].add(t)
    deal, widow, _ = game.hands[-1]
    new_deal = list(deal)
    for s in range(state.players):
        if s != seat:
            new_deal[s] = tuple(sorted(set(tiles_of(hands[s])) | played[s],
                                       key=lambda t: -t.index))
    new_widow, discard = widow, None
    if widow is not None and view.widow is None:
        # The widow is hidden from this seat: deal it another tile, and if the declarer
        # has discarded (unseen by this seat), it now throws away that new widow itself.
        new_widow = tiles_of(out)[0]
        if state.logs[-1].discard is not None:
            discard = new_widow
    return game.rebuilt(new_deal, new_widow, discard)


def honest_cases(count: int, seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    made = 0
    while made < count:
        game = Game(random_rules(rng), rng)
        while not game.state.is_terminal() and made < count:
            if game.state.phase is Phase.DEAL:
                game.deal()
                continue
            seat = game.state.current_player()
            if rng.random() < 0.15:
                yield game, seat
                made += 1
            game.act(rng.choice(game.state.legal_actions()))


def bots_under_test() -> list[Bot]:
    return [make_bot("random"), make_bot("easy"), make_bot("normal"),
            ExpertBot(max_samples=1, fixed_samples=True)]


def test_a_view_holds_no_hidden_tile() -> None:
    for game, seat in honest_cases(400, seed=2):
        view = game.state.view(seat)
        leaked = tiles_in(view) - visible_tiles(view)
        assert not leaked, f"seat {seat} can see {leaked}"


def test_bots_decide_the_same_whatever_the_hidden_tiles() -> None:
    """Same view + same random generator => same action, across different hidden deals.
    Bots only ever get the view, and this checks the view is all that matters."""
    rng = random.Random(9)
    checked = 0
    for game, seat in honest_cases(80, seed=4):
        view = game.state.view(seat)
        other = other_deal(game, seat, rng)
        assert other.view(seat) == view
        hidden_before = {s: mask_of(game.state.hand_of(s)) for s in range(game.state.players)}
        hidden_after = {s: mask_of(other.hand_of(s)) for s in range(other.players)}
        assert hidden_before[seat] == hidden_after[seat]
        for bot in bots_under_test():
            a = bot.choose(view, random.Random(checked))
            b = bot.choose(other.view(seat), random.Random(checked))
            assert a == b, f"{bot.name} changed its mind with other hidden tiles"
        checked += 1
    assert checked == 80


# -- the expert's bidding simulation -----------------------------------------------------------

def bid_view(hand: str, players: int = 3) -> SeatView:
    """The first bidder's view of a fresh hand in which seat 0 holds `hand`."""
    rules = Rules.make(players=players)
    mine = [Tile.parse(t) for t in hand.split()]
    state = GameState(rules, 0)
    rest = [t for t in tile_set(rules.set) if t not in mine]
    hands = [mine] + [rest[7 * i:7 * i + 7] for i in range(players - 1)]
    widow = rest[7 * (players - 1)] if rules.has_widow else None
    state.deal_tiles(hands, widow)
    return state.view(0)


def test_expert_bid_is_legal_and_deterministic_with_fixed_samples() -> None:
    view = bid_view("6-6 6-5 6-4 6-3 5-5 4-4 2-1")
    bot = ExpertBot(max_samples=16, fixed_samples=True)
    first = bot.evaluate(view, random.Random(7))
    again = ExpertBot(max_samples=16, fixed_samples=True).evaluate(view, random.Random(7))
    assert first == again
    assert {c.action for c in first} == set(view.legal)
    assert first[0].action.bid is not None, "a hand with four top trumps bids"


def test_expert_bid_stops_early_when_the_choice_is_clear() -> None:
    """Seven top trumps: the moon on every deal, no need for all the samples."""
    view = bid_view("6-6 6-5 6-4 6-3 6-2 6-1 5-5")
    ranked = ExpertBot(max_samples=200, fixed_samples=True).evaluate(view, random.Random(1))
    assert ranked[0].action.bid == 21
    assert ranked[0].samples < 200


def test_expert_bid_respects_its_budget() -> None:
    view = bid_view("6-5 5-3 4-2 3-1 2-2 4-1 6-1")
    ticks = iter(range(10**6))
    bot = ExpertBot(time_budget=400.0, max_samples=10**6, clock=lambda: float(next(ticks)))
    ranked = bot.evaluate(view, random.Random(2))
    # The fake clock moves a second a reading (the solver reads it every 1024 nodes): the
    # budget, not the sample limit, ends the search.
    assert ranked and ranked[0].samples >= MIN_BID_SAMPLES
    assert next(ticks) < 400


def test_expert_expects_later_seats_to_bid_on_their_strength() -> None:
    rules = Rules.make()
    everything = mask_of(tile_set(rules.set))
    trumps = list(range(9))
    strong = mask_of(Tile.parse(t) for t in "6-6 6-5 6-4 6-3 6-2 5-5 4-4".split())
    weak = mask_of(Tile.parse(t) for t in "5-1 4-2 3-1 2-1 4-3 5-2 3-2".split())
    assert expected_bid(strong, everything, trumps, rules) >= 6
    assert expected_bid(weak, everything, trumps, rules) < rules.min_bid
