"""Property tests over random games with random table options (hypothesis)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from moon_tui.rules import CHANCE, TERMINAL, Action, GameState, Phase, Rules, Tile, tile_set
from moon_tui.rules.record import dumps_record, game_from_record, parse_record, record_of
from moon_tui.rules.replay import replay


@st.composite
def rules_strategy(draw: st.DrawFn) -> Rules:
    players = draw(st.sampled_from([3, 4]))
    options: dict[str, Any] = {"players": players}
    if players == 3:
        options["set"] = draw(st.sampled_from(["moon22", "moon21"]))
    options["min_bid"] = draw(st.sampled_from([3, 4, 5]))
    options["all_pass"] = draw(st.sampled_from(["redeal", "force_last"]))
    options["trump_before_widow"] = draw(st.booleans())
    options["scoring"] = draw(st.sampled_from(["points", "marks"]))
    options["team_scoring"] = draw(st.sampled_from(["tricks", "bid"]))
    options["target"] = draw(st.integers(1, 25))
    options["moon_wins_game"] = draw(st.booleans())
    options["tie_break"] = draw(st.sampled_from(["continue", "declarer"]))
    options["doubles_trump"] = draw(st.booleans())
    options["no_trump"] = draw(st.booleans())
    options["discard_shown"] = draw(st.booleans())
    return Rules.make(**options)


def tiles_in(value: object) -> Iterator[Tile]:
    """Every tile reachable from a view, however deeply nested."""
    if isinstance(value, Tile):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from tiles_in(getattr(value, f.name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from tiles_in(item)
    elif isinstance(value, Action):
        if value.tile is not None:
            yield value.tile


def check_views(state: GameState) -> None:
    """No view shows another seat's unplayed tile, nor the widow to a non-declarer, nor the
    discard unless it is the declarer's or the discard is shown (`discard_shown`)."""
    log = state.logs[-1]
    played = {Tile.ALL[i] for i in log.plays}
    declarer = state.declarer if state.phase is not Phase.BID else None
    shown = log.discard if state.rules.discard_shown else None
    spectator = state.spectator_view()
    assert spectator.hand == () and spectator.widow is None and spectator.discard == shown
    assert set(tiles_in(spectator)) <= played | ({shown} if shown else set())
    for seat in range(state.players):
        view = state.view(seat)
        allowed = played | set(state.hand_of(seat))
        if seat == declarer:
            if log.discard is not None:
                allowed.add(log.discard)
            if view.widow_taken and log.widow is not None:
                allowed.add(log.widow)
        else:
            assert view.widow is None and view.discard == shown
            if shown is not None:
                allowed.add(shown)
        assert set(tiles_in(view)) <= allowed, (seat, set(tiles_in(view)) - allowed)
        if view.legal:
            assert view.my_turn


def check_conservation(state: GameState) -> None:
    log = state.logs[-1]
    everything: list[Tile] = [t for seat in range(state.players) for t in state.hand_of(seat)]
    everything += [Tile.ALL[i] for i in log.plays]
    if log.discard is not None:
        everything.append(log.discard)
    taken = state.declarer is not None and state.view(state.declarer).widow_taken
    if log.widow is not None and not taken:
        everything.append(log.widow)
    assert sorted(everything, key=lambda t: t.index) == \
        sorted(tile_set(state.rules.set), key=lambda t: t.index)


