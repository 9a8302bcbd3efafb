"""A table's turns on a clock the test moves: a dropped player's turn waits for them, the
turn timer passes in the auction, the finished trick stays in view."""

from __future__ import annotations

import dataclasses

from manual_clock import ManualClock
from test_lobby import FAST, LONG_GAME, join, running, table_with_bots

from moon_tui.lobby import HandSeen, Notice, Resync, TableUpdate
from moon_tui.lobby.notices import Tell
from moon_tui.rules import Action, Phase, Rules, SeatView
from tools.client import Client, first_legal

WAITING = dataclasses.replace(FAST, bot_delay=1, timer_scale=1, reconnect_wait_seconds=30,
                              grace_seconds=120)


def bobs_turn(update: TableUpdate) -> bool:
    return update.view is not None and update.view.to_move == 1 and (
        update.view.phase is Phase.BID)


def bob_spoke(update: TableUpdate) -> bool:
    return update.view is not None and any(seat == 1 for seat, _ in update.view.bids)


def bob_passed(update: TableUpdate) -> bool:
    """Bob passed in this hand or in one before it (a hand all passed is dealt again)."""
    view = update.view
    return view is not None and (1, Action.make_pass()) in view.bids + tuple(
        b for r in view.results for b in r.bids)


def passing(view: SeatView) -> Action | None:
    """Passes whenever it may; otherwise leaves the turn to the timer."""
    return Action.make_pass() if Action.make_pass() in view.legal else None


async def settled(client: Client, table_id: str) -> TableUpdate:
    """The table's state once it has handled everything posted before now."""
    mark = client.mark()
    client.handle.send(Resync(table_id))
    return await client.wait_type(TableUpdate, start=mark)


