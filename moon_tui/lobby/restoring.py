"""A table as the journal kept it, read back and checked, to be taken up after a restart.

`read_saved` turns a `SavedTable` (the row `TableState.row` wrote, the game's hands,
the chat's last lines) into a `Restored`: plain checked values and the game replayed
through the rules (`game_from_record`), so a table is rebuilt from decisions only, as a
record is. Anything that does not fit raises `SavedTableError` with the reason; the lobby
logs it and skips that table (`unfinished_record` gives what can still be saved of its
game).

The file the journal lives in can be edited by hand or damaged, so a row is as hostile
as anything a client sends: every name, list and text is bounded as the lobby bounds
what players send (a table of 100,000 spectators stalled the server at start), the
status must be what the replayed game says (a game in mid-hand marked finished was
saved as a finished record), and a reason quotes at most `SHOWN_MAX` characters of
what it found.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import GameState, Rules
from ..rules.record import FORMAT, game_from_record
from ..rules.seat_changes import SeatChange, SeatChangeError, seat_changes_from
from .chat import CHAT_KEPT, clean_text
from .journal import JsonObject, SavedTable
from .messages import (
    BOT_LEVELS,
    CODE_ALPHABET,
    CODE_LENGTH,
    TABLE_NAME_MAX,
    BotLevel,
    ChatLine,
    ChatPosted,
    CreateTable,
    SeatInfo,
    TableStatus,
)
from .publishing import HandSeats
from .writing import ROW_VERSION

STATUSES: tuple[TableStatus, ...] = ("waiting", "playing", "finished")
TABLE_ID = re.compile(r"t[0-9a-f]{6}|t[1-9][0-9]{0,8}")
"""The ids a lobby gives its tables: `t` and 6 random hex digits (`new_table_id`), or
a count (`t1`, `t2`...) as lobbies gave them before tables could run on several hosts."""


def new_table_id(rng: random.Random) -> str:
    """A new table's id: 24 random bits, short enough for an operator to read and type
    (`close t3fa91c`); the lobby draws again if a table it routes to has it."""
    return f"t{rng.getrandbits(24):06x}"
NAME_MAX = 40
"""The longest name of a person or a computer a saved table may hold (the server's names
are at most 16 characters)."""
SPECTATORS_MAX = 1000
"""The most spectators a saved table may hold: more people than one server has online
(a spectator must be connected to watch)."""
CHAT_TEXT_MAX = 2000
"""The longest chat line kept (the lobby's own limit, `chat_max_chars`, is 300)."""
SHOWN_MAX = 60
"""Characters of a bad value quoted in a reason (it goes to the log)."""
INVITE_CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")


def shown(value: object) -> str:
    """`value` as a reason quotes it: its repr, cut to `SHOWN_MAX` characters (a row may
    hold megabytes, or text meant to forge log lines: a repr escapes line breaks)."""
    text = repr(value)
    return text if len(text) <= SHOWN_MAX else text[:SHOWN_MAX - 3] + "..."


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
    open_seats: bool = False
    seat_changes: tuple[SeatChange, ...] = ()


def _check(ok: bool, table_id: str, reason: str) -> None:
    if not ok:
        raise SavedTableError(table_id, reason)


def _plain(value: object, longest: int) -> bool:
    """Text as the lobby keeps what people type: 1 to `longest` characters, spaces but no
    other whitespace, no control or format characters (`chat.clean_text`)."""
    return isinstance(value, str) and 0 < len(value) <= longest \
        and all(ch == " " or ch == clean_text(ch) for ch in value)


def _text(data: JsonObject, key: str, table_id: str, longest: int) -> str:
    value = data.get(key)
    _check(_plain(value, longest), table_id,
           f"{key} is {shown(value)}, not text of 1 to {longest} characters")
    assert isinstance(value, str)
    return value


def _flag(data: JsonObject, key: str, table_id: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise SavedTableError(table_id, f"{key} is {shown(value)}, not true or false")
    return value


def _names(data: JsonObject, key: str, table_id: str, most: int, *,
           different: bool = True) -> tuple[str, ...]:
    """A list of at most `most` names, `different` ones (a game's seats may name two
    computers of one level alike)."""
    value = data.get(key)
    _check(isinstance(value, list) and len(value) <= most, table_id,
           f"{key} is {shown(value)}, not a list of at most {most} names")
    assert isinstance(value, list)
    _check(all(_plain(n, NAME_MAX) for n in value)
           and (not different or len(set(value)) == len(value)),
           table_id, f"{key} is {shown(value)}, not a list of names")
    return tuple(value)


def _status(value: object, table_id: str) -> TableStatus:
    for status in STATUSES:
        if value == status:
            return status
    raise SavedTableError(table_id, f"status is {shown(value)}")


def _level(value: object, table_id: str) -> BotLevel | None:
    if value is None:
        return None
    for level in BOT_LEVELS:
        if value == level:
            return level
    raise SavedTableError(table_id, f"unknown computer level {shown(value)}")


def _seat(value: object, table_id: str) -> SeatInfo:
    _check(isinstance(value, dict), table_id, f"a seat is {shown(value)}")
    assert isinstance(value, dict)
    name, level = value.get("name"), _level(value.get("bot_level"), table_id)
    _check(name is None or _plain(name, NAME_MAX), table_id,
           f"a seat's name is {shown(name)}")
    held_for = value.get("held_for")
    _check(held_for is None or (_plain(held_for, NAME_MAX) and name is None
                                and level is not None), table_id,
           f"a seat is held for {shown(held_for)}")
    return SeatInfo(name, None if name is not None else level, held_for=held_for)


def _hand_seats(value: object, players: int, hands: int, table_id: str) -> HandSeats:
    """Who held each seat in each of the game's `hands` (at most that many)."""
    _check(isinstance(value, list) and len(value) <= hands, table_id,
           f"hand_seats is {shown(value)}, not a list of at most {hands} hands")
    assert isinstance(value, list)
    kept = []
    for seats in value:
        _check(isinstance(seats, list) and len(seats) == players
               and all(isinstance(s, list) and len(s) == 2 for s in seats),
               table_id, f"a hand's seats are {shown(seats)}")
        kept.append(tuple(_seat({"name": name, "bot_level": level}, table_id)
                          for name, level in seats))
    return tuple(kept)


def saved_chat(lines: Sequence[JsonObject], table_id: str | None
               ) -> tuple[ChatPosted, ...]:
    """The last `CHAT_KEPT` chat lines that read well (a bad line is dropped, not the
    table); `table_id` None: the lobby chat's."""
    kept = []
    for line in lines[-CHAT_KEPT:]:
        sender, text, at = line.get("sender"), line.get("text"), line.get("at", 0.0)
        if _plain(sender, NAME_MAX) and _plain(text, CHAT_TEXT_MAX) \
                and type(at) in (int, float):
            assert isinstance(sender, str) and isinstance(text, str) \
                and isinstance(at, int | float)
            kept.append(ChatPosted(ChatLine(sender, text, table_id, float(at))))
    return tuple(kept)


def _seats(raw: object, rules: Rules, status: TableStatus, table_id: str
           ) -> tuple[SeatInfo, ...]:
    """The seats: one per player, each person at one seat at most, none free in a game
    being played (a player leaving it gives the seat to a computer)."""
    _check(isinstance(raw, list) and len(raw) == rules.players, table_id,
           f"seats are {shown(raw)}, not {rules.players} seats")
    assert isinstance(raw, list)
    seats = tuple(_seat(s, table_id) for s in raw)
    people = [s.name for s in seats if s.name is not None]
    people += [s.held_for for s in seats if s.held_for is not None]
    _check(len(set(people)) == len(people), table_id, f"a person holds two seats: {people}")
    _check(status != "playing" or all(s.name is not None or s.bot_level is not None
                                       for s in seats),
           table_id, "a seat is free in a game being played")
    return seats


def unfinished_record(saved: SavedTable) -> dict[str, Any] | None:
    """The `moon/1` record of the saved table's game as written (not checked), if it has
    one: what can be kept of a table that cannot be rebuilt."""
    data = saved.data
    if not saved.hands or data.get("first_bidder") is None \
            or data.get("person_decided") is False:
        return None
    record = {"format": FORMAT, "rules": data.get("rules"), "seats": data.get("game_names"),
              "first_bidder": data.get("first_bidder"),
              "hands": [dict(h) for h in saved.hands]}
    if data.get("seat_changes"):
        record["seat_changes"] = data.get("seat_changes")
    return record


def _game(saved: SavedTable, rules: Rules, status: TableStatus,
          game_names: tuple[str, ...]) -> GameState | None:
    """The game replayed through the rules, decision by decision; a game marked finished
    must have ended, and one being played must not have."""
    table_id, data = saved.table_id, saved.data
    if status == "waiting":
        return None
    _check(len(game_names) == rules.players, table_id,
           f"game_names are {shown(game_names)}")
    record = {"format": FORMAT, "rules": rules.to_dict(), "seats": list(game_names),
              "first_bidder": data.get("first_bidder"),
              "hands": [dict(h) for h in saved.hands]}
    try:
        state = game_from_record(record)
    except ValueError as exc:
        raise SavedTableError(table_id, f"the game does not replay: {exc}") from None
    _check(state.logs != [], table_id, "the game has no hand")
    _check(state.is_terminal() == (status == "finished"), table_id,
           f"the table says {status}, but its game has "
           f"{'ended' if state.is_terminal() else 'not ended'}")
    return state


def read_saved(saved: SavedTable) -> Restored:
    """The saved table, checked and its game replayed; `SavedTableError` if it cannot be."""
    table_id, data = saved.table_id, saved.data
    _check(isinstance(table_id, str) and TABLE_ID.fullmatch(table_id) is not None,
           shown(table_id), "not a table's id")
    _check(data.get("version") == ROW_VERSION, table_id,
           f"row version {shown(data.get('version'))}, not {ROW_VERSION}")
    raw_rules = data.get("rules")
    _check(isinstance(raw_rules, dict), table_id, f"rules are {shown(raw_rules)}")
    assert isinstance(raw_rules, dict)
    try:
        rules = Rules.from_dict(raw_rules)
    except (ValueError, TypeError) as exc:
        raise SavedTableError(table_id, f"bad rules: {shown(str(exc))}") from None
    seconds = data.get("turn_seconds")
    _check(seconds is None or (type(seconds) is int and 1 <= seconds <= 3600), table_id,
           f"turn_seconds is {shown(seconds)}")
    private, watchable = _flag(data, "private", table_id), \
        _flag(data, "spectators_allowed", table_id)
    status = _status(data.get("status"), table_id)
    seats = _seats(data.get("seats"), rules, status, table_id)
    stand_in = _level(data.get("stand_in_level"), table_id)
    _check(stand_in is not None, table_id, "no stand_in_level")
    assert stand_in is not None
    game_names = _names(data, "game_names", table_id, rules.players, different=False)
    state = _game(saved, rules, status, game_names)
    spectators = _names(data, "spectators", table_id, SPECTATORS_MAX)
    seated = {s.name for s in seats if s.name is not None}
    _check(seated.isdisjoint(spectators), table_id, "a seated player is a spectator too")
    rematch_votes = _names(data, "rematch_votes", table_id, rules.players)
    _check(seated.issuperset(rematch_votes), table_id,
           f"rematch_votes are {shown(rematch_votes)}, not seated players")
    code = data.get("invite_code")
    _check(isinstance(code, str) and INVITE_CODE.fullmatch(code) is not None, table_id,
           f"invite_code is {shown(code)}")
    assert isinstance(code, str)
    return Restored(
        table_id=table_id,
        create=CreateTable(_text(data, "name", table_id, TABLE_NAME_MAX), rules, seconds,
                           private, watchable,
                           _flag({"rated": False, **data}, "rated", table_id),
                           _flag({"practice": False, **data}, "practice", table_id)),
        invite_code=code,
        owner=_text(data, "owner", table_id, NAME_MAX),
        seats=seats,
        spectators=spectators,
        rematch_votes=rematch_votes,
        stand_in_level=stand_in,
        status=status,
        game_names=game_names,
        hand_seats=_hand_seats(data.get("hand_seats", []), rules.players,
                               0 if state is None else len(state.logs), table_id),
        state=state,
        chat=saved_chat(saved.chat, table_id),
        person_decided=_flag({"person_decided": True, **data}, "person_decided", table_id),
        open_seats=_flag({"open_seats": False, **data}, "open_seats", table_id),
        seat_changes=_seat_changes(data.get("seat_changes"), rules.players, table_id),
    )


def _seat_changes(raw: object, players: int, table_id: str) -> tuple[SeatChange, ...]:
    """Who played a seat of the game when it was not the person dealt in."""
    try:
        return seat_changes_from(raw, players)
    except SeatChangeError as exc:
        raise SavedTableError(table_id, f"{exc.where}: {exc}") from None
