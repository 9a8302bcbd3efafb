"""The match report of a replayed game: what `moon-rules replay` prints without --json.

Written to be read like a match report: hand by hand, the deal, who bid what, the declarer's
widow and discard, the trump, each trick with its leader and winner, made or set, the points
and the running score, and at the end the winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ..shown import shown
from .options import MOON, Rules
from .record import IllegalRecordError, Record, RecordFormatError
from .replay import GameReplay, HandReplay, replay_game
from .seat_changes import SeatChange, player_at
from .tiles import TRUMP_DOUBLES, TRUMP_NONE
from .view import Termination

__all__ = ["RecordFormatError", "render_report", "trump_phrase", "write_report"]


def trump_phrase(trump: int) -> str:
    if trump == TRUMP_DOUBLES:
        return "doubles"
    if trump == TRUMP_NONE:
        return "none (follow-me)"
    return f"{trump}s"


def _bid_word(bid: int | None) -> str:
    if bid is None:
        return "pass"
    return "the moon (21)" if bid == MOON else str(bid)


WHY_SHOWN = {"away": "its player is away", "back": "its player is back",
             "left": "its player left", "kicked": "its player was kicked",
             "timeout": "the turn timer ran out", "joined": "took the computer's seat"}
"""The reasons of `seat_changes` (RECORD.md), as the report says them."""

NAME_SHOWN_MAX = 80
"""Characters a seat name takes in the report, escapes included (names are 16 at most)."""


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("−" + str(-n) if n < 0 else "0")


def _number(n: int) -> str:
    return "−" + str(-n) if n < 0 else str(n)


class _Names:
    """Seat and side names for one game, and who really played each seat."""

    def __init__(self, seats: Sequence[str], players: int,
                 changes: Sequence[SeatChange] = ()) -> None:
        self.changes = changes
        # A record is hostile input: a control character in a name must not reach the
        # terminal as a command, nor a lone surrogate stop the printing (issue 31).
        self.seats = [shown(name, NAME_SHOWN_MAX) or f"seat {i}"
                      for i, name in enumerate(seats)]
        self.players = players
        if players == 4:
            self.sides = [f"{self.seats[0]} & {self.seats[2]}",
                          f"{self.seats[1]} & {self.seats[3]}"]
        else:
            self.sides = list(self.seats)
        self.width = max(len(s) for s in self.seats)

    def seat(self, seat: int) -> str:
        return self.seats[seat]

    def by(self, seat: int, hand: int, at: int) -> str:
        """The seat's name, and who made its decision `at` of `hand` when that was not
        its own player (`seat_changes`): `normal bot for bob`."""
        change = player_at(self.changes, seat, hand, at) if self.changes else None
        if change is None or change.why == "back":
            return self.seats[seat]
        return f"{shown(change.name, NAME_SHOWN_MAX)} for {self.seats[seat]}"

    def change_lines(self, hand: int) -> list[str]:
        """The hand's changes of who plays a seat, one line each."""
        return [f"  From decision {c.at}: {shown(c.name, NAME_SHOWN_MAX)} "
                f"({'computer' if c.computer else 'person'}) plays seat {c.seat} "
                f"({WHY_SHOWN[c.why]})." for c in self.changes if c.hand == hand]

    def side_of_seat(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    def score_line(self, values: Sequence[int], signed: bool = False) -> str:
        show = _signed if signed else _number
        return ", ".join(f"{self.sides[i]} {show(v)}" for i, v in enumerate(values))


def render_report(game: GameReplay) -> str:
    """The whole report of a replay that kept its hands, as text (ends with a newline)."""
    names = _Names(game.record.seats, game.record.rules.players, game.record.seat_changes)
    unit = _unit(game.record.rules)
    pieces = [_head(game.record, names)]
    pieces.extend(_hand_text(hand, names, unit, game.error is None) for hand in game.hands)
    pieces.append(_tail(game, names))
    return "".join(pieces)


def write_report(record: Record, out: TextIO) -> GameReplay:
    """Replay `record` and write its report to `out` hand by hand, as `render_report`
    would: time and memory grow with one hand, not with the game (a record of 250,000
    hands once took ten minutes and a gigabyte)."""
    names = _Names(record.seats, record.rules.players, record.seat_changes)
    unit = _unit(record.rules)
    out.write(_head(record, names))
    pending: HandReplay | None = None

    def on_hand(hand: HandReplay) -> None:
        nonlocal pending
        if pending is not None:  # a hand followed it: it was legal to its end
            out.write(_hand_text(pending, names, unit, True))
        pending = hand

    game = replay_game(record, on_hand, keep_hands=False)
    if pending is not None:
        out.write(_hand_text(pending, names, unit, game.error is None))
    out.write(_tail(game, names))
    return game


def _head(rec: Record, names: _Names) -> str:
    out: list[str] = []
    players = ", ".join(f"{name} (seat {i})" for i, name in enumerate(names.seats))
    out.append(f"Moon · {rec.rules.players} players: {players}")
    if rec.rules.players == 4:
        out.append(f"Teams: {names.sides[0]} against {names.sides[1]}")
    out.append(f"Table: {_table_line(rec.rules)}")
    return "\n".join(out) + "\n"


def _hand_text(hand: HandReplay, names: _Names, unit: str, legal: bool) -> str:
    return "\n" + "\n".join(_render_hand(hand, names, unit, legal)) + "\n"


def _tail(game: GameReplay, names: _Names) -> str:
    return "\n" + _closing(game, names) + "\n"


def _unit(rules: Rules) -> str:
    """What a hand scores: marks or points."""
    return "marks" if rules.scoring == "marks" else "points"


def _table_line(rules: Rules) -> str:
    """The set, the minimum bid, the target, then every option that is not the default."""
    parts = [rules.set, f"min bid {rules.min_bid}", f"{_unit(rules)} to {rules.target}"]
    default = Rules.make(players=rules.players, scoring=rules.scoring)
    for name, value in rules.to_dict().items():
        if name in ("players", "set", "min_bid", "scoring", "target"):
            continue
        if value != getattr(default, name):
            text = str(value).lower() if isinstance(value, bool) else value
            parts.append(f"{name} = {text}")
    return " · ".join(parts)


def _render_hand(hand: HandReplay, names: _Names, unit: str, legal: bool) -> list[str]:
    lines = [f"Hand {hand.number + 1} · {names.seat(hand.first_bidder)} bids first"]
    for seat, tiles in enumerate(hand.deal):
        lines.append(f"  {names.seat(seat):<{names.width}}  {' '.join(map(str, tiles))}")
    if hand.widow is not None:
        lines.append(f"  {'widow':<{names.width}}  {hand.widow}")
    lines.extend(names.change_lines(hand.number))
    if hand.bids:
        said = ", ".join(
            f"{names.by(seat, hand.number, i)} "
            f"{'passes' if a.bid is None else 'bids ' + _bid_word(a.bid)}"
            for i, (seat, a) in enumerate(hand.bids))
        lines.append(f"  Bidding: {said}.")
    if hand.passed_out:
        lines.append("  Everyone passed: the hand is void, the tiles are dealt again.")
        return lines
    first_play = len(hand.bids) + (hand.discard is not None) + (hand.trump is not None)
    if hand.declarer is not None:
        who = names.by(hand.declarer, hand.number, len(hand.bids))
        parts = [f"{who} declares {_bid_word(hand.bid)}"]
        if hand.discard is not None:
            parts.append(f"takes the widow {hand.widow} and discards {hand.discard}")
        if hand.trump is not None:
            parts.append(f"trump: {trump_phrase(hand.trump)}")
        lines.append("  " + "; ".join(parts) + ".")
    for i, trick in enumerate(hand.tricks):
        at = first_play + sum(len(t.plays) for t in hand.tricks[:i])
        plays = "  ".join(f"{names.by(seat, hand.number, at + j)} {tile}"
                          for j, (seat, tile) in enumerate(trick.plays))
        won = f"→ {names.seat(trick.winner)}" if trick.winner is not None else "(open)"
        lines.append(f"  {i + 1:>2}. {plays}  {won}")
    if hand.finished and hand.declarer is not None:
        assert hand.points is not None
        tricks = ", ".join(f"{names.seat(s)} {n}" for s, n in enumerate(hand.tricks_won))
        lines.append(f"  Tricks: {tricks}.")
        side = names.side_of_seat(hand.declarer)
        taken = sum(n for s, n in enumerate(hand.tricks_won) if names.side_of_seat(s) == side)
        need = 7 if hand.bid == MOON else hand.bid
        verdict = "made" if hand.made else "set"
        lines.append(f"  {names.sides[side]} needed {need} and took {taken}: {verdict}.")
        lines.append(f"  {unit.capitalize()}: {names.score_line(hand.points, signed=True)}.  "
                     f"Score: {names.score_line(hand.scores)}.")
    elif not hand.finished and hand.to_move is not None and legal:
        lines.append(f"  … in progress: {names.seat(hand.to_move)} to act.")
    return lines


_WHY: dict[Termination, str] = {
    Termination.MOON: "by making the moon",
    Termination.TIE_BREAK: "as the declaring side at the target (tie_break = declarer)",
    Termination.TARGET: "by reaching the target alone at the top",
}


def _closing(game: GameReplay, names: _Names) -> str:
    if game.error is not None:
        return _error_line(game.error, names)
    if game.outcome is not None:
        reason = _WHY[game.outcome.reason]
        verb = "win" if names.players == 4 else "wins"  # a team is two people
        return (f"{names.sides[game.outcome.winner]} {verb} the game {reason}. "
                f"Final score: {names.score_line(game.scores)}.")
    hands = game.hand_count
    return (f"Game in progress after {hands} hand{'s' if hands != 1 else ''}. "
            f"Score: {names.score_line(game.scores)}.")


def _error_line(error: IllegalRecordError, names: _Names) -> str:
    where = []
    if error.hand is not None:
        where.append(f"hand {error.hand + 1}")
    if error.play is not None:
        where.append(f"plays[{error.play}]")
    if error.seat is not None and 0 <= error.seat < len(names.seats):
        where.append(f"{names.seat(error.seat)} (seat {error.seat})")
    return f"ILLEGAL at {', '.join(where) or 'the start'}: {error.reason}"
