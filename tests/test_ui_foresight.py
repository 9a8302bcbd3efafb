"""What the table screen draws while a move of the player's own waits for the table
(`ui/awaited.AwaitedMove`): a foreseen move stays drawn over the table's news of another
kind, one not foreseen leaves the table's view as it is, and either gives way to the
table's own view once the table took the move."""

from __future__ import annotations

import random
from dataclasses import replace

from moon_tui.lobby.messages import SeatInfo, TableInfo, TableUpdate
from moon_tui.rules import CHANCE, GameState, Phase, Rules
from moon_tui.rules.foresight import foresee
from moon_tui.ui.awaited import AwaitedMove


def test_a_foreseen_move_stays_over_other_news_and_gives_way_to_the_tables_answer() -> None:
    rng = random.Random(4)
    state = GameState.new_game(Rules.make(), rng)
    while state.phase is not Phase.PLAY:
        if state.current_player() == CHANCE:
            state.deal(rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    before = state.view(seat)
    move = before.legal[0]
    after = foresee(before, move)
    assert after is not None
    seats = tuple(SeatInfo(name) for name in ("ann", "bob", "cy"))
    table = TableInfo("t1", "ann's table", "ann", Rules.make(), seats, "playing", False,
                      True, (), 30)
    update = TableUpdate(table, seat, before, seq=7, turn_left=12.0, reconnect_left=None)

    drawn = AwaitedMove(before, after).drawn_over(update)
    assert drawn is not None and drawn.view == after and drawn.turn_left is None

    away = replace(table, seats=(SeatInfo("ann"), SeatInfo("bob", away=True),
                                 SeatInfo("cy")))
    news = replace(update, table=away, seq=8)  # bob dropped before the move was taken
    kept = AwaitedMove(before, after).drawn_over(news)
    assert kept is not None and kept.view == after and kept.table == away

    state.apply_action(move)
    answer = replace(update, view=state.view(seat), seq=9)
    assert answer.view == after  # the table's answer is what was foreseen...
    assert AwaitedMove(before, after).drawn_over(answer) is None  # ...and it is drawn as sent


def test_a_move_not_foreseen_keeps_the_tables_own_view_until_the_table_takes_it() -> None:
    rng = random.Random(5)
    state = GameState.new_game(Rules.make(), rng)
    if state.current_player() == CHANCE:
        state.deal(rng)
    while True:  # to the bid that wins the auction: its widow only the table can show
        seat = state.current_player()
        before = state.view(seat)
        move = next((a for a in before.legal if a.kind == "bid"
                     and foresee(before, a) is None), None)
        if move is not None:
            break
        state.apply_action(next(a for a in before.legal if a.kind == "pass"))
    seats = tuple(SeatInfo(name) for name in ("ann", "bob", "cy"))
    table = TableInfo("t1", "ann's table", "ann", Rules.make(), seats, "playing", False,
                      True, (), 30)
    update = TableUpdate(table, seat, before, seq=3, turn_left=12.0, reconnect_left=None)

    assert AwaitedMove(before, None).drawn_over(update) == update  # drawn as the table said
    news = replace(update, table=replace(table, name="the club's table"), seq=4)
    assert AwaitedMove(before, None).drawn_over(news) == news  # still waiting for the table
    state.apply_action(move)
    answer = replace(update, view=state.view(seat), seq=5)
    assert answer.view is not None and answer.view.widow_taken
    assert AwaitedMove(before, None).drawn_over(answer) is None  # taken: nothing waits
