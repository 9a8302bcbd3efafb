"""The bot worker pool: decisions as in process, and a game never stalls on a worker."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import socket
import time

import pytest

from moon_tui.bots.expert import ExpertBot
from moon_tui.bots.heuristic import HeuristicBot
from moon_tui.bots.pool import BotPool, Request, decide
from moon_tui.rules import Action, GameState, Rules, SeatView
from tests.support.processes import gone

pytestmark = pytest.mark.slow


def views(count: int, seed: int = 3) -> list[SeatView]:
    """Views at a seat's turn from a game the heuristic plays, every phase included."""
    rng = random.Random(seed)
    state = GameState(Rules.make(), 0)
    bot = HeuristicBot()
    out: list[SeatView] = []
    while len(out) < count and not state.is_terminal():
        if state.phase.value == "deal":
            state.deal(rng)
            continue
        view = state.view(state.current_player())
        if len(view.legal) > 1:
            out.append(view)
        state.apply_action(bot.choose(view, rng))
    return out


def hang(request: Request) -> Action:
    """A worker job that never answers."""
    time.sleep(3600)
    raise AssertionError("unreachable")


def slow(request: Request) -> Action:
    """A worker job that takes its time, so a test can kill the worker mid-decision."""
    time.sleep(30)
    return decide(request)


def chatty(request: Request) -> Action:
    """A worker job that logs, as the expert does when it falls back."""
    logging.getLogger("moon_tui.bots.expert").warning("no consistent deal for seat %s",
                                                      request.view.seat)
    return decide(request)


async def until(condition: object, limit: float = 20.0) -> None:
    """Wait (on the event loop) until `condition()` holds."""
    start = time.monotonic()
    while not condition():  # type: ignore[operator]
        assert time.monotonic() - start < limit, "condition never came"
        await asyncio.sleep(0.01)


async def test_decisions_match_the_bot_in_process() -> None:
    sample = views(6)
    async with BotPool(2) as pool:
        got = await asyncio.gather(*(pool.choose(v, "expert", samples=4, seed=i)
                                     for i, v in enumerate(sample)))
        normal = await pool.choose(sample[0], "normal", seed=1)
        assert pool.fallbacks == 0
    expected = [ExpertBot(max_samples=4, fixed_samples=True).choose(v, random.Random(i))
                for i, v in enumerate(sample)]
    assert got == expected
    assert normal == HeuristicBot().choose(sample[0], random.Random(1))


async def test_a_killed_worker_is_replaced_and_the_heuristic_decides() -> None:
    view = views(1)[0]
    async with BotPool(1, job=slow) as pool:
        task = asyncio.create_task(pool.choose(view, "expert", budget=0.5, seed=7))
        await until(pool.busy_pids)
        victim = pool.busy_pids()[0]
        os.kill(victim, signal.SIGKILL)
        action = await task
        assert action == HeuristicBot().choose(view, random.Random(7))
        assert pool.fallbacks == 1
        assert len(pool.pids()) == 1 and victim not in pool.pids()


async def test_a_hung_worker_times_out_and_is_replaced() -> None:
    view = views(1)[0]
    async with BotPool(1, job=hang, grace=0.5) as pool:
        ticks = 0

        async def beat() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        heart = asyncio.create_task(beat())
        task = asyncio.create_task(pool.choose(view, "expert", budget=0.2, seed=1))
        await until(pool.busy_pids)
        pids = pool.pids()
        action = await task
        heart.cancel()
        assert action in view.legal
        assert pool.fallbacks == 1
        assert ticks > 10  # the event loop kept running while the worker hung
        assert len(pool.pids()) == 1 and pool.pids() != pids


async def test_workers_start_when_needed_and_close_leaves_no_process() -> None:
    pool = BotPool(2)
    await pool.choose(views(1)[0], "normal", seed=0)
    assert pool.pids() == []  # the quick levels never start a worker
    await pool.choose(views(1)[0], "expert", samples=2, seed=0)
    assert len(pool.pids()) == 1  # one decision at a time needs one worker
    await asyncio.gather(*(pool.choose(v, "expert", samples=2, seed=0) for v in views(4)))
    pids = pool.pids()
    assert len(pids) == 2
    await pool.close()
    assert gone(pids)
    with pytest.raises(RuntimeError):
        await pool.choose(views(1)[0], "expert")


async def test_close_kills_a_hung_worker() -> None:
    pool = BotPool(1, job=hang, grace=30)
    task = asyncio.create_task(pool.choose(views(1)[0], "expert", budget=1.0))
    await until(pool.busy_pids)
    pids = pool.pids()
    await pool.close()
    assert gone(pids)
    assert (await task) in views(1)[0].legal
    assert pool.pids() == []  # no replacement once closed


async def test_a_worker_holds_none_of_the_servers_sockets_and_logs_through_it(
        caplog: pytest.LogCaptureFixture) -> None:
    view = views(1)[0]
    with socket.create_server(("127.0.0.1", 0)) as listener:  # as the server's SSH port
        port = f"socket:[{os.fstat(listener.fileno()).st_ino}]"
        async with BotPool(1, job=chatty) as pool:
            with caplog.at_level(logging.WARNING):
                assert await pool.choose(view, "expert", samples=2, seed=3) in view.legal
            pid = pool.pids()[0]
            held = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    assert port not in held
    assert f"no consistent deal for seat {view.seat} (bot worker {pid})" in caplog.messages


def pausing(request: Request) -> Action:
    """A worker job that says what budget it was given, then takes 0.4 s."""
    logging.getLogger("budget").warning("budget %.2f", request.budget or 0.0)
    time.sleep(0.4)
    return request.view.legal[0]


async def test_a_decision_that_waited_for_a_worker_thinks_for_what_is_left_of_its_budget(
        caplog: pytest.LogCaptureFixture) -> None:
    view = views(1)[0]
    async with BotPool(1, job=pausing) as pool:
        await pool.choose(view, "expert", budget=1.0)  # started and warm
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            await asyncio.gather(*(pool.choose(view, "expert", budget=1.0) for _ in range(3)))
        budgets = sorted(float(m.split()[1]) for m in caplog.messages if m.startswith("budget"))
        assert budgets[-1] == 1.0  # the first asked had the worker at once
        assert 0.5 <= budgets[1] <= 0.65  # the second waited 0.4 s for it
        assert budgets[0] == 0.25  # the third waited 0.8 s: a quarter is the least
        assert pool.longest_wait >= 0.8
