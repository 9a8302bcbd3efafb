"""The replay viewer's analysis: its double-dummy figures are the solver's own, it runs in
the bot workers, and the viewer shows them over a real SSH connection."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest

from moon_tui.bots.analysis import Analyst, DecisionTask, tasks_of
from moon_tui.bots.pool import BotPool
from moon_tui.bots.solver import Solver
from moon_tui.rules import Rules, record_of
from moon_tui.rules.cli import random_game
from moon_tui.rules.record import as_record
from moon_tui.rules.tiles import mask_of
from moon_tui.rules.timeline import Timeline
from moon_tui.ui.dominoes import small_tile
from server.analyses import DatabaseAnalyses
from server.store import Database
from tests.support.settings import FAST
from tools.probe import ScreenClient, enter_lobby, new_key, running_server

SEATS = ("ann", "bob", "cy")
SEED = 8


def timeline() -> Timeline:
    state = random_game(Rules.make(players=3), random.Random(SEED))
    return Timeline(as_record(record_of(state, SEATS)))


def declarer_play(line: Timeline) -> DecisionTask:
    """The first play of hand 0 by the declarer with more than one legal tile."""
    return next(t for t in tasks_of(line, 0, None) if t.view.phase.name == "PLAY"
                and t.view.seat == t.view.declarer and len(t.view.legal) > 2)


def solver_values(line: Timeline, task: DecisionTask) -> dict[int, int]:
    """The solver asked directly: the declarer's tricks from here for each tile."""
    position = line.index_of((0, task.index))
    state = line.state(position)
    hands = [mask_of(state.hand_of(s)) for s in range(3)]
    view = task.view
    assert view.trump is not None and view.declarer is not None
    side = [s == view.declarer for s in range(3)]
    trick = view.current_trick
    plays = [] if trick is None else [t.index for _, t in trick.plays]
    leader = trick.leader if trick is not None and plays else view.declarer
    return Solver(view.trump, 3, side).move_values(hands, leader, plays)


async def test_a_hands_analysis_in_the_workers_gives_the_solvers_figures() -> None:
    line = timeline()
    task = declarer_play(line)
    expected = solver_values(line, task)
    async with BotPool(1) as pool:
        analysed = await Analyst(pool).hand("TEST01", line, 0)
    decision = analysed.at(task.index)
    assert decision is not None and decision.chosen == task.chosen
    assert {o.action.tile.index: o.dd for o in decision.options
            if o.action.tile is not None} == expected
    chosen = expected[task.chosen.tile.index] if task.chosen.tile else None
    assert decision.dd_cost == max(expected.values()) - (chosen or 0)
    assert all(o.fair is not None for o in decision.options)
    # The declarer's trump: each trump's tricks from the first lead, the solver's too.
    trump = next(d for d in analysed.decisions if d.chosen.kind == "trump")
    state = line.state(line.index_of((0, trump.index + 1)))
    hands = [mask_of(state.hand_of(s)) for s in range(3)]
    side = [s == trump.seat for s in range(3)]
    for option in trump.options:
        assert option.action.trump is not None
        if state.rules.has_widow and not state.rules.trump_before_widow:
            assert option.dd == Solver(option.action.trump, 3, side).solve(hands, trump.seat)
    assert analysed.swings() == sorted(analysed.swings(), key=lambda d: -d.cost)


def test_an_unfinished_games_analysis_weighs_only_the_viewers_seat_without_hindsight(
) -> None:
    line = timeline()
    mine = Timeline(line.record, frozenset({1}))
    tasks = tasks_of(mine, 0, frozenset({1}))
    assert tasks and all(t.view.seat == 1 and t.hands is None for t in tasks)
    decision = next(t for t in tasks if len(t.view.legal) > 1)()
    assert all(o.dd is None for o in decision.options)


@pytest.mark.ssh
async def test_the_viewer_shows_the_analysis_over_ssh(tmp_path: Path) -> None:
    line = timeline()
    task = declarer_play(line)
    expected = solver_values(line, task)
    position = line.index_of((0, task.index))
    async with running_server(tmp_path, lobby_config=FAST) as server:
        await server.db.save_record(record_of(
            random_game(Rules.make(players=3), random.Random(SEED)), SEATS), finished=True)
        client = await ScreenClient.connect(server.port, "ann", key=new_key(), width=100,
                                            height=30)
        await enter_lobby(client)
        await client.press("g")
        await client.wait_for("saved games")
        await client.press("enter")
        await client.wait_for("All hands open")
        await client.press("a")
        await client.wait_for("ann's choice")
        await client.press(*["right"] * position)
        shown = await client.wait_for(lambda s: f"Move {position} of" in s
                                      and re.search(r"tricks +best +fair", s) is not None)
        for tile, tricks in expected.items():
            words = small_tile(next(a.tile for a in task.view.legal
                                    if a.tile is not None and a.tile.index == tile))
            assert re.search(re.escape(words) + rf"\s+{tricks}\s", shown), (words, shown)
        assert "◀" in shown and "swings (n)" in shown
        await client.close()


async def test_spare_work_waits_behind_every_decision_waiting_for_a_worker() -> None:
    line = timeline()
    task = declarer_play(line)
    view = task.view
    done: list[str] = []
    async with BotPool(1) as pool:

        async def decision(name: str) -> None:
            await pool.choose(view, "expert", budget=0.3)
            done.append(name)

        async def spare() -> None:
            await pool.run_spare(task, 60.0)
            done.append("analysis")

        first = asyncio.create_task(decision("first"))
        await eventually_busy(pool)
        # The analysis asks before the second decision; the decision still goes first.
        asked = [asyncio.create_task(spare()), asyncio.create_task(decision("second"))]
        await asyncio.gather(first, *asked)
    assert done == ["first", "second", "analysis"]


async def eventually_busy(pool: BotPool) -> None:
    while not pool.busy_pids():
        await asyncio.sleep(0.01)


async def test_a_weighed_hand_is_kept_in_the_database_and_read_back_without_the_workers(
        tmp_path: Path) -> None:
    line = timeline()
    db = Database(tmp_path / "moon.db")
    await db.open()
    try:
        async with BotPool(1) as pool:
            first = await Analyst(pool, samples=2, store=DatabaseAnalyses(db)).hand(
                "TEST01", line, 0)
            runs = pool.spare_runs
            assert runs > 0, "weighed in the workers"
            # A new analyst remembers nothing (as after a restart): the database does.
            again = await Analyst(pool, samples=2, store=DatabaseAnalyses(db)).hand(
                "TEST01", line, 0)
            assert again == first and pool.spare_runs == runs
            # Another seat's view of the game, or other settings, is weighed anew.
            mine = Timeline(line.record, frozenset({1}))
            await Analyst(pool, samples=2, store=DatabaseAnalyses(db)).hand("TEST01", mine, 0)
            assert pool.spare_runs > runs
    finally:
        await db.close()
