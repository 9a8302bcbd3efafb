"""A refused command in the player's words, chosen from its code and parameters.

The lobby sends a refusal as data (`Rejected.code`, `Rejected.params`); this module is the
one place that turns it into words for the person who sent the command. Seats are counted
from 1, as everywhere on screen. A game rule reads as a sentence to the seat that broke it
("You must follow 5s"); the lobby's refusals read as the toasts always did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..lobby.messages import (
    AddBot,
    Command,
    OpenSeats,
    Rejected,
    RemoveBot,
    Spectate,
    StartGame,
)
from ..lobby.refusals import Refusal
from ..rules import SUIT_TRUMP, TRUMP_DOUBLES, TRUMP_NONE, RuleBroken
from ..rules.illegal import Param
from .create import option_problem

Params = Mapping[str, Param]


def _seat(params: Params, key: str = "seat") -> str:
    """A seat number as the screen shows it (from 1); anything else as sent."""
    value = params.get(key)
    return str(value + 1) if isinstance(value, int) else str(value)


def _suit(suit: Param | None) -> str:
    return "trumps" if suit == SUIT_TRUMP else f"{suit}s"


def _held(params: Params) -> str:
    held = params.get("held", ())
    return " ".join(held) if isinstance(held, tuple) else str(held)


def _turn(params: Params) -> str:
    doing = {"play": "play a tile", "bid": "bid or pass", "discard": "discard a tile",
             "trump": "name trump"}
    return (f"It is your turn to {doing.get(str(params.get('phase')), 'act')}, "
            f"not to {params.get('kind')}")


def _not_held(params: Params) -> str:
    if params.get("kind") == "discard":
        return f"You cannot discard {params.get('tile')}: not in hand"
    return f"You do not hold {params.get('tile')}"


def _trump_barred(params: Params) -> str:
    if params.get("trump") == TRUMP_DOUBLES:
        return "Doubles may not be trump at this table (doubles_trump = false)"
    if params.get("trump") == TRUMP_NONE:
        return "This table plays with a trump (no_trump = false)"
    return f"No tile of this set carries a {params.get('trump')}: it cannot be trump"


def _owner_only(params: Params, command: Command) -> str:
    what = {StartGame: "start the game", AddBot: "add computer players",
            RemoveBot: "remove computer players",
            OpenSeats: "let newcomers take a computer's seat"}.get(type(command), "do that")
    return f"only the table's owner ({params.get('owner')}) may {what}"


def _started(params: Params, command: Command) -> str:
    what = {StartGame: "start another game", AddBot: "change the seats",
            RemoveBot: "change the seats", Spectate: "leave your seat to watch"}.get(
        type(command), "do that")
    return f"the game has started: you cannot {what} now"


def _play_on(params: Params) -> str:
    why = params.get("why")
    if why == "over":
        return "the game is over at that point"
    if why == "seat":
        return f"there is no seat {_seat(params)} in a game of {params.get('players')}"
    if why == "level":
        return f"no computer level {params.get('level')}"
    if why == "illegal":
        return "that saved game's record cannot be read"
    return "the record is missing or too long"


def _minutes(params: Params) -> str:
    minutes = params.get("minutes")
    return "a minute" if minutes == 1 else f"{minutes} minutes"


def _days(minutes: object) -> str:
    """`10080` minutes -> `7 days`."""
    days = minutes / (24 * 60) if isinstance(minutes, int) else 0
    return f"{days:g} day{'' if days == 1 else 's'}"


def _window(params: Params) -> str:
    window = params.get("window")
    return "the hour" if window in (None, 60) else f"{window} minutes"


_Words = Callable[[Params], str]

RULES: dict[RuleBroken, _Words] = {
    RuleBroken.GAME_OVER: lambda p: "The game is over",
    RuleBroken.NOT_DEALT: lambda p: "The hand is over: the next one is being dealt",
    RuleBroken.NOT_YOUR_TURN: lambda p: f"It is not your turn: seat {_seat(p, 'to_move')} "
                                        "is to move",
    RuleBroken.WRONG_ACTION: _turn,
    RuleBroken.NOT_IN_HAND: _not_held,
    RuleBroken.MUST_FOLLOW: lambda p: f"You must follow {_suit(p.get('suit'))}: "
                                      f"you hold {_held(p)}",
    RuleBroken.MUST_BID: lambda p: "You must bid: everyone else passed "
                                   "(all_pass = force_last)",
    RuleBroken.BID_TOO_LOW: lambda p: f"You bid {p.get('bid')}: the lowest bid is "
                                      f"{p.get('lowest')}",
    RuleBroken.BID_NOT_HIGHER: lambda p: f"You bid {p.get('bid')}: a bid must be higher "
                                         f"than {p.get('high')}",
    RuleBroken.TRUMP_NOT_ALLOWED: _trump_barred,
    RuleBroken.DEAL_NOT_DUE: lambda p: "A hand cannot be dealt now",
    RuleBroken.DEAL_HAND_COUNT: lambda p: "The deal does not have a hand for every seat",
    RuleBroken.DEAL_HAND_SIZE: lambda p: f"Seat {_seat(p)} was not dealt seven tiles",
    RuleBroken.DEAL_TILE_TWICE: lambda p: f"{p.get('tile')} is dealt twice",
    RuleBroken.DEAL_TILE_NOT_IN_SET: lambda p: f"{p.get('tile')} is not a tile of "
                                               f"{p.get('tile_set')}",
    RuleBroken.DEAL_WIDOW_MISSING: lambda p: "The deal has no widow",
    RuleBroken.DEAL_WIDOW_UNEXPECTED: lambda p: "The deal has a widow it should not have",
}
"""A game rule broken, for the seat that broke it (always the player reading)."""

LOBBY: dict[Refusal, _Words] = {
    Refusal.LOBBY_FAILED: lambda p: "the lobby could not do that",
    Refusal.SHUTTING_DOWN: lambda p: "the server is shutting down",
    Refusal.TOO_MANY_PENDING: lambda p: "too many commands at once: wait for the answers",
    Refusal.NOT_A_COMMAND: lambda p: "that is not a command",
    Refusal.NO_SUCH_TABLE: lambda p: f"there is no table {p.get('table_id')}",
    Refusal.NO_SUCH_CODE: lambda p: f"no table has the invite code {p.get('code')!r}",
    Refusal.TOO_MANY_CODES: lambda p: "too many wrong invite codes: wait a minute",
    Refusal.OPERATOR_ONLY: lambda p: "only an operator may do that",
    Refusal.NOT_ONLINE: lambda p: f"{p.get('name')} is not online",
    Refusal.NOT_YOURSELF: lambda p: "you cannot kick or ban yourself",
    Refusal.NO_INVITATIONS: lambda p: f"{p.get('name')} has turned invitations off",
    Refusal.TOO_MANY_INVITES: lambda p: f"at most {p.get('invites')} invitations a minute: "
                                        "wait a moment",
    Refusal.BAD_MINUTES: lambda p: f"a time is 0 to {p.get('limit')} minutes "
                                   f"({_days(p.get('limit'))}), not {p.get('minutes')}",
    Refusal.BAD_RESTART: lambda p: f"a restart is 0 to {p.get('limit')} seconds away, "
                                   f"not {p.get('seconds')}",
    Refusal.NO_RESTART: lambda p: "no restart is counting down",
    Refusal.RESTART_BY_SYSTEM: lambda p: "the server's system asked it to stop: that "
                                         "restart cannot be called off",
    Refusal.RESTART_UNAVAILABLE: lambda p: "this server cannot restart from the game",
    Refusal.NOT_RULES: lambda p: "the rules must be a Rules value",
    Refusal.BAD_RULES: lambda p: option_problem(str(p.get('option'))),
    Refusal.BAD_TIMER: lambda p: f"the turn timer is 1 to {p.get('limit')} seconds (or "
                                 f"none), not {p.get('seconds')}",
    Refusal.CHAT_EMPTY: lambda p: "an empty chat line",
    Refusal.CHAT_TOO_LONG: lambda p: f"a chat line is at most {p.get('limit')} characters, "
                                     f"not {p.get('length')}",
    Refusal.CHAT_TOO_FAST: lambda p: f"at most {p.get('lines')} chat lines every "
                                     f"{p.get('seconds')} seconds: wait a moment",
    Refusal.TOO_MANY_TABLES: lambda p: f"you opened {_count(p.get('tables'), 'table')} within "
                                       f"{_window(p)}: "
                                       f"you may open another in {_minutes(p)}; join one "
                                       "meanwhile",
    Refusal.PRACTICE_NOT_RATED: lambda p: "a practice table is never rated: untick one of "
                                          "the two",
    Refusal.BAD_PLAY_ON: lambda p: f"cannot play on from there: {_play_on(p)}",
    Refusal.CANNOT_SAVE: lambda p: "the server cannot save right now, so it starts no new "
                                   "game: try again in a while (the operators are told)",
    Refusal.TABLE_FAILED: lambda p: "the table could not do that command",
    Refusal.TABLE_CLOSING: lambda p: f"table {p.get('table_id')} is closing",
    Refusal.TABLE_CLOSED: lambda p: f"table {p.get('table_id')} has closed",
    Refusal.BUS_AWAY: lambda p: "not sent: the club's servers cannot reach each other. Try "
                                "again in a moment",
    Refusal.NOT_AT_TABLE: lambda p: f"you are not at table {p.get('table_id')}",
    Refusal.NOT_A_TABLE_COMMAND: lambda p: f"a table cannot do {p.get('command')}",
    Refusal.PRIVATE_TABLE: lambda p: f"table {p.get('table_id')} is private: join it with "
                                     "its invite code",
    Refusal.ALREADY_SEATED: lambda p: f"you already sit at seat {_seat(p)}",
    Refusal.STARTED_NO_SPECTATORS: lambda p: "the game has started and this table does not "
                                             "allow spectators",
    Refusal.STARTED_WATCH_ONLY: lambda p: "the game has started: you can only watch it",
    Refusal.NO_FREE_SEAT: lambda p: f"table {p.get('table_id')} has no free seat",
    Refusal.SEAT_TAKEN: lambda p: f"seat {_seat(p)} is taken by {p.get('by')}",
    Refusal.ALREADY_WATCHING: lambda p: f"you already watch table {p.get('table_id')}",
    Refusal.NO_SPECTATORS: lambda p: f"table {p.get('table_id')} does not allow spectators",
    Refusal.NO_SUCH_SEAT: lambda p: f"there is no seat {_seat(p)}: seats are 1 to "
                                    f"{_seat(p, 'last')}",
    Refusal.NO_SUCH_LEVEL: lambda p: f"no computer level {p.get('level')}: one of "
                                     f"{p.get('levels')}",
    Refusal.SEAT_NOT_FREE: lambda p: f"seat {_seat(p)} is not free",
    Refusal.NO_BOT_AT_SEAT: lambda p: f"no computer player sits at seat {_seat(p)}",
    Refusal.SEATS_EMPTY: lambda p: "every seat must be filled to start: add computer "
                                   "players or wait",
    Refusal.SPECTATOR_CANNOT_PLAY: lambda p: "only a seated player can play; spectators "
                                             "watch",
    Refusal.GAME_NOT_STARTED: lambda p: "the game has not started",
    Refusal.NOT_AN_ACTION: lambda p: f"not an action: {p.get('action')}",
    Refusal.CLAIM_NOT_YOUR_LEAD: lambda p: "you can claim the rest only when you are to lead "
                                           "a trick",
    Refusal.CLAIM_CHECKING: lambda p: "your claim is being checked",
    # One line of an 80-column table's prompt (it was cut there, "...takes one fr…").
    Refusal.CLAIM_NOT_PROVEN: lambda p: "not claimed: the others could still take "
                                        + ("the last trick" if p.get("tricks") == 1 else
                                           f"one of the {p.get('tricks')} tricks left")
                                        + ". Play on",
    Refusal.CLAIM_UNCHECKED: lambda p: "the claim could not be checked just now: play on",
    Refusal.REMATCH_NOT_OVER: lambda p: "a rematch is only possible once a game is over",
    Refusal.REMATCH_SEATED_ONLY: lambda p: "only seated players vote for a rematch",
    Refusal.REMATCH_SEATS_EMPTY: lambda p: "every seat must be filled for a rematch",
    Refusal.SEAT_NOT_AWAY: lambda p: f"nobody is away at seat {_seat(p)}",
    Refusal.SEATED_ONLY: lambda p: "only the owner and the seated players may hand a seat "
                                   "to a computer",
    Refusal.PRACTICE_ALONE: lambda p: f"table {p.get('table_id')} is a practice table, "
                                      "for one player with computer players",
}
"""The lobby's and the tables' own refusals (those that need the command are below)."""

NEEDS_COMMAND: dict[Refusal, Callable[[Params, Command], str]] = {
    Refusal.OWNER_ONLY: _owner_only,
    Refusal.GAME_STARTED: _started,
}


def refusal_words(event: Rejected) -> str:
    """Why the sender's command was refused, in a sentence for them."""
    code, params = event.code, event.params
    if isinstance(code, RuleBroken):
        return RULES[code](params)
    if code in NEEDS_COMMAND:
        return NEEDS_COMMAND[code](params, event.command)
    return LOBBY[code](params)


def _count(number: object, thing: str) -> str:
    """`1 table`, `30 tables`."""
    return f"{number} {thing}{'' if number == 1 else 's'}"
