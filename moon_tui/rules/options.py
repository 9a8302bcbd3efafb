"""The table options of RULES.md, as one frozen value with the defaults of the rules."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..commandline import whole_number
from ..shown import brief, shown
from .tiles import SET_NAMES, TRUMP_DOUBLES, TRUMP_NONE, SetName, tile_set

AllPass = Literal["redeal", "force_last"]
Scoring = Literal["points", "marks"]
TeamScoring = Literal["tricks", "bid"]
TieBreak = Literal["continue", "declarer"]

MOON: Final = 21
"""The bid that shoots the moon: all seven tricks."""

TARGET_MAX: Final = 1000
"""The highest target a game may be played to (points or marks)."""

WIDOW_OPTIONS: Final = ("trump_before_widow", "discard_shown")
"""Options about the widow, which only a game of 3 with the 0-0 (`moon22`) has."""


class RulesError(ValueError):
    """An option that does not exist, or a value it may not take. Its text is for a
    command line or a log; `option` names the option at fault, as data for a screen."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option

    def __reduce__(self) -> tuple[type[RulesError], tuple[str, str]]:
        """Whole across processes (a computer's worker): `args` holds only the text."""
        return type(self), (str(self), self.option)


@functools.cache
def set_numbers(name: SetName) -> tuple[int, ...]:
    """The numbers 0-6 that some tile of the set carries (1-6 in `moon21`)."""
    return tuple(n for n in range(7) if any(t.has(n) for t in tile_set(name)))


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of RULES.md. Build with `Rules.make(...)` to get the right defaults."""

    players: int = 3
    set: SetName = "moon22"
    min_bid: int = 4
    all_pass: AllPass = "redeal"
    trump_before_widow: bool = False
    scoring: Scoring = "points"
    team_scoring: TeamScoring = "tricks"
    target: int = 21
    moon_wins_game: bool = True
    tie_break: TieBreak = "continue"
    doubles_trump: bool = True
    no_trump: bool = True
    discard_shown: bool = False
    """Once the declarer has discarded, every seat and spectator sees the discard."""

    @classmethod
    def make(cls, **options: Any) -> Rules:
        """Rules from options; missing ones take the defaults, which depend on `players`
        (the set) and `scoring` (the target)."""
        unknown = set(options) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            named = sorted(unknown)[:5]
            raise RulesError("unknown rule option: "
                             f"{', '.join(shown(k, 40) for k in named)}", shown(named[0], 40))
        players = options.get("players", 3)
        if type(players) is not int or players not in (3, 4):
            raise RulesError(f"players must be 3 or 4, not {brief(players)}", "players")
        options.setdefault("set", "full28" if players == 4 else "moon22")
        options.setdefault("target", 7 if options.get("scoring") == "marks" else 21)
        rules = cls(**options)
        rules.check()
        return rules

    def check(self) -> None:
        """Raise `RulesError` unless every option holds an allowed value."""
        def one_of(name: str, allowed: Iterable[object]) -> None:
            value = getattr(self, name)
            allowed = tuple(allowed)
            if type(value) is not type(allowed[0]) or value not in allowed:
                listed = ", ".join(str(a).lower() if isinstance(a, bool) else str(a)
                                   for a in allowed)
                raise RulesError(f"{name} must be one of {listed}, not {brief(value)}", name)

        one_of("players", (3, 4))
        one_of("set", SET_NAMES)
        one_of("min_bid", (3, 4, 5))
        one_of("all_pass", ("redeal", "force_last"))
        one_of("scoring", ("points", "marks"))
        one_of("team_scoring", ("tricks", "bid"))
        one_of("tie_break", ("continue", "declarer"))
        for flag in ("trump_before_widow", "moon_wins_game", "doubles_trump", "no_trump",
                     "discard_shown"):
            one_of(flag, (True, False))
        if type(self.target) is not int or \
                not 1 <= self.target <= TARGET_MAX:
            raise RulesError(f"target must be a whole number from 1 to {TARGET_MAX}, not "
                             f"{brief(self.target)}", "target")
        if (self.players == 4) != (self.set == "full28"):
            raise RulesError(
                f"set {self.set} is for {'4' if self.set == 'full28' else '3'} players, "
                f"not {self.players}", "set")

    def check_new(self) -> None:
        """`check`, and for a new table or record: no option that would change nothing
        here (the widow's options without a widow, the teams' scoring without teams).

        `check` lets them be: tables saved and records written before (the new-table form
        offered them at any table until issue 30) hold them, and are still read; the
        rules ignore them.
        """
        self.check()
        if not self.has_widow:
            for name in WIDOW_OPTIONS:
                if getattr(self, name):
                    raise RulesError(
                        f"{name} needs the widow: 3 players with the 0-0 (set moon22), not "
                        f"{self.players} players with set {self.set}", name)
        if self.players != 4 and self.team_scoring != "tricks":
            raise RulesError(f"team_scoring is for 4 players in two teams, not "
                             f"{self.players} players", "team_scoring")

    @property
    def has_widow(self) -> bool:
        return self.set == "moon22"

    @property
    def sides(self) -> int:
        """How many sides score: each seat with 3 players, two teams with 4."""
        return 2 if self.players == 4 else self.players

    @property
    def trumps(self) -> tuple[int, ...]:
        """The trumps a declarer may name here: the numbers some tile of the set carries
        (`moon21` has no 0: naming it would be no trump at a table that may forbid it), then
        doubles and no trump if allowed."""
        return set_numbers(self.set) + ((TRUMP_DOUBLES,) if self.doubles_trump else ()) \
            + ((TRUMP_NONE,) if self.no_trump else ())

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    def to_dict(self) -> dict[str, Any]:
        """Every option, for a `moon/1` record."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        return cls.make(**dict(data))

    def summary(self) -> str:
        """A short line for lists of tables: only what differs from the defaults."""
        return _summary(self)


