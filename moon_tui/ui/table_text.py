"""The text panels of the table screen, as pure functions of a view and its table.

Turn, trump and legality are marked with symbols and words as well as style, so the
table reads the same without colour (NO_COLOR, 16 colours, a monochrome terminal).
"""

from __future__ import annotations

from rich.text import Text

from ..lobby.messages import GameFinished, TableInfo
from ..rules import Phase, SeatView, Termination, Trick
from .dominoes import small_tile
from .words import (
    bid_words,
    contract,
    points_words,
    result_words,
    seat_detail,
    seat_name,
    side_name,
    suit_led,
    trump_words,
)

TURN = "▶"
DECLARER = "★"


def header(view: SeatView | None, table: TableInfo) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(" Moon ", style="bold reverse")
    text.append(f" {table.name}")
    if view is None:
        return text
    text.append(f" · hand {view.hand_number + 1}")
    words = contract(view, table)
    if words:
        text.append(" · ")
        text.append(words, style="bold")
    unit = "mark" if view.rules.scoring == "marks" else "point"
    if view.rules.target != 1:
        unit += "s"
    text.append(f" · to {view.rules.target} {unit}")
    return text


def bid_of(view: SeatView, seat: int) -> str:
    for s, action in view.bids:
        if s == seat:
            return "passed" if action.kind == "pass" else f"bid {bid_words(action)}"
    return ""


