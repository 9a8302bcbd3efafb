"""The first lesson's words: what to do now at the table, and why, from the seat's view.

A pure function of the view (and the seats' names), so the lesson follows whatever the
learner really does: it says what the table waits for, never what it expected.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import MOON, SUIT_TRUMP, TRUMP_DOUBLES, TRUMP_NONE, Phase, SeatView, Tile
from ..rules.tiles import FOLLOW, IS_TRUMP, mask_of
from .words import number_bids, trump_words

FINISH = "Enter: finish the lesson and go to the lobby."
"""What the last step offers (a lesson played alone with `moon --lesson` says its own)."""


def lesson_step(view: SeatView, names: Sequence[str], finish: str = FINISH) -> str:
    """The lesson's text for this moment of the hand, as seen from the learner's seat."""
    if view.seat is None:
        return ""
    if view.phase is Phase.BID:
        return _bidding(view, names)
    if view.phase is Phase.DISCARD:
        return _widow(view, names)
    if view.phase is Phase.TRUMP:
        return _trump(view, names)
    if view.phase is Phase.PLAY:
        return _play(view, names)
    if view.results:
        return _score(view, names, finish)
    return "The tiles are being dealt…"


def _name(names: Sequence[str], seat: int, me: int | None) -> str:
    return "you" if seat == me else (names[seat] if seat < len(names) else f"seat {seat + 1}")


def _best_suit(hand: Sequence[Tile]) -> tuple[int, int]:
    """The number with the most tiles in `hand` (the double breaks a tie) and its count."""
    mask = mask_of(hand)

    def strength(number: int) -> tuple[int, bool, int]:
        return ((IS_TRUMP[number] & mask).bit_count(), Tile.of(number, number) in hand,
                number)

    best = max(range(7), key=strength)
    return best, strength(best)[0]


def _bidding(view: SeatView, names: Sequence[str]) -> str:
    me = view.seat
    said = "; ".join(f"{_name(names, s, me)}: {'pass' if a.kind == 'pass' else a.bid}"
                     for s, a in view.bids)
    if not view.my_turn:
        who = _name(names, view.to_move or 0, me)
        lead = "Your first hand of Moon! " if not view.bids else f"Bids: {said}. "
        return (f"{lead}Bidding first: each player speaks once, in turn. {who} is "
                "thinking…")
    best, count = _best_suit(view.hand)
    bids = number_bids(view.legal)
    intro = ("Your first hand of Moon!\nEach number is a suit: 6-4 is a 6 and a 4; a "
             "double, 6-6, only a 6.\n") if not view.bids else f"Bids: {said}.\n"
    if not bids:
        return intro + "Someone bid higher than you could: press p to pass."
    low = bids[0]
    if count >= 4 and low <= count:
        double = Tile.of(best, best)
        top = f" with the {double}" if double in view.hand else ""
        advice = f"You hold {count} {best}s{top}: strong. Press {low} to bid {low}."
    else:
        advice = "Your hand is weak: press p to pass."
    return (intro + "Bid how many of the 7 tricks you will take with the trump of your "
            f"choice. The highest bid wins.\n{advice}")


def _widow(view: SeatView, names: Sequence[str]) -> str:
    if not view.my_turn:
        who = _name(names, view.to_move or 0, view.seat)
        return (f"{who} won the bidding: the declarer. They take the widow, the tile left "
                "over, and lay one tile away.")
    best, _ = _best_suit(view.hand)
    spare = [t for t in view.hand if not t.has(best) and not t.is_double]
    hint = f" {min(spare, key=lambda t: (t.high, t.low))} is a good one." if spare else ""
    return ("You won the bidding: you are the declarer.\n\nThe widow (W), the tile left "
            "over, is now yours: 8 tiles. Lay one away: not a trump-to-be, a low tile of "
            f"its own.{hint} Choose it with ←→ Enter or its digit.")


def _trump(view: SeatView, names: Sequence[str]) -> str:
    if not view.my_turn:
        who = _name(names, view.to_move or 0, view.seat)
        return (f"{who} names trump: a number whose tiles beat all others. Then "
                "the declarer leads.")
    best, count = _best_suit(view.hand)
    return ("Name trump: every tile showing that number becomes a trump and beats any "
            "other tile. The row below counts your trumps for each choice.\n\n"
            f"You hold {count} {best}s: press {best}.")


def _tricks(view: SeatView, names: Sequence[str]) -> str:
    won = ", ".join(f"{_name(names, s, view.seat)} {n}" for s, n in enumerate(view.tricks_won))
    target = ""
    if view.declarer is not None and view.bid is not None:
        need = view.bid if view.bid != MOON else 7
        mine = view.declarer == view.seat
        target = f" ({_name(names, view.declarer, view.seat)} need{'' if mine else 's'} {need})"
    return f"Tricks: {won}{target}."


def _play(view: SeatView, names: Sequence[str]) -> str:
    me = view.seat
    trick = view.current_trick
    last = view.last_trick
    parts: list[str] = []
    if (trick is None or not trick.plays) and last is not None and last.winner is not None:
        win_tile = next(t for s, t in last.plays if s == last.winner)
        parts.append(f"{_name(names, last.winner, me).capitalize()} took the trick with "
                     f"{win_tile}: the highest trump wins, else the highest of the suit "
                     "led.")
    if not view.my_turn:
        who = _name(names, view.to_move or 0, me)
        parts.append(f"{who.capitalize()} to play.")
        parts.append(_tricks(view, names))
        return "\n\n".join(parts)
    trump = view.trump if view.trump is not None else TRUMP_NONE
    if trick is None or not trick.plays:
        if not view.tricks:
            parts.append("Play: the declarer leads the first trick, any tile.")
        else:
            parts[-1:] = [parts[-1] + " The winner leads next."] if parts else []
        trumps = [t for t in view.hand if IS_TRUMP[trump] & mask_of([t])]
        if trumps:
            top = max(trumps, key=lambda t: (t.is_double, t.high if trump == TRUMP_DOUBLES
                                             else t.other_end(trump)))
            parts.append(f"Leading trumps draws out the others': your {top} is your "
                         "highest.")
        else:
            strong = max(view.hand, key=lambda t: (t.is_double, t.high, t.low))
            parts.append(f"No trumps left in your hand: lead your strongest tile, your "
                         f"{strong} (a double is the highest of its suit).")
        return "\n\n".join(parts)
    suit = trick.suit_led
    first = trick.plays[0]
    led = "trumps" if suit == SUIT_TRUMP else f"{suit}s"
    parts.append(f"{_name(names, first[0], me).capitalize()} led {first[1]}: {led} led.")
    if suit is not None and FOLLOW[trump][suit] & mask_of(view.hand):
        parts.append(f"You must follow {led}: the tiles you may play have a solid border "
                     "and a digit.")
    else:
        trumps = [t for t in view.hand if IS_TRUMP[trump] & mask_of([t])]
        if trumps and suit != SUIT_TRUMP:
            low = min(trumps, key=lambda t: (t.is_double, t.high + t.low))
            parts.append(f"You have no {led}: play any tile. A trump "
                         f"({trump_words(trump)}) beats them: your {low}, your lowest.")
        else:
            low = min(view.hand, key=lambda t: (t.is_double, t.high + t.low))
            parts.append(f"You have no {led}: play any tile. You cannot win it: throw "
                         f"a low one, your {low}.")
    if trick.winning_seat is not None:
        parts.append(f"{_name(names, trick.winning_seat, me).capitalize()} "
                     f"{'are' if trick.winning_seat == me else 'is'} winning it so far.")
    return "\n\n".join(parts)


def _score(view: SeatView, names: Sequence[str], finish: str) -> str:
    result = view.results[-1]
    me = view.seat
    if result.redeal or result.declarer is None or result.bid is None:
        return "Everybody passed: the hand is dealt again."
    who = _name(names, result.declarer, me)
    took = result.tricks_won[result.declarer]
    verdict = "made the bid" if result.made else "fell short"
    points = ", ".join(f"{_name(names, s, me)} {p:+d}" for s, p in enumerate(result.points))
    return (f"{who.capitalize()} bid {result.bid} and took {took} tricks: {verdict}.\n"
            "A made bid scores the bid, a failed one costs it; the others score 1 a "
            f"trick. This hand: {points}. First to {view.rules.target} wins.\n"
            f"You know the game now!\n{finish}")
