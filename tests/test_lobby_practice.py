"""Practice tables: one person with computer players, never rated nor saved; and a game
played on from a saved game's position (the record's decisions replayed up to there)."""

from __future__ import annotations

import random

from test_lobby import FAST, join, running
from test_lobby_core import sent

from moon_tui.lobby import CreateTable, MemoryRecordStore, Refusal, Rejected, TableUpdate
from moon_tui.lobby.core import TableState
from moon_tui.lobby.effects import StoreRecord
from moon_tui.lobby.internal import BotMoved, FromMember, ToMember
from moon_tui.lobby.journal import MemoryJournal
from moon_tui.lobby.messages import Act, JoinSeat, PlayOn
from moon_tui.lobby.restoring import read_saved
from moon_tui.lobby.writing import TableWriter
from moon_tui.rules import GameState, Phase, Rules
from moon_tui.rules.record import as_record, dumps_record, record_of
from moon_tui.rules.timeline import Timeline


def played(seed: int, decisions: int) -> GameState:
    """A game of three from `seed`, `decisions` legal moves into it."""
    rng = random.Random(seed)
    game = GameState.new_game(Rules.make(), rng)
    for _ in range(decisions):
        if game.current_player() < 0:
            game.deal(rng)
        game.apply_action(rng.choice(game.legal_actions()))
    return game


def cut(game: GameState) -> str:
    return dumps_record(record_of(game, ("x", "y", "z")))


def play_on_table(record: str, seat: int, **options: object) -> TableState:
    create = CreateTable("p", Rules.make(), play_on=PlayOn(record, seat, "normal"),
                         **options)  # type: ignore[arg-type]
    return TableState("t1", "ann", create, invite_code="ABCDEF", config=FAST, seed=1)


def test_play_on_starts_at_the_exact_decision_with_ann_in_the_seat_she_chose() -> None:
    game = played(seed=5, decisions=9)  # mid-trick: the auction, trump and a lead are done
    assert game.phase is Phase.PLAY and game.current_trick is not None
    core = play_on_table(cut(game), seat=2)
    effects = core.begin(0.0)
    assert core.status == "playing" and core.practice
    assert core.game is not None and core.game is not game
    assert [core.game.hand_of(s) for s in range(3)] == [game.hand_of(s) for s in range(3)]
    assert core.game.current_trick == game.current_trick and core.game.bids == game.bids
    assert [s.name for s in core.seating.seats] == [None, None, "ann"]
    assert [s.bot_level for s in core.seating.seats] == ["normal", "normal", None]
    update = next(o.event for o in sent(effects) if isinstance(o, ToMember)
                  and isinstance(o.event, TableUpdate))
    assert update.seat == 2 and update.table.practice and not update.table.rated
    assert update.view is not None and update.view.hand == game.view(2).hand


def test_a_second_person_may_not_sit_at_a_practice_table() -> None:
    create = CreateTable("p", Rules.make(), practice=True)
    core = TableState("t1", "ann", create, invite_code="ABCDEF", config=FAST, seed=1)
    core.begin(0.0)
    _, effects = core.handle(FromMember("bob", JoinSeat("t1", 1)), 1.0)
    refused = [o.event for o in sent(effects) if isinstance(o, ToMember)]
    assert len(refused) == 1 and isinstance(refused[0], Rejected)
    assert refused[0].code is Refusal.PRACTICE_ALONE
    assert core.seating.seat_of("bob") is None


def test_a_practice_game_played_to_its_end_is_not_saved() -> None:
    # The last trick of a finished game: four decisions from the end.
    rng = random.Random(2)
    game = GameState.new_game(Rules.make(target=3), rng)
    while not game.is_terminal():
        if game.current_player() < 0:
            game.deal(rng)
        game.apply_action(rng.choice(game.legal_actions()))
    timeline = Timeline(as_record(record_of(game, ("x", "y", "z"))))
    start = timeline.state(timeline.last - 2).clone()
    mine = start.current_player()
    core = play_on_table(cut(start), seat=mine)
    effects = core.begin(0.0)
    assert core.game is not None
    while not core.game.is_terminal():
        seat = core.game.current_player()
        action = core.game.legal_actions()[0]
        message = FromMember("ann", Act("t1", action)) if seat == mine \
            else BotMoved(core.generation, seat, action, False)
        effects += core.handle(message, 1.0)[1]
    assert core.status == "finished"
    assert not [e for e in effects if isinstance(e, StoreRecord)], "practice is not saved"


async def test_the_lobby_refuses_a_rated_practice_table_and_a_position_past_the_end() -> None:
    async with running(FAST, MemoryRecordStore()) as (lobby, tg):
        ann = await join(lobby, tg, "ann")
        ann.handle.send(CreateTable("p", Rules.make(), practice=True, rated=True))
        refused = await ann.wait_type(Rejected)
        assert refused.code is Refusal.PRACTICE_NOT_RATED
        rng = random.Random(4)
        over = GameState.new_game(Rules.make(target=2), rng)
        while not over.is_terminal():
            if over.current_player() < 0:
                over.deal(rng)
            over.apply_action(rng.choice(over.legal_actions()))
        mark = ann.mark()
        ann.handle.send(CreateTable("p", play_on=PlayOn(cut(over), 0)))
        refused = await ann.wait_type(Rejected, start=mark)
        assert refused.code is Refusal.BAD_PLAY_ON and refused.params == {"why": "over"}
        mark = ann.mark()
        ann.handle.send(CreateTable("p", play_on=PlayOn("{not a record", 0)))
        refused = await ann.wait_type(Rejected, start=mark)
        assert (refused.code, refused.params) == (Refusal.BAD_PLAY_ON, {"why": "illegal"})
        mark = ann.mark()
        ann.handle.send(CreateTable("p", play_on=PlayOn(cut(played(seed=5, decisions=9)), 3)))
        refused = await ann.wait_type(Rejected, start=mark)
        assert refused.params == {"why": "seat", "seat": 3, "players": 3}


async def test_a_play_on_table_comes_back_after_a_restart_still_a_practice_table() -> None:
    game = played(seed=5, decisions=9)
    core = play_on_table(cut(game), seat=1)
    core.begin(0.0)
    journal = MemoryJournal()
    await TableWriter("t1", journal).write(core)
    (saved,) = await journal.load()
    restored = read_saved(saved)
    assert restored.create.practice and not restored.create.rated
    assert restored.state is not None and restored.state.current_trick == game.current_trick
    again = TableState("t1", restored.owner, restored.create, invite_code="ABCDEF",
                       config=FAST, seed=2)
    again.restore(restored, 1.0)
    assert again.practice and again.infos()[0].practice
    assert not again.recorder.kept, "its game is still not saved"