def seats_panel(view: SeatView, table: TableInfo, seconds_left: int | None,
                waiting: bool = False) -> Text:
    """Every seat: turn marker, name, who plays it, bid, tricks, timer, score. `waiting`:
    the table waits for the dropped player of the seat to move (no computer plays yet)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    rules = view.rules
    in_hand = view.phase in (Phase.BID, Phase.DISCARD, Phase.TRUMP, Phase.PLAY)
    for seat in range(rules.players):
        turn = view.to_move == seat and in_hand
        if seat:
            text.append("\n")
        text.append(f"{TURN} " if turn else "  ", style="bold")
        name = seat_name(table, seat)
        text.append(name, style="bold" if turn else "")
        if seat == view.seat:
            text.append(" (you)")
        if view.declarer == seat and in_hand:
            text.append(f" {DECLARER}")
        detail = "away" if turn and waiting else seat_detail(table.seats[seat])
        if detail:
            text.append(f" ({detail})", style="italic")
        parts: list[str] = []
        if in_hand:
            bid = bid_of(view, seat)
            if bid:
                parts.append(bid)
            if view.phase is Phase.PLAY or view.tricks:
                won = view.tricks_won[seat]
                parts.append(f"{won} trick{'s' if won != 1 else ''}")
            if turn and table.seats[seat].name is not None and seconds_left is not None:
                parts.append(f"{seconds_left}s left")
        if rules.players == 3:
            parts.append(f"{view.scores[seat]} pts")
        if rules.players == 4:
            parts.append(f"team {'AB'[rules.side_of(seat)]}")
        text.append("\n  " + " · ".join(parts))
    if rules.players == 4:
        for side in range(2):
            text.append(f"\n  team {'AB'[side]} {side_name(rules, table, side)}: "
                        f"{view.scores[side]}")
    if table.spectators:
        text.append("\nWatching: ", style="bold")
        text.append(", ".join(table.spectators))
    return text


def trick_lines(trick: Trick, view: SeatView, table: TableInfo, title: str) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(title, style="bold")
    winner = trick.winning_seat
    for i, (seat, tile) in enumerate(trick.plays):
        text.append(f"\n{seat_name(table, seat)[:8]:<8} {small_tile(tile)}")
        if i == 0:
            text.append(" led")
        if seat == winner:
            text.append(" ◀", style="bold")
    return text


def auction(view: SeatView, table: TableInfo) -> Text:
    """The bids of the hand in play, in the order they were spoken."""
    text = Text()
    for seat, action in view.bids:
        said = "passed" if action.kind == "pass" else f"bid {bid_words(action)}"
        text.append(f"\n{seat_name(table, seat)} {said}")
    return text


def centre_panel(view: SeatView, table: TableInfo, last: TableInfo | None = None) -> Text:
    """The middle of the table: bidding, widow and trump, the trick in play (or the last
    one, once a hand is over). `last`: the table as seated for the last hand over."""
    rules = view.rules
    if view.phase is Phase.BID:
        text = Text("Bidding", style="bold")
        text.append(f"\nLowest bid {rules.min_bid}")
        text.append_text(auction(view, table))
        if view.results:
            text.append("\n\nLast hand:\n", style="bold")
            text.append(result_words(view.results[-1], rules, last or table))
        return text
    if view.phase in (Phase.DISCARD, Phase.TRUMP):
        text = Text(contract(view, table), style="bold")
        assert view.declarer is not None
        who = seat_name(table, view.declarer)
        if view.phase is Phase.DISCARD:
            text.append(f"\n{who} takes the widow and discards one tile.")
        else:
            text.append(f"\n{who} is naming trump.")
            if view.discard is not None:
                text.append(f"\n{discard_words(view)}")
        text.append("\n\nBidding:", style="bold")
        text.append_text(auction(view, table))
        return text
    text = trick_panel(view, table)
    if view.discard is not None and view.phase is Phase.PLAY:
        # The declarer's own view holds its discard; every view does with discard_shown.
        text.append(f"\n\n{discard_words(view)}")
    return text


def discard_words(view: SeatView) -> str:
    """`Your discard: [5|3]` for the declarer, `Discard (face up): [5|3]` for the others."""
    assert view.discard is not None
    whose = "Your discard" if view.seat == view.declarer else "Discard (face up)"
    return f"{whose}: {small_tile(view.discard)}"


def trick_panel(view: SeatView, table: TableInfo) -> Text:
    current = view.current_trick
    if current is not None and current.plays:
        title = f"Trick {len(view.tricks) + 1}: {suit_led(current)}"
        return trick_lines(current, view, table, title)
    last = view.last_trick
    if last is not None:
        won = seat_name(table, last.winner) if last.winner is not None else "?"
        return trick_lines(last, view, table, f"Trick {len(view.tricks)}: {won} took it")
    if view.phase is not Phase.PLAY:
        return Text("")
    text = Text("Trick 1", style="bold")
    if view.trump is not None:
        text.append(f"\nTrump: {trump_words(view.trump)}")
    text.append("\n◀ marks who wins")
    return text


def summary(view: SeatView, table: TableInfo, finished: GameFinished | None,
            last: TableInfo | None = None, seen: bool = True) -> Text:
    """Where the hand would be, once a hand or the game is over: what happened, scores.
    `last`: the table as seated for the last hand over (past hands keep their names)."""
    if view.outcome is not None:
        return game_over(view, table, finished, last)
    return hand_over(view, last or table, seen)


def hand_over(view: SeatView, table: TableInfo, seen: bool = True) -> Text:
    """The hand's result: the contract and whether it was made, tricks per side, points;
    `seen` False asks for the key that says the player has read it."""
    rules = view.rules
    text = Text(f"Hand {view.hand_number + 1} is over", style="bold")
    if view.results:
        result = view.results[-1]
        text.append("\n" + result_words(result, rules, table))
        if not result.redeal:
            tricks = [sum(n for seat, n in enumerate(result.tricks_won)
                          if rules.side_of(seat) == side) for side in range(rules.sides)]
            text.append("\nTricks: " + ", ".join(
                f"{side_name(rules, table, side)} {n}" for side, n in enumerate(tricks)))
            text.append("\nThis hand: " + points_words(result.points, rules, table))
        text.append("\nScores: " + points_words(result.scores, rules, table)
                    .replace("+", ""))
    if seen:
        text.append("\n\nThe next hand is being dealt…")
    else:
        text.append("\n\nEnter: on to the next hand", style="bold")
    return text


_WHY: dict[Termination, str] = {
    Termination.MOON: " by shooting the moon",
    Termination.TIE_BREAK: " (the bidder goes out)",
    Termination.TARGET: "",
}


def game_over(view: SeatView, table: TableInfo, finished: GameFinished | None,
              last: TableInfo | None = None) -> Text:
    rules = view.rules
    text = Text("Game over: ", style="bold")
    if view.outcome is not None:
        winner = side_name(rules, table, view.outcome.winner)
        text.append(f"{winner} win{'' if rules.players == 4 else 's'}"
                    f"{_WHY[view.outcome.reason]}!", style="bold")
    if view.results:
        text.append("\nLast hand: " + result_words(view.results[-1], rules, last or table))
    scores = finished.scores if finished is not None else view.scores
    text.append("\nFinal scores: " + points_words(scores, rules, table).replace("+", ""))
    votes = table.rematch_votes
    text.append("\n\nr: rematch · q: leave the table")
    if votes:
        text.append("\nRematch asked by " + ", ".join(votes))
    return text