def play_randomly(state: GameState, rng: random.Random, steps: int) -> None:
    """Up to `steps` random deals and moves (fewer if the game ends)."""
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.current_player() == CHANCE:
            state.deal(rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def play_random_game(rules: Rules, seed: int, max_hands: int) -> GameState:
    rng = random.Random(seed)
    state = GameState(rules, rng.randrange(rules.players))
    steps = 0
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            if state.logs:
                assert state.tricks == () or len(state.tricks) == 7
                assert sum(state.tricks_won) in (0, 7)
            if len(state.logs) >= max_hands:
                break
            state.deal(rng)
            check_conservation(state)
            continue
        legal = state.legal_actions()
        assert legal, f"no legal action for seat {player} in {state.describe()}"
        assert legal == sorted(legal)
        if steps % 7 == 0:
            check_views(state)
            check_conservation(state)
        state.apply_action(rng.choice(legal))
        steps += 1
    if state.is_terminal():
        assert state.current_player() == TERMINAL and state.legal_actions() == []
    return state


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32), max_hands=st.integers(1, 8))
def test_random_games_keep_every_invariant_and_replay_from_their_record(
        rules: Rules, seed: int, max_hands: int) -> None:
    state = play_random_game(rules, seed, max_hands)
    names = [f"p{i}" for i in range(rules.players)]
    text = dumps_record(record_of(state, names))
    again = game_from_record(parse_record(text))
    assert again.scores == state.scores
    assert again.results == state.results
    assert again.outcome() == state.outcome()
    assert [(log.deal_masks, log.bids, log.plays) for log in again.logs] == \
        [(log.deal_masks, log.bids, log.plays) for log in state.logs]
    out = replay(parse_record(text))
    assert out["ok"] is True
    assert out["scores"] == list(state.scores)
    assert out["complete"] == state.is_terminal()
    finished = [h for h in out["hands"] if h["points"] is not None]
    assert len(finished) == len(state.results)
    for hand in finished:
        if hand["declarer"] is not None:
            assert len(hand["tricks"]) == 7 and sum(hand["tricks_won"]) == 7


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32), cut=st.integers(0, 200))
def test_a_game_stopped_anywhere_is_a_valid_record(rules: Rules, seed: int, cut: int) -> None:
    rng = random.Random(seed)
    state = GameState(rules, rng.randrange(rules.players))
    play_randomly(state, rng, cut)
    record = record_of(state, [f"p{i}" for i in range(rules.players)])
    again = game_from_record(parse_record(dumps_record(record)))
    assert again.current_player() == state.current_player()
    assert again.legal_actions() == state.legal_actions()
    assert again.view(None) == state.view(None)
    assert replay(record)["ok"] is True


@given(st.integers(0, 27))
def test_tiles_and_actions_print_and_parse_back(index: int) -> None:
    tile = Tile.ALL[index]
    assert Tile.parse(str(tile)) is tile
    assert Tile.parse(f"{tile.low}-{tile.high}") is tile
    assert eval(repr(tile), {"Tile": Tile}) is tile
    for action in (Action.make_play(tile), Action.make_discard(tile)):
        assert Action.parse(str(action)) == action
        assert eval(repr(action), {"Action": Action}) == action
    for text in ("pass", "bid 4", "bid 21", "trump 0", "trump doubles", "trump none"):
        assert str(Action.parse(text)) == text
    assert str(Action.parse("bid moon")) == "bid 21"


@settings(max_examples=30, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32), cut=st.integers(0, 120))
def test_a_clone_is_independent_and_plays_on_the_same(rules: Rules, seed: int,
                                                      cut: int) -> None:
    rng = random.Random(seed)
    state = GameState(rules, rng.randrange(rules.players))
    play_randomly(state, rng, cut)
    names = [f"p{i}" for i in range(rules.players)]
    before = record_of(state, names)
    twin = state.clone()
    for one in (state, twin):
        play_randomly(one, random.Random(seed + 1), 60)
    assert record_of(twin, names) == record_of(state, names)
    assert twin.view(None) == state.view(None)
    fresh = state.clone()
    if fresh.legal_actions():
        fresh.apply_action(fresh.legal_actions()[0])
        assert record_of(fresh, names) != record_of(state, names)
    done = max(len(before["hands"]) - 1, 0)  # hands complete before the clone
    assert record_of(state, names)["hands"][:done] == before["hands"][:done]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), shown=st.booleans(),
       trump_first=st.booleans())
def test_the_discard_is_seen_by_the_declarer_only_unless_it_is_laid_face_up(
        seed: int, shown: bool, trump_first: bool) -> None:
    rules = Rules.make(discard_shown=shown, trump_before_widow=trump_first, target=25)
    rng = random.Random(seed)
    state = GameState(rules, rng.randrange(3))
    for _ in range(300):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.deal(rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        discard = state.logs[-1].discard if state.logs else None
        declarer = state.declarer if state.phase is not Phase.BID else None
        for seat in (None, 0, 1, 2):
            view = state.view(seat)
            if discard is None:
                assert view.discard is None
            elif shown or seat == declarer:
                assert view.discard == discard, (seat, declarer)
            else:
                assert view.discard is None, (seat, declarer)
