"""The text panels of the table screen, as pure functions of a view and its table.

Turn, trump and legality are marked with symbols and words as well as style, so the
table reads the same without colour (NO_COLOR, 16 colours, a monochrome terminal).
"""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text

from ..lobby.messages import GameFinished, TableInfo
from ..rules import TRUMP_DOUBLES, TRUMP_NONE, Phase, SeatView, Termination, Tile, Trick
from ..rules.tiles import tile_set
from .base import heading
from .dominoes import small_tile
from .words import (
    NAME_WIDTH,
    OPERATOR_MARK,
    bid_words,
    contract,
    points_words,
    result_words,
    score_words,
    seat_detail,
    seat_name,
    side_name,
    suit_led,
    trump_clause,
    trump_words,
    watcher_names,
)

TURN = "▶"
DECLARER = "★"


def header(view: SeatView | None, table: TableInfo, width: int = 80,
           names: int = NAME_WIDTH) -> Text:
    """The table's name, the hand, the contract and the target: parts that do not fit
    `width` are left out from the end, whole."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(" Moon ", style="bold reverse")
    text.append(f" {table.name}")
    if view is None:
        return text
    parts = [Text(f"hand {view.hand_number + 1}")]
    words = contract(view, table, names)
    if words:
        parts.append(Text(words, style="bold"))
    unit = "mark" if view.rules.scoring == "marks" else "point"
    if view.rules.target != 1:
        unit += "s"
    parts.append(Text(f"to {view.rules.target} {unit}"))
    for part in parts:
        if text.cell_len + 3 + part.cell_len > width:
            break
        text.append(" · ")
        text.append_text(part)
    return text


def bid_of(view: SeatView, seat: int) -> str:
    for s, action in view.bids:
        if s == seat:
            return "passed" if action.kind == "pass" else f"bid {bid_words(action)}"
    return ""


def seats_panel(view: SeatView, table: TableInfo, seconds_left: int | None,
                width: int = 29, names: int = NAME_WIDTH, waiting: bool = False,
                operators: Collection[str] = ()) -> Text:
    """Every seat: turn marker, name, who plays it, bid, tricks, timer, score. `waiting`:
    the table waits for the dropped player of the seat to move (no computer plays yet).

    Laid out to fit `width` cells with names cut to `names`: the first line holds the
    turn, the name and the timer, the second what the seat did this hand and its score
    (or team); who plays the seat goes after the name when it fits, else on a line of
    its own. Nothing is cut mid-word."""
    text = Text(no_wrap=True, overflow="ellipsis")
    rules = view.rules
    in_hand = view.phase in (Phase.BID, Phase.DISCARD, Phase.TRUMP, Phase.PLAY)
    for seat in range(rules.players):
        turn = view.to_move == seat and in_hand
        if seat:
            text.append("\n")
        line = Text()
        line.append(f"{TURN} " if turn else "  ", style="bold")
        line.append(seat_name(table, seat, names), style="bold" if turn else "")
        if table.seats[seat].name in operators:
            line.append(f" {OPERATOR_MARK}")
        if seat == view.seat:
            line.append(" (you)")
        if view.declarer == seat and in_hand:
            line.append(f" {DECLARER}")
        if turn and table.seats[seat].name is not None and seconds_left is not None:
            clock = f" {seconds_left}s left"
            if line.cell_len + len(clock) > width:
                clock = f" {seconds_left}s"
            line.append(clock, style="bold")
        detail = "away" if turn and waiting else seat_detail(table.seats[seat])
        if detail and line.cell_len + len(detail) + 3 <= width:
            line.append(f" ({detail})", style="italic")
            detail = ""
        text.append_text(line)
        if detail:
            text.append(f"\n  {detail}", style="italic")
        parts: list[str] = []
        if in_hand:
            bid = bid_of(view, seat)
            if bid:
                parts.append(bid)
            if view.phase is Phase.PLAY or view.tricks:
                won = view.tricks_won[seat]
                parts.append(f"{won} trick{'s' if won != 1 else ''}")
        if rules.players == 3:
            parts.append(score_words(view.scores[seat], rules))
        if rules.players == 4:
            parts.append(f"team {'AB'[rules.side_of(seat)]}")
        text.append("\n  " + fit_words(parts, width - 2))
    if rules.players == 4:
        text.append_text(team_lines(view, table, width, names))
    if table.spectators:
        text.append("\nWatching: ", style="bold")
        text.append(fit_words(watcher_names(table, names), width - 10))
    return text


def team_lines(view: SeatView, table: TableInfo, width: int, names: int) -> Text:
    """Each team's partners and score, both in the first form where both fit `width` with a
    space to spare (a line that touched the panel's border read as cut off)."""
    rules = view.rules
    forms: list[tuple[str, ...]] = []
    for side in range(2):
        letter, score = "AB"[side], view.scores[side]
        partners = side_name(rules, table, side, names)
        words = score_words(score, rules)
        forms.append((f"  team {letter} ({partners}): {words}",
                      f"  {letter} ({partners}): {words}",
                      f"  {letter} ({partners}): {score}",
                      f"  team {letter}: {words}"))
    chosen = next((form for form in range(3)
                   if all(len(lines[form]) < width for lines in forms)), 3)
    return Text("".join("\n" + lines[chosen] for lines in forms))


def fit_words(parts: list[str], width: int) -> str:
    """`parts` joined by ` · `, leaving out whole parts from the end that would not fit."""
    shown = list(parts)
    while len(shown) > 1 and len(" · ".join(shown)) > width:
        shown.pop()
    return " · ".join(shown)


def trick_lines(trick: Trick, view: SeatView, table: TableInfo, title: str,
                names: int = NAME_WIDTH) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(title, style="bold")
    winner = trick.winning_seat
    width = max(len(seat_name(table, seat, names)) for seat, _ in trick.plays) \
        if trick.plays else names
    for i, (seat, tile) in enumerate(trick.plays):
        text.append(f"\n{seat_name(table, seat, names):<{width}} {small_tile(tile)}")
        if i == 0:
            text.append(" led")
        if seat == winner:
            text.append(" ◀", style="bold")
    return text


def trick_ring(trick: Trick | None, view: SeatView, table: TableInfo, title: str,
               names: int, width: int) -> Text:
    """Four players around the table, as they sit: you at the bottom, your partner
    across, the opponents left and right, each with the tile they put in `trick`."""
    me = view.seat if view.seat is not None else 0
    in_hand = view.phase in (Phase.BID, Phase.DISCARD, Phase.TRUMP, Phase.PLAY)
    played = dict(trick.plays) if trick is not None else {}
    leader = trick.plays[0][0] if trick is not None and trick.plays else None
    winner = trick.winning_seat if trick is not None else None
    side = max(4, (width - 1) // 2)

    def label(seat: int) -> str:
        name = seat_name(table, seat, min(names, side))
        if seat == view.seat:
            return f"{name} (you)" if len(name) + 6 <= width else name
        if view.seat is not None and seat == (view.seat + 2) % 4 and len(name) + 10 <= width:
            return f"{name} (partner)"
        return name

    def tile(seat: int) -> str:
        if seat not in played:
            return f"{TURN} to play" if view.to_move == seat and in_hand else "·"
        words = small_tile(played[seat])
        if seat == leader:
            words += " led"
        if seat == winner:
            words += " ◀"
        return words

    left, across, right = (me + 1) % 4, (me + 2) % 4, (me + 3) % 4
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(title, style="bold")
    rows = [
        "",
        label(across).center(width).rstrip(),
        tile(across).center(width).rstrip(),
        "",
        (label(left).ljust(side) + label(right).rjust(width - side)).rstrip(),
        (tile(left).ljust(side) + tile(right).rjust(width - side)).rstrip(),
        "",
        tile(me).center(width).rstrip(),
        label(me).center(width).rstrip(),
    ]
    for row in rows:
        text.append("\n" + row)
    return text


def auction(view: SeatView, table: TableInfo, names: int = NAME_WIDTH,
            dealt: TableInfo | None = None) -> Text:
    """The order of speaking of the hand in play, its first bidder first: each seat numbered,
    with what it said (under the name of whoever was dealt in, `dealt`), the seat to speak
    marked and the last one named, so a player sees who speaks after them."""
    rules, said = view.rules, dict(view.bids)
    text = Text()
    for place in range(rules.players):
        seat = (view.first_bidder + place) % rules.players
        action = said.get(seat)
        speaker = (dealt or table) if action is not None else table
        line = Text(f"\n{place + 1}. {seat_name(speaker, seat, names)}")
        # One bracket for both (the panel is 24 cells at 80x24: "(you) ▶ (last)" wrapped).
        notes = ["you"] if seat == view.seat else []
        if view.phase is Phase.BID and action is None and place == rules.players - 1:
            notes.append("last")
        if notes:
            line.append(f" ({', '.join(notes)})")
        if action is not None:
            line.append(" passed" if action.kind == "pass" else f" bid {bid_words(action)}")
        elif view.phase is Phase.BID and view.to_move == seat:
            line.append(f" {TURN}", style="bold")
        text.append_text(line)
    return text


def centre_panel(view: SeatView, table: TableInfo, names: int = NAME_WIDTH,
                 ring_width: int | None = None, last: TableInfo | None = None,
                 dealt: TableInfo | None = None) -> Text:
    """The middle of the table. `ring_width`: with 4 players, draw the trick around the
    table in that many cells (None: as a list). `dealt`: the table as seated when this
    hand was dealt (the bids are told under the names of those who bid, as the hand's
    result will be; the plays under the names of who plays the seats now)."""
    if ring_width is not None and view.rules.players == 4 and view.phase is Phase.PLAY:
        current = view.current_trick
        if current is not None and current.plays:
            title = f"Trick {len(view.tricks) + 1}: {suit_led(current)}"
            trick: Trick | None = current
        elif view.last_trick is not None:
            done = view.last_trick
            won = seat_name(table, done.winner, names) if done.winner is not None else "?"
            title, trick = f"Trick {len(view.tricks)}: {won} took it", done
        else:
            title, trick = "Trick 1", None
        text = trick_ring(trick, view, table, title, names, ring_width)
        if view.trump is not None:
            clause = trump_clause(view.trump)
            text.append("\n\n" + (f"Trump: {trump_words(view.trump)}"
                                   if clause.startswith("trump") else clause.capitalize()))
        if view.discard is not None:
            text.append(f"\n{discard_words(view)}")
        return text
    return _centre_list(view, table, names, last, dealt or table)


def _centre_list(view: SeatView, table: TableInfo, names: int,
                 last: TableInfo | None, dealt: TableInfo) -> Text:
    """The middle of the table: bidding, widow and trump, the trick in play (or the last
    one, once a hand is over). `last`: the table as seated for the last hand over;
    `dealt`: as seated for this one."""
    rules = view.rules
    if view.phase is Phase.BID:
        text = heading("Bidding")
        text.append(f" · lowest bid {rules.min_bid}")
        text.append_text(auction(view, table, names, dealt))
        if view.results:
            text.append("\n\nLast hand:\n", style="bold")
            text.append(result_words(view.results[-1], rules, last or table))
        return text
    if view.phase in (Phase.DISCARD, Phase.TRUMP):
        text = heading(contract(view, dealt, names))
        assert view.declarer is not None
        who = seat_name(table, view.declarer)
        if view.phase is Phase.DISCARD:
            text.append(f"\n{who} takes the widow and discards one tile.")
        else:
            text.append(f"\n{who} is naming trump.")
            if view.discard is not None:
                text.append(f"\n{discard_words(view)}")
        text.append("\n\nBidding:", style="bold")
        text.append_text(auction(view, table, names, dealt))
        return text
    text = trick_panel(view, table, names)
    if view.discard is not None and view.phase is Phase.PLAY:
        # The declarer's own view holds its discard; every view does with discard_shown.
        text.append(f"\n\n{discard_words(view)}")
    return text


def discard_words(view: SeatView) -> str:
    """`Your discard: [5|3]` for the declarer, `Discard (face up): [5|3]` for the others."""
    assert view.discard is not None
    whose = "Your discard" if view.seat == view.declarer else "Discard (face up)"
    return f"{whose}: {small_tile(view.discard)}"


def trick_panel(view: SeatView, table: TableInfo, names: int = NAME_WIDTH) -> Text:
    current = view.current_trick
    if current is not None and current.plays:
        title = f"Trick {len(view.tricks) + 1}: {suit_led(current)}"
        return trick_lines(current, view, table, title, names)
    last = view.last_trick
    if last is not None:
        won = seat_name(table, last.winner, names) if last.winner is not None else "?"
        return trick_lines(last, view, table, f"Trick {len(view.tricks)}: {won} took it",
                           names)
    if view.phase is not Phase.PLAY:
        return Text("")
    text = heading("Trick 1")
    if view.trump is not None:
        text.append(f"\nTrump: {trump_words(view.trump)}")
    text.append("\n◀ marks who wins")
    return text


def _is_trump(tile: Tile, trump: int | None) -> bool:
    if trump is None or trump == TRUMP_NONE:
        return False
    return tile.is_double if trump == TRUMP_DOUBLES else tile.has(trump)


def _tiles(group: list[Tile]) -> str:
    ordered = sorted(group, key=lambda t: (t.high, t.low), reverse=True)
    return " ".join(small_tile(t) for t in ordered) or "–"


def trumps_out(view: SeatView) -> list[Tile] | None:
    """The trumps this seat has not seen (not played, not in its hand, not its discard),
    or None when the hand has no trump suit (not named yet, or no trump)."""
    trump = view.trump
    if trump is None or trump == TRUMP_NONE:
        return None
    seen = set(view.played_tiles()) | set(view.hand)
    if view.discard is not None:
        seen.add(view.discard)
    return [t for t in tile_set(view.rules.set) if _is_trump(t, trump) and t not in seen]


def trumps_out_line(view: SeatView, width: int) -> str:
    """`Trumps still out: 3 [6|6] [6|4] [6|1]`, the tiles only where they fit `width`."""
    out = trumps_out(view)
    if out is None:
        return ""
    count = f"Trumps still out: {len(out)}"
    whole = f"{count} {_tiles(out)}" if out else count
    return whole if len(whole) <= width else count


def played_panel(view: SeatView) -> Text:
    """What has been played this hand, by suit, and the trumps still out: the count a
    good player keeps in their head, from what this seat has seen."""
    text = heading("Played this hand")
    played = view.played_tiles()
    if not played and view.phase is not Phase.PLAY:
        text.append("\nnothing yet")
        return text
    trump = view.trump
    out = trumps_out(view)
    if trump is not None and out is not None:
        mine = [t for t in played if _is_trump(t, trump)]
        text.append(f"\ntrumps ({trump_words(trump)}): {_tiles(mine)}")
        text.append(f"\nstill out: {len(out)} trump{'s' if len(out) != 1 else ''}",
                    style="bold")
        if out:
            text.append(f" {_tiles(out)}")
    for suit in range(6, -1, -1):
        if trump == suit:
            continue
        group = [t for t in played if not _is_trump(t, trump) and t.has(suit)]
        if group:
            text.append(f"\n{suit}s: {_tiles(group)}")
    return text


def summary(view: SeatView, table: TableInfo, finished: GameFinished | None,
            last: TableInfo | None = None, seen: bool = True, names: int = NAME_WIDTH, *,
            solo: bool = False) -> Text:
    """Where the hand would be once your tiles are played: the last trick still being
    played, or what happened and the scores once the hand (or the game) is over.
    `last`: the table as seated for the last hand over (past hands keep their names)."""
    if view.outcome is not None:
        return game_over(view, table, finished, last, solo=solo)
    if view.phase is Phase.PLAY and view.to_move is not None:
        # My last tile is down but the last trick is not complete yet.
        who = seat_name(table, view.to_move, names)
        return Text(f"Your tiles are all played: waiting for {who} to finish the "
                    "last trick.")
    return hand_over(view, last or table, seen)


def hand_over(view: SeatView, table: TableInfo, seen: bool = True) -> Text:
    """The hand's result: the contract and whether it was made, tricks per side, points;
    `seen` False asks for the key that says the player has read it."""
    rules = view.rules
    text = heading(f"Hand {view.hand_number + 1} is over")
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
              last: TableInfo | None = None, *, solo: bool = False) -> Text:
    rules = view.rules
    text = heading("Game over: ")
    if view.outcome is not None:
        winner = side_name(rules, table, view.outcome.winner)
        text.append(f"{winner} win{'' if rules.players == 4 else 's'}"
                    f"{_WHY[view.outcome.reason]}!", style="bold")
    if view.results:
        text.append("\nLast hand: " + result_words(view.results[-1], rules, last or table))
    scores = finished.scores if finished is not None else view.scores
    text.append("\nFinal scores: " + points_words(scores, rules, table).replace("+", ""))
    votes = table.rematch_votes
    text.append("\n\nr: play again · q: quit or a new game" if solo else
                "\n\nr: rematch · q: leave the table")
    if votes:
        text.append("\nRematch asked by " + ", ".join(votes))
    return text
