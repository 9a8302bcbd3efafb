"""Plain words for what a view holds: seat names, the contract, bids, trumps, results.

Only public information goes in: everything here is computed from a `SeatView` and the
`TableInfo` the lobby sent, never from a game state.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..lobby.messages import RestartNotice, SeatInfo, TableInfo
from ..rules import MOON, TRUMP_DOUBLES, TRUMP_NONE, Action, HandResult, Rules, SeatView, Trick
from ..rules.tiles import IS_TRUMP, SUIT_TRUMP, mask_of
from .dominoes import small_tile

NAME_WIDTH = 16
"""The longest name a player may have (server/identity.py): at 100 columns and up every
name is shown whole."""
NAME_WIDTH_NARROW = 10
"""Below 100 columns names are cut to this width, on purpose and the same everywhere."""


OPERATOR_MARK = "(op)"
"""After an operator's name wherever it shows: `o1ga` may look like `olga`, never like
`olga (op)` (the mark comes from the lobby's list of operators, not from the name)."""


def named(name: str, operators: Collection[str]) -> str:
    """A person's name as shown, with the operator mark when they are one."""
    return f"{name} {OPERATOR_MARK}" if name in operators else name


def name_width(columns: int) -> int:
    """How many cells a name gets on a screen `columns` wide."""
    return NAME_WIDTH if columns >= 100 else NAME_WIDTH_NARROW


def fit(name: str, width: int | None) -> str:
    """`name`, cut to `width` cells with `…` when longer (None: whole)."""
    if width is None or len(name) <= width:
        return name
    return name[:max(1, width - 1)] + "…"


def seat_name(table: TableInfo, seat: int, width: int | None = None) -> str:
    """A seat's player, or `Bot 2` for a computer player, or `(empty)`; cut to `width`."""
    info: SeatInfo = table.seats[seat]
    if info.name is not None:
        return fit(info.name, width)
    if info.bot_level is not None:
        return f"Bot {seat + 1}"
    return "(empty)"


def watcher_names(table: TableInfo, width: int | None = None) -> list[str]:
    """Who watches the table, each cut to `width`, "(away)" after a spectator a restart
    left whose place waits for them (they have not come back yet)."""
    away = set(table.spectators_away)
    return [fit(name, width) + (" (away)" if name in away else "")
            for name in table.spectators]


def seat_detail(info: SeatInfo) -> str:
    """`computer, expert` / `computer for bob` / `away: computer playing` / `away` (their
    turns still wait for them) / ``."""
    if info.name is None and info.bot_level is not None:
        if info.held_for is not None:
            return f"computer for {info.held_for}"
        return f"computer, {info.bot_level}"
    if info.away:
        return "away: computer playing" if info.stood_in else "away"
    return ""


def score_words(score: int, rules: Rules) -> str:
    """`1 pt`, `5 pts`, `1 mark`, `5 marks`, as the table scores."""
    unit = "mark" if rules.scoring == "marks" else "pt"
    return f"{score} {unit}{'' if abs(score) == 1 else 's'}"


def trump_words(trump: int) -> str:
    """`3s`, `doubles`, `no trump`."""
    if trump == TRUMP_DOUBLES:
        return "doubles"
    if trump == TRUMP_NONE:
        return "no trump"
    return f"{trump}s"


def bid_words(action: Action) -> str:
    if action.kind == "pass":
        return "pass"
    return "moon" if action.bid == MOON else str(action.bid)


def action_words(action: Action) -> str:
    """A move as the table's words tell it: `bid 5` / `passed` / `discarded [3|1]` /
    `named trump 4s` / `played [6|4]`."""
    if action.kind == "pass":
        return "passed"
    if action.kind == "bid":
        return f"bid {bid_words(action)}"
    if action.kind == "trump" and action.trump is not None:
        return f"named {trump_clause(action.trump)}"
    assert action.tile is not None
    return f"{'discarded' if action.kind == 'discard' else 'played'} {small_tile(action.tile)}"


def number_bids(legal: Sequence[Action]) -> list[int]:
    """The bids of a number among `legal`, lowest first (not the moon)."""
    return sorted(a.bid for a in legal if a.kind == "bid" and a.bid is not None
                  and a.bid != MOON)


def bids_left_words(amount: int, legal: Sequence[Action]) -> str:
    """Why the digit `amount` bids nothing now, and what may be bid: `You cannot bid 5
    now: bid 6 or 7, m for the moon, or p to pass.`"""
    amounts = number_bids(legal)
    choices = []
    if amounts:
        listed = either([str(bid) for bid in amounts]) if len(amounts) <= 2 else \
            f"{amounts[0]} to {amounts[-1]}"
        choices.append(f"bid {listed}")
    if any(a.kind == "bid" and a.bid == MOON for a in legal):
        choices.append("m for the moon")
    if any(a.kind == "pass" for a in legal):
        choices.append("p to pass")
    if not choices:
        return f"You cannot bid {amount} now."
    return f"You cannot bid {amount} now: {either(choices)}."


def either(choices: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b, or c`: the choices a player has, in words."""
    if len(choices) <= 2:
        return " or ".join(choices)
    return ", ".join(choices[:-1]) + ", or " + choices[-1]


def trump_refused_words(trump: int, legal: Sequence[Action]) -> str:
    """Why `trump` cannot be named at this table, and what may: `Doubles cannot be trump
    at this table: name a number, or n for no trump.`"""
    choices = ["name a number"]
    if Action.make_trump(TRUMP_DOUBLES) in legal:
        choices.append("d for doubles")
    if Action.make_trump(TRUMP_NONE) in legal:
        choices.append("n for no trump")
    what = "Doubles cannot be trump" if trump == TRUMP_DOUBLES else "No trump is not played"
    return f"{what} at this table: {either(choices)}."


def contract(view: SeatView, table: TableInfo, width: int | None = None) -> str:
    """`Ann bid 5, trump 3s` / `Ann bid 5, no trump` (or just `Ann bid 5` before trump
    is named); the name cut to `width`."""
    if view.declarer is None or view.bid is None:
        return ""
    amount = "the moon" if view.bid == MOON else str(view.bid)
    text = f"{seat_name(table, view.declarer, width)} bid {amount}"
    if view.trump is not None:
        text += f", {trump_clause(view.trump)}"
    return text


def trump_clause(trump: int) -> str:
    """`trump 3s`, `doubles trump`, `no trump`."""
    if trump == TRUMP_NONE:
        return "no trump"
    if trump == TRUMP_DOUBLES:
        return "doubles trump"
    return f"trump {trump_words(trump)}"


def side_name(rules: Rules, table: TableInfo, side: int, width: int | None = None) -> str:
    """A seat's name with 3 players, `Ann & Cy` for a team with 4."""
    if rules.players == 4:
        return f"{seat_name(table, side, width)} & {seat_name(table, side + 2, width)}"
    return seat_name(table, side, width)


def trump_counts(view: SeatView) -> list[tuple[int, int]]:
    """For each trump the declarer may name: how many of its tiles would be trumps."""
    mask = mask_of(view.hand)
    choices = [a.trump for a in view.legal if a.kind == "trump" and a.trump is not None]
    return [(t, (IS_TRUMP[t] & mask).bit_count()) for t in choices]


def suit_led(trick: Trick) -> str:
    """`5s led` / `trumps led` for an open trick (the engine says which suit was led)."""
    suit = trick.suit_led
    if suit is None:
        return ""
    return "trumps led" if suit == SUIT_TRUMP else f"{suit}s led"


def result_words(result: HandResult, rules: Rules, table: TableInfo) -> str:
    """`Ann bid 5 and made it (6 tricks).` / `Everybody passed: redeal.`"""
    if result.redeal or result.declarer is None or result.bid is None:
        return "Everybody passed: the hand is dealt again."
    who = seat_name(table, result.declarer)
    side = rules.side_of(result.declarer)
    took = sum(won for seat, won in enumerate(result.tricks_won)
               if rules.side_of(seat) == side)
    amount = "the moon" if result.bid == MOON else str(result.bid)
    verdict = "made it" if result.made else "was set"
    trump = "" if result.trump is None else f", {trump_clause(result.trump)}"
    return f"{who} bid {amount}{trump} and {verdict} ({took} tricks)."


def points_words(points: Sequence[int], rules: Rules, table: TableInfo) -> str:
    return ", ".join(f"{side_name(rules, table, s)} {p:+d}" for s, p in enumerate(points))


def restart_words(notice: RestartNotice) -> str:
    """`The server restarts in 60 s. ...`: what really happens, and the operator's message."""
    who = notice.by or "the server's system"
    if notice.seconds is None:
        return f"The server restart was called off ({who})."
    seconds = notice.seconds
    when = "now" if seconds <= 0 else (
        f"in {seconds} s" if seconds < 120 else f"in {round(seconds / 60)} min")
    text = (f"The server restarts {when}; your game will be here when you come back "
            "(the tables come back as they were, and your seat waits for you).")
    if notice.message:
        text += f" {who}: {notice.message}"
    return text


def house_rules(rules: Rules) -> list[str]:
    """The table's options that differ from the rules' defaults, each in a player's words
    (the new-table form's wording, shortened), in the form's order."""
    default = Rules.make(players=rules.players, scoring=rules.scoring)
    said = [
        (rules.set == "moon21", "no 0-0"),
        (rules.min_bid != default.min_bid, f"lowest bid {rules.min_bid}"),
        (rules.all_pass == "force_last", "last must bid"),
        (rules.team_scoring == "bid", "team scores its bid"),
        (rules.tie_break == "declarer", "bidder goes out"),
        (rules.trump_before_widow, "trump before widow"),
        (not rules.moon_wins_game, "moon does not end the game"),
        (not rules.doubles_trump, "no doubles trump"),
        (not rules.no_trump, "always a trump"),
        (rules.discard_shown, "discard face up"),
    ]
    return [words for differs, words in said if differs]


def game_words(rules: Rules) -> str:
    """`3 players to 21 points` / `4 players to 7 marks`."""
    unit = "mark" if rules.scoring == "marks" else "point"
    return f"{rules.players} players to {rules.target} {unit}{'s' if rules.target != 1 else ''}"


def rules_line(rules: Rules) -> str:
    """The whole of a table's rules in words: the game, then its house rules."""
    house = house_rules(rules)
    return game_words(rules) + (f"; {', '.join(house)}" if house else "")


def rules_cell(rules: Rules, width: int, timer: int | None = None) -> str:
    """A table's rules for the lobby's list in `width` cells: `3p to 21`, the turn timer,
    then as many house rules as fit whole; those that do not are counted (`+2 rules`, or
    `+2` where even that does not fit)."""
    unit = " marks" if rules.scoring == "marks" else ""
    head = f"{rules.players}p to {rules.target}{unit}" + (f" {timer}s" if timer else "")
    house = house_rules(rules)
    for shown in range(len(house), 0, -1):
        more = len(house) - shown
        tail = [f"+{more} rule{'s' if more > 1 else ''}"] if more else []
        cell = ", ".join([head, *house[:shown], *tail])
        if len(cell) <= width:
            return cell
    if not house:
        return head
    counted = f"{head}, +{len(house)} rule{'s' if len(house) > 1 else ''}"
    return counted if len(counted) <= width else f"{head} +{len(house)}"
