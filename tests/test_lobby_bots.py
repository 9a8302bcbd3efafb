"""The lobby's computers think in the bot pool's worker processes: a game with an expert
plays through them, a worker killed mid-game does not stop it, and none outlives the lobby."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal

import pytest
from test_lobby import FAST, join, playing_like, running, table_with_bots

from moon_tui.lobby import GameFinished, MemoryRecordStore
from moon_tui.rules import Rules
from moon_tui.rules.replay import replay
from tests.support.processes import gone

pytestmark = pytest.mark.slow

SHORT_GAME = Rules.make(target=7)
EXPERTS = dataclasses.replace(FAST, bot_workers=1)


async def test_a_game_with_experts_plays_through_the_workers_and_none_is_left() -> None:
    store = MemoryRecordStore()
    seen: set[int] = set()
    async with running(EXPERTS, store=store) as (lobby, tg):
        ann = await join(lobby, tg, "ann", playing_like("normal", 1))
        await table_with_bots(ann, SHORT_GAME, level="expert")
        finished = asyncio.create_task(ann.wait_type(GameFinished, timeout=120))
        while not finished.done():
            seen.update(lobby.bots.pids())
            await asyncio.sleep(0.01)
        await finished
        assert len(seen) == 1 and lobby.bots.fallbacks == 0
    assert gone(list(seen))
    assert store.finished == [True]
    assert store.records[0]["seats"] == ["ann", "expert bot", "expert bot"]
    assert replay(store.records[0])["ok"]


async def test_a_worker_killed_mid_game_is_replaced_and_the_game_goes_on() -> None:
    store = MemoryRecordStore()
    async with running(EXPERTS, store=store) as (lobby, tg):
        ann = await join(lobby, tg, "ann", playing_like("normal", 2))
        await table_with_bots(ann, SHORT_GAME, level="expert")
        finished = asyncio.create_task(ann.wait_type(GameFinished, timeout=120))
        victims: list[int] = []
        while not victims:
            if busy := lobby.bots.busy_pids():
                os.kill(busy[0], signal.SIGKILL)
                victims.append(busy[0])
            await asyncio.sleep(0.002)
        await finished
        assert lobby.bots.fallbacks >= 1
        after = lobby.bots.pids()
        assert len(after) == 1 and victims[0] not in after
    assert gone(victims + after)
    assert store.finished == [True]
    assert replay(store.records[0])["ok"]


async def test_quick_computers_never_start_a_worker() -> None:
    async with running(FAST) as (lobby, tg):
        ann = await join(lobby, tg, "ann", playing_like("easy", 3))
        await table_with_bots(ann, SHORT_GAME, level="normal")
        await ann.wait_type(GameFinished, timeout=60)
        assert lobby.bots.pids() == []