async def test_a_dropped_players_turn_waits_for_them_and_goes_back_to_them() -> None:
    clock = ManualClock()
    async with running(WAITING, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", passing)
        bob = await join(lobby, tg, "bob")
        cy = await join(lobby, tg, "cy", passing)
        table_id = await table_with_bots(ann, LONG_GAME, humans=(bob, cy))
        await bob.wait_type(TableUpdate, bobs_turn)
        await bob.handle.close()
        away = await ann.wait_type(TableUpdate, lambda u: u.table.seats[1].away)
        assert bobs_turn(away) and away.reconnect_left == 30 and away.turn_left is None
        clock.advance(25)
        now = await settled(ann, table_id)
        assert now.reconnect_left == 5 and not bob_spoke(now), "no computer bid for bob"
        assert not now.table.seats[1].stood_in, "his seat reads away, not a computer's"
        bob = await join(lobby, tg, "bob")
        back = await bob.wait_type(TableUpdate)
        assert bobs_turn(back) and back.view is not None and back.view.my_turn
        assert back.reconnect_left is None and not back.table.seats[1].away
        clock.advance(600)
        assert not bob_spoke(await settled(ann, table_id)), "the decision is bob's again"
        mark = ann.mark()
        await bob.handle.close()
        await ann.wait_type(TableUpdate, lambda u: u.table.seats[1].away
                            and u.reconnect_left == 30, start=mark)
        clock.advance(30)  # the wait is over: the computer passes for him
        passed = await ann.wait_type(TableUpdate, bob_passed)
        assert passed.table.seats[1].away and passed.table.seats[1].stood_in


async def test_the_turn_timer_counts_only_while_you_are_there_and_passes_for_you() -> None:
    clock = ManualClock()
    async with running(WAITING, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", passing)
        bob = await join(lobby, tg, "bob")
        cy = await join(lobby, tg, "cy", passing)
        table_id = await table_with_bots(ann, LONG_GAME, humans=(bob, cy), turn_seconds=40)
        turn = await bob.wait_type(TableUpdate, bobs_turn)
        assert turn.turn_left == 40
        clock.advance(20)
        await bob.handle.close()
        away = await ann.wait_type(TableUpdate, lambda u: u.table.seats[1].away)
        assert (away.turn_left, away.reconnect_left) == (None, 30), "an absent turn waits"
        clock.advance(10)
        bob = await join(lobby, tg, "bob")
        back = await bob.wait_type(TableUpdate)
        assert back.turn_left == 40, "the timer starts again when he is back"
        mark = bob.mark()
        clock.advance(40)
        told = await bob.wait_type(Notice, start=mark)
        assert (told.code, told.level) == (Tell.TIMED_OUT_PASSED, "warning")
        assert bob_passed(await settled(ann, table_id))


async def test_a_timer_running_out_on_a_forced_bid_bids_the_least() -> None:
    clock = ManualClock()
    rules = Rules.make(target=60, moon_wins_game=False, all_pass="force_last")
    async with running(WAITING, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", passing)
        bob = await join(lobby, tg, "bob", passing)
        cy = await join(lobby, tg, "cy", passing)
        await table_with_bots(ann, rules, humans=(bob, cy), turn_seconds=10)
        forced = await ann.wait_type(TableUpdate, lambda u: u.view is not None
                                     and len(u.view.bids) == 2)
        assert forced.view is not None and forced.view.to_move is not None
        last = (ann, bob, cy)[forced.view.to_move]
        mark = last.mark()
        clock.advance(10)
        told = await last.wait_type(Notice, start=mark)
        assert (told.code, told.params) == (Tell.TIMED_OUT_BID, {"bid": rules.min_bid})
        bid = await last.wait_type(TableUpdate, lambda u: u.view is not None
                                   and u.view.declarer == forced.view.to_move, start=mark)
        assert bid.view is not None and bid.view.bid == rules.min_bid


def progress(view: SeatView | None) -> tuple[object, ...]:
    assert view is not None
    return (view.hand_number, view.phase, len(view.bids), view.trump, len(view.played_tiles()))


async def test_a_finished_trick_stays_in_view_before_a_computer_leads() -> None:
    clock = ManualClock()
    config = dataclasses.replace(FAST, bot_delay=0.1, trick_pause=1.5, timer_scale=1)
    async with running(config, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", first_legal)
        table_id = await table_with_bots(ann, LONG_GAME)
        for _ in range(300):
            latest = ann.of_type(TableUpdate)[-1]
            view = latest.view
            assert view is not None
            before = progress(view)
            mark = ann.mark()
            if view.to_move not in (None, 0):
                trick = view.current_trick
                if trick is not None and not trick.plays and view.tricks:
                    await settled(ann, table_id)
                    assert clock.next_in() == 1.5, "the computer waits before it leads"
                    clock.advance(1.4)
                    still = await settled(ann, table_id)
                    assert progress(still.view) == progress(view), "the trick stays"
                    mark = ann.mark()
                    clock.advance(0.1)
                    led = await ann.wait_type(TableUpdate, lambda u, p=before: progress(u.view)
                                              != p, start=mark)
                    assert led.view is not None and led.view.current_trick is not None
                    assert len(led.view.current_trick.plays) == 1
                    return
                clock.advance(0.1)
            await ann.wait_type(TableUpdate, lambda u, p=before: progress(u.view) != p,
                                start=mark)
        raise AssertionError("no computer led a trick")


async def test_a_hands_result_stays_until_every_player_has_read_it() -> None:
    clock = ManualClock()
    config = dataclasses.replace(FAST, hand_pause=2, hand_result_seconds=10)
    async with running(config, clock=clock) as (lobby, tg):
        ann = await join(lobby, tg, "ann", first_legal)
        bob = await join(lobby, tg, "bob", first_legal)
        table_id = await table_with_bots(ann, LONG_GAME, humans=(bob,))

        def over(update: TableUpdate) -> bool:
            return update.view is not None and update.view.phase is Phase.DEAL

        for reader in ("nobody", "ann and bob"):
            ended = await ann.wait_type(TableUpdate, over, start=ann.mark(), timeout=20)
            assert ended.view is not None
            hand = ended.view.hand_number
            await settled(ann, table_id)
            assert clock.next_in() == 10, "the result waits for its readers"
            mark = ann.mark()
            if reader == "nobody":
                clock.advance(9.9)
                assert over(await settled(ann, table_id))
                clock.advance(0.1)
            else:
                ann.handle.send(HandSeen(table_id, hand))
                assert over(await settled(ann, table_id)), "bob has not read it yet"
                bob.handle.send(HandSeen(table_id, hand))
            dealt = await ann.wait_type(TableUpdate, lambda u: not over(u), start=mark)
            assert dealt.view is not None and dealt.view.hand_number == hand + 1
