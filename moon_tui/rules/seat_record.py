"""One seat's record of a game: what that seat knew (RULES.md, what each seat may know).

A game that was not finished may not be shown whole: its players may look back at it,
each from their own seat. This is the record as that seat saw it: its own deal, every
bid, trump and tile played, the widow and the discard only in the hands it declared
(every discard with `discard_shown`), and nothing of the other seats' deals (`null`).

It is not a `moon/1` record and says so (`"format": "moon/1-seat"`): the rules can
check a play only against the hand that made it, so a record with hidden deals cannot be
replayed; `moon-rules replay` answers it, as any other format, with exit status 2.
"""

from __future__ import annotations

from typing import Any, Final

from .record import Record
from .replay import replay_game

SEAT_FORMAT: Final = "moon/1-seat"


def seat_record(record: Record, seat: int, extra: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    """`record` as `seat` knew it (see the module docstring). `extra`: keys of the
    server's record kept as they are (`seat_changes`: who played each seat is public)."""
    if not 0 <= seat < record.rules.players:
        raise ValueError(f"seat {seat} is not a seat of a {record.rules.players}-player game")
    replayed = replay_game(record)
    hands = []
    for number, hand in enumerate(record.hands):
        full = hand.to_dict()
        known = replayed.hands[number] if number < len(replayed.hands) else None
        declared = known is not None and known.declarer == seat
        out: dict[str, Any] = {
            "deal": [full["deal"][s] if s == seat else None
                     for s in range(record.rules.players)],
        }
        if declared and "widow" in full and _widow_taken(record, full):
            out["widow"] = full["widow"]
        out["bids"] = full["bids"]
        if "discard" in full and (declared or record.rules.discard_shown):
            out["discard"] = full["discard"]
        for key in ("trump", "plays"):
            if key in full:
                out[key] = full[key]
        hands.append(out)
    data = record.to_dict()
    data.update(format=SEAT_FORMAT, seat=seat, hands=hands)
    for key, value in (extra or {}).items():
        data.setdefault(key, value)
    return data


def _widow_taken(record: Record, hand: dict[str, Any]) -> bool:
    """The declarer has picked up the widow: at the end of the auction, or after naming
    trump with `trump_before_widow`."""
    return "discard" in hand or (not record.rules.trump_before_widow or "trump" in hand)


__all__ = ["SEAT_FORMAT", "seat_record"]