@functools.lru_cache(maxsize=256)
def _summary(rules: Rules) -> str:
    """`Rules.summary`, kept: every lobby on screen shows it for every table, and a club's
    tables share a few sets of rules (it was 7% of the server's time, py-spy, while 300
    players left a club evening and each departure redrew the lobbies)."""
    default = Rules.make(players=rules.players, scoring=rules.scoring)
    parts = [f"{rules.players}p", rules.scoring if rules.scoring == "marks" else "",
             f"to {rules.target}"]
    for f in dataclasses.fields(rules):
        if f.name in ("players", "scoring", "target"):
            continue
        value = getattr(rules, f.name)
        if value != getattr(default, f.name):
            if isinstance(value, bool):
                parts.append(f.name.replace("_", " ") if value else f"no {f.name}")
            else:
                parts.append(f"{f.name}={value}")
    return " ".join(p for p in parts if p)


def parse_option(text: str) -> tuple[str, Any]:
    """Parse `key=value` as given on a command line (`min_bid=3`, `no_trump=false`)."""
    if "=" not in text:
        raise RulesError(f"a rule option is written key=value, not {brief(text)}",
                         brief(text))
    key, raw = (part.strip() for part in text.split("=", 1))
    key = key.replace("-", "_")
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    if key not in fields:
        raise RulesError(f"unknown rule option: {brief(key)} (one of {', '.join(fields)})",
                         brief(key))
    default = getattr(Rules(), key)
    value: Any
    if isinstance(default, bool):
        lowered = raw.lower()
        if lowered in ("true", "yes", "on", "1"):
            value = True
        elif lowered in ("false", "no", "off", "0"):
            value = False
        else:
            raise RulesError(f"{key} is true or false, not {brief(raw)}", key)
    elif isinstance(default, int):
        value = whole_number(raw)
        if value is None:  # `min_bid=٣` is refused, not taken as 3
            raise RulesError(f"{key} is a whole number in digits 0-9, not {brief(raw)}",
                             key)
    else:
        value = raw
    return key, value


def parse_options(texts: Iterable[str]) -> dict[str, Any]:
    return dict(parse_option(t) for t in texts)
