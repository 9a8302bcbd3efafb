"""A table as the journal kept it, read back and checked, to be taken up after a restart.

`read_saved` turns a `SavedTable` (the row `writing.table_row` wrote, the game's hands,
the chat's last lines) into a `Restored`: plain checked values and the game replayed
through the rules (`game_from_record`), so a table is rebuilt from decisions only, as a
record is. Anything that does not fit raises `SavedTableError` with the reason; the lobby
logs it and skips that table (`unfinished_record` gives what can still be saved of its
game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import GameState, Rules
from ..rules.record import FORMAT, game_from_record
from .journal import JsonObject, SavedTable
from .messages import BOT_LEVELS, BotLevel, ChatLine, ChatPosted, CreateTable, SeatInfo, TableStatus
from .publishing import HandSeats
from .writing import ROW_VERSION

STATUSES: tuple[TableStatus, ...] = ("waiting", "playing", "finished")


class SavedTableError(ValueError):
    """A saved table that cannot be rebuilt: which table, and why."""

    def __init__(self, table_id: str, reason: str) -> None:
        super().__init__(f"table {table_id}: {reason}")
        self.table_id = table_id
        self.reason = reason


@dataclass(frozen=True)
class Restored:
    """Everything a table is rebuilt from, checked."""

    table_id: str
    create: CreateTable
    invite_code: str
    owner: str
    seats: tuple[SeatInfo, ...]
    """Who held each seat: a player's name, or a computer's level (away is not kept)."""
    spectators: tuple[str, ...]
    rematch_votes: tuple[str, ...]
    stand_in_level: BotLevel
    status: TableStatus
    game_names: tuple[str, ...]
    hand_seats: HandSeats
    state: GameState | None
    chat: tuple[ChatPosted, ...]
    person_decided: bool
    """A person made a decision of the game themselves (only then is it saved as a record;
    a row written before this was kept says so: its game is saved as it was)."""


def _check(ok: bool, table_id: str, reason: str) -> None:
    if not ok:
        raise SavedTableError(table_id, reason)


def _text(data: JsonObject, key: str, table_id: str) -> str:
    value = data.get(key)
    _check(isinstance(value, str), table_id, f"{key} is {value!r}, not text")
    assert isinstance(value, str)
    return value


def _flag(data: JsonObject, key: str, table_id: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise SavedTableError(table_id, f"{key} is {value!r}, not true or false")
    return value


def _names(data: JsonObject, key: str, table_id: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list):
        raise SavedTableError(table_id, f"{key} is {value!r}, not a list of names")
    names = tuple(n for n in value if isinstance(n, str))
    _check(len(names) == len(value), table_id, f"{key} is {value!r}, not a list of names")
    return names


def _status(value: object, table_id: str) -> TableStatus:
    for status in STATUSES:
        if value == status:
            return status
    raise SavedTableError(table_id, f"status is {value!r}")


def _level(value: object, table_id: str) -> BotLevel | None:
    if value is None:
        return None
    for level in BOT_LEVELS:
        if value == level:
            return level
    raise SavedTableError(table_id, f"unknown computer level {value!r}")


def _seat(value: object, table_id: str) -> SeatInfo:
    _check(isinstance(value, dict), table_id, f"a seat is {value!r}")
    assert isinstance(value, dict)
    name, level = value.get("name"), _level(value.get("bot_level"), table_id)
    _check(name is None or isinstance(name, str), table_id, f"a seat's name is {name!r}")
    return SeatInfo(name, None if name is not None else level)


def _hand_seats(value: object, players: int, table_id: str) -> HandSeats:
    _check(isinstance(value, list), table_id, f"hand_seats is {value!r}")
    assert isinstance(value, list)
    hands = []
    for seats in value:
        _check(isinstance(seats, list) and len(seats) == players
               and all(isinstance(s, list) and len(s) == 2 for s in seats),
               table_id, f"a hand's seats are {seats!r}")
        hands.append(tuple(_seat({"name": name, "bot_level": level}, table_id)
                           for name, level in seats))
    return tuple(hands)


def _chat(lines: Sequence[JsonObject], table_id: str) -> tuple[ChatPosted, ...]:
    """The chat lines that read well (a bad line is dropped, not the table)."""
    kept = []
    for line in lines:
        sender, text, at = line.get("sender"), line.get("text"), line.get("at", 0.0)
        if isinstance(sender, str) and isinstance(text, str) and isinstance(at, int | float):
            kept.append(ChatPosted(ChatLine(sender, text, table_id, float(at))))
    return tuple(kept)


def unfinished_record(saved: SavedTable) -> dict[str, Any] | None:
    """The `moon/1` record of the saved table's game as written (not checked), if it has
    one: what can be kept of a table that cannot be rebuilt."""
    data = saved.data
    if not saved.hands or data.get("first_bidder") is None \
            or data.get("person_decided") is False:
        return None
    return {"format": FORMAT, "rules": data.get("rules"), "seats": data.get("game_names"),
            "first_bidder": data.get("first_bidder"), "hands": [dict(h) for h in saved.hands]}


def read_saved(saved: SavedTable) -> Restored:
    """The saved table, checked and its game replayed; `SavedTableError` if it cannot be."""
    table_id, data = saved.table_id, saved.data
    _check(data.get("version") == ROW_VERSION, table_id,
           f"row version {data.get('version')!r}, not {ROW_VERSION}")
    raw_rules = data.get("rules")
    _check(isinstance(raw_rules, dict), table_id, f"rules are {raw_rules!r}")
    assert isinstance(raw_rules, dict)
    try:
        rules = Rules.from_dict(raw_rules)
    except (ValueError, TypeError) as exc:
        raise SavedTableError(table_id, f"bad rules: {exc}") from None
    seconds = data.get("turn_seconds")
    _check(seconds is None or (type(seconds) is int and seconds > 0), table_id,
           f"turn_seconds is {seconds!r}")
    private, watchable = _flag(data, "private", table_id), \
        _flag(data, "spectators_allowed", table_id)
    raw_seats = data.get("seats")
    _check(isinstance(raw_seats, list) and len(raw_seats) == rules.players, table_id,
           f"seats are {raw_seats!r}, not {rules.players} seats")
    assert isinstance(raw_seats, list)
    seats = tuple(_seat(s, table_id) for s in raw_seats)
    status = _status(data.get("status"), table_id)
    stand_in = _level(data.get("stand_in_level"), table_id)
    _check(stand_in is not None, table_id, "no stand_in_level")
    assert stand_in is not None
    game_names = _names(data, "game_names", table_id)
    state = None
    if status != "waiting":
        _check(len(game_names) == rules.players, table_id, f"game_names are {game_names!r}")
        record = {"format": FORMAT, "rules": rules.to_dict(), "seats": list(game_names),
                  "first_bidder": data.get("first_bidder"),
                  "hands": [dict(h) for h in saved.hands]}
        try:
            state = game_from_record(record)
        except ValueError as exc:
            raise SavedTableError(table_id, f"the game does not replay: {exc}") from None
        _check(state.logs != [], table_id, "the game has no hand")
    return Restored(
        table_id=table_id,
        create=CreateTable(_text(data, "name", table_id), rules, seconds, private, watchable),
        invite_code=_text(data, "invite_code", table_id),
        owner=_text(data, "owner", table_id),
        seats=seats,
        spectators=_names(data, "spectators", table_id),
        rematch_votes=_names(data, "rematch_votes", table_id),
        stand_in_level=stand_in,
        status=status,
        game_names=game_names,
        hand_seats=_hand_seats(data.get("hand_seats", []), rules.players, table_id),
        state=state,
        chat=_chat(saved.chat, table_id),
        person_decided=_flag({"person_decided": True, **data}, "person_decided", table_id),
    )
