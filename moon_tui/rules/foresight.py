"""What a seat's own move will show it, worked out from its view before the table answers.

A player's screen answers their key at once, wherever the table runs: the view after
their own legal move follows from what they already know (their hand, what was bid and
played, the rules), except where the move reveals something (the widow the declarer
takes). `foresee` replays the hand so far through `GameState` (the one place the rules are
written) with the tiles the seat cannot see dealt in an arbitrary order, applies the move
and returns the seat's next view; it returns None whenever that view would show a tile the
seat could not see before, or the replay does not give back the view it started from. The
table's own view replaces the foreseen one when it arrives.
"""

from __future__ import annotations

from .actions import Action
from .illegal import IllegalActionError
from .state import HAND_SIZE, GameState
from .tiles import Tile, tile_set
from .view import Phase, SeatView

FORESEEN_KINDS = frozenset({"pass", "bid", "discard", "trump", "play"})
"""The moves worth foreseeing: all but a claim, which the table checks against every hand."""


def foresee(view: SeatView, action: Action) -> SeatView | None:
    """The view `view.seat` will have once the table applies its own `action`, or None
    when that cannot be known from `view` alone (or `action` is not legal now)."""
    if view.seat is None or not view.my_turn or action.kind not in FORESEEN_KINDS \
            or action not in view.legal:
        return None
    seen = _visible(view)
    try:
        state = _replayed(view, seen)
    except (ValueError, IllegalActionError):
        return None
    if state.view(view.seat) != view:
        return None  # the replay is not the game the seat sees: show nothing foreseen
    state.apply_action(action)
    after = state.view(view.seat)
    if not _visible(after) <= seen:
        return None  # the move reveals a tile (the widow): only the table can show it
    return after


def _visible(view: SeatView) -> set[Tile]:
    """Every tile `view` shows."""
    shown = {*view.hand, *view.played_tiles()}
    shown.update(t for t in (view.widow, view.discard) if t is not None)
    return shown


def _replayed(view: SeatView, seen: set[Tile]) -> GameState:
    """A game that agrees with everything `view` shows (`seen`: its tiles): the tiles its
    seat cannot see are dealt to whoever may hold them (no seat gets a suit it showed it
    lacks), the hand so far replayed through the rules."""
    rules = view.rules
    seat = view.seat
    assert seat is not None
    players = rules.players
    in_play = view.tricks_in_hand()
    played: list[set[Tile]] = [set() for _ in range(players)]
    for trick in in_play:
        for player, tile in trick.plays:
            played[player].add(tile)
    declarer = view.declarer
    took = view.widow_taken
    discarded = took and view.phase is not Phase.DISCARD
    # Who holds the tiles the seat cannot see, and how many each: the other seats, and the
    # widow while it lies face down, and the declarer's discard while it is not shown.
    # Once another seat took the widow and discarded, say it discarded the widow (it may
    # have): then the widow needs no place of its own.
    void = view.voids()
    holders = [(player, view.hand_sizes[player], void[player])
               for player in range(players) if player != seat]
    if rules.has_widow and not took:
        holders.append((_WIDOW, 1, 0))
    if discarded and view.discard is None:
        holders.append((_DISCARD, 1, 0))
    unseen = sorted(set(tile_set(rules.set)) - seen, key=lambda t: t.index)
    held = _dealt_out(unseen, holders)
    discard = None if not discarded else \
        view.discard if view.discard is not None else held[_DISCARD][0]
    if not rules.has_widow:
        widow = None
    elif not took:
        widow = held[_WIDOW][0]
    elif view.widow is not None:
        widow = view.widow  # the seat is the declarer
    elif discarded:
        widow = discard
    else:  # another seat took it and has not discarded yet: any tile it holds
        widow = held[declarer][0] if declarer is not None and held[declarer] else None
    deal: list[tuple[Tile, ...]] = []
    for player in range(players):
        dealt = (set(view.hand) if player == seat else set(held[player])) | played[player]
        if player == declarer and took:
            dealt = (dealt | {discard} if discard is not None else dealt) - {widow}
        if len(dealt) != HAND_SIZE:
            raise ValueError(f"seat {player} would have been dealt {len(dealt)} tiles")
        deal.append(tuple(dealt))
    state = GameState.resumed(rules, view.first_bidder, view.hand_number, view.scores,
                              view.results)
    state.deal_tiles(deal, widow)
    for _, action in view.bids:
        state.apply_action(action)
    while state.phase in (Phase.DISCARD, Phase.TRUMP):
        if state.phase is Phase.DISCARD and discard is not None:
            state.apply_action(Action.make_discard(discard))
        elif state.phase is Phase.TRUMP and view.trump is not None:
            state.apply_action(Action.make_trump(view.trump))
        else:
            break
    for trick in in_play:
        for _, tile in trick.plays:
            state.apply_action(Action.make_play(tile))
    return state


_WIDOW = -1
_DISCARD = -2
"""Holders of hidden tiles that are not seats."""


def _dealt_out(tiles: list[Tile], holders: list[tuple[int, int, int]]) -> dict[int, list[Tile]]:
    """Give each tile to a holder (`(who, how many, the mask of tiles it cannot hold)`)
    so that each gets exactly its number: a matching found by augmenting paths (Kuhn's),
    which always finds one when one exists (one does: the real deal)."""
    slots = [(who, barred) for who, count, barred in holders for _ in range(count)]
    if len(slots) != len(tiles):
        raise ValueError(f"{len(tiles)} hidden tiles for {len(slots)} places")
    slot_tile: list[int | None] = [None] * len(slots)

    def place(t: int, tried: set[int]) -> bool:
        bit = 1 << tiles[t].index
        for s, (_, barred) in enumerate(slots):
            if s in tried or barred & bit:
                continue
            tried.add(s)
            other = slot_tile[s]
            if other is None or place(other, tried):
                slot_tile[s] = t
                return True
        return False

    for t in range(len(tiles)):
        if not place(t, set()):
            raise ValueError(f"no seat may hold {tiles[t]}")
    held: dict[int, list[Tile]] = {who: [] for who, _, _ in holders}
    for (who, _), placed in zip(slots, slot_tile, strict=True):
        assert placed is not None
        held[who].append(tiles[placed])
    return held


__all__ = ["FORESEEN_KINDS", "foresee"]
