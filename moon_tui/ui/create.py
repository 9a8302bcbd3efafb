"""The form that creates a table: every rule option of RULES.md, target, timer, privacy,
and whether its games count for the ratings (on for a public table, never when playing
alone)."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from ..lobby.messages import CreateTable
from ..rules import TARGET_MAX, Rules, RulesError
from .base import MoonModal, set_text, steady_input
from .fields import Choice, Flag

TIMERS: list[tuple[str, int | None]] = [("no timer", None), ("20 s", 20), ("30 s", 30),
                                       ("60 s", 60), ("120 s", 120)]

#: (field, label, choices) for the options chosen from a list.
CHOICES: list[tuple[str, str, list[tuple[str, Any]]]] = [
    ("players", "Players", [("3, each for themselves", 3), ("4, two teams", 4)]),
    ("min_bid", "Lowest bid", [("3", 3), ("4", 4), ("5", 5)]),
    ("all_pass", "If all pass", [("redeal", "redeal"), ("last must bid", "force_last")]),
    ("scoring", "Scoring", [("points", "points"), ("marks", "marks")]),
    ("team_scoring", "Team makes", [("tricks taken", "tricks"), ("the bid", "bid")]),
    ("tie_break", "Tie at target", [("play on", "continue"), ("bidder goes out", "declarer")]),
]
#: (field, label) for the on/off options.
FLAGS: list[tuple[str, str]] = [
    ("no00", "No 0-0 (21 tiles, no widow)"),
    ("trump_before_widow", "Trump named before taking the widow"),
    ("moon_wins_game", "A made moon wins the game"),
    ("doubles_trump", "Doubles may be trump"),
    ("no_trump", "No trump allowed"),
    ("discard_shown", "The discard is laid face up"),
]


OPTION_LABELS = {key: label for key, label, _ in CHOICES} | dict(FLAGS)


def option_label(option: str) -> str:
    """The form's label of a rule option (the option's own name where the form has none)."""
    return OPTION_LABELS.get(option, option)


def option_problem(option: str) -> str:
    """What is wrong with a rule option chosen (`RulesError.option`), in words: the form's
    own check, and the lobby's refusal (`Refusal.BAD_RULES`)."""
    if option == "target":
        return f"the target is a whole number from 1 to {TARGET_MAX}"
    return f"the option “{option_label(option)}” does not apply to this game"


RATED = "Rated: counts for the ratings; who leaves early ranks last"
PRACTICE = "Practice: you and computers, h for hints; not rated, not saved"
"""One line, as every option (a label that wraps would make the form lay out each flag's
height: more work and objects at every form opened, issue 36)."""
THREE_ONLY = ("no00",)
"""Options only a game of 3 has (4 players use every tile)."""
WIDOW_ONLY = ("trump_before_widow", "discard_shown")
"""Options about the widow: a game of 3 with the 0-0."""
FOUR_ONLY = ("team_scoring",)
"""Options only a game of two teams has."""


def free_name(wanted: str, taken: set[str]) -> str:
    """`wanted`, or `wanted 2`, `wanted 3`…: the first that no table has."""
    name, number = wanted, 1
    while name in taken:
        number += 1
        name = f"{wanted} {number}"
    return name


class FormScroll(VerticalScroll, can_focus=False):
    """Scrolls the form as focus moves through it, but takes no focus of its own.

    A focused container is restyled with all its descendants on every focus change
    (~50 ms here for the whole form, twice as the dialog opened)."""


class CreateTableScreen(MoonModal):
    """Build a `CreateTable` command; the rules check the options before it is sent."""

    AUTO_FOCUS = "#name"
    BINDINGS = [
        Binding("escape", "close", "cancel"),
        Binding("ctrl+s", "create", "create"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose_body(self) -> ComposeResult:
        defaults = Rules.make()
        with Vertical(id="create-box"):
            yield Static("New table", classes="title")
            with FormScroll(id="create-form"):
                with Grid(id="create-grid"):
                    yield Label("Name")
                    yield steady_input(value=self._default_name(), id="name", max_length=30)
                    for key, label, options in CHOICES:
                        yield Choice(options, getattr(defaults, key), label=label, id=key)
                    yield Label("Target")
                    yield steady_input(placeholder="21 points / 7 marks", id="target",
                                       type="integer", max_length=4)
                    yield Choice(TIMERS, None, label="Turn timer", id="timer")
                for key, label in FLAGS:
                    value = False if key == "no00" else getattr(defaults, key)
                    yield Flag(label, value, id=key)
                yield Flag("Private (join by invite code only)", False, id="private")
                yield Flag("Spectators may watch", True, id="spectators")
                if not self.moon.solo:
                    yield Flag(RATED, True, id="rated")
                    if self.moon.analyst is not None:
                        yield Flag(PRACTICE, False, id="practice")
            yield Static("Tab: next · ← →: change a choice · space: tick a box", classes="hint")
            yield Static(id="form-error")
            with Horizontal(id="create-buttons"):
                yield Button("Create (ctrl+s)", id="create", variant="primary", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def _default_name(self) -> str:
        lobby = self.moon.model.lobby
        taken = {table.name for table in lobby.tables} if lobby is not None else set()
        return free_name(f"{self.moon.player_name}'s table", taken)

    def on_mount(self) -> None:
        self._show_what_applies()

    @on(Choice.Changed, "#players")
    @on(Flag.Changed, "#no00")
    def _show_what_applies(self) -> None:
        """Show only the options of the game chosen: no 0-0 and the widow's options for 3
        players (the widow's only with the 0-0), the team's for 4."""
        applies = self._applies()
        # One walk of the form: a query per option walked it a dozen times (~15 ms of the
        # server's time at each form opened, issue 36).
        for widget in self.walk_children():
            if widget.id in applies:
                widget.display = applies[widget.id]

    @on(Flag.Changed, "#private")
    def _rated_when_public(self, event: Flag.Changed) -> None:
        """A public table is rated unless its owner says no; a private one is not unless
        they say so."""
        rated = self.query("#rated").first(Flag) if self.query("#rated") else None
        if rated is not None and rated.value == event.flag.value:
            rated.action_flip()

    @on(Flag.Changed, "#practice")
    def _practice_not_rated(self, event: Flag.Changed) -> None:
        """A practice table is never rated (the lobby refuses both): ticking one unticks
        the other."""
        rated = self.query_one("#rated", Flag)
        if event.flag.value and rated.value:
            rated.action_flip()

    @on(Flag.Changed, "#rated")
    def _rated_not_practice(self, event: Flag.Changed) -> None:
        practice = self.query("#practice").first(Flag) if self.query("#practice") else None
        if event.flag.value and practice is not None and practice.value:
            practice.action_flip()

    def _applies(self) -> dict[str, bool]:
        three = self.query_one("#players", Choice).value == 3
        widow = three and not self.query_one("#no00", Flag).value
        return {**dict.fromkeys(THREE_ONLY, three), **dict.fromkeys(WIDOW_ONLY, widow),
                **dict.fromkeys(FOUR_ONLY, not three)}

    def rules(self) -> Rules:
        """The options as chosen (those shown: a hidden one keeps its default);
        `RulesError` says which one is wrong."""
        applies = self._applies()
        options: dict[str, Any] = {}
        for key, _, _ in CHOICES:
            if applies.get(key, True):
                options[key] = self.query_one(f"#{key}", Choice).value
        if applies["no00"] and self.query_one("#no00", Flag).value:
            options["set"] = "moon21"
        for key, _ in FLAGS[1:]:
            if applies.get(key, True):
                options[key] = self.query_one(f"#{key}", Flag).value
        target = self.query_one("#target", Input).value.strip()
        if target:
            try:
                options["target"] = int(target)
            except ValueError:  # a lone "-": the field takes only digits and a sign
                raise RulesError(f"target {target!r} is not a number", "target") from None
        return Rules.make(**options)

    def command(self) -> CreateTable:
        name = self.query_one("#name", Input).value.strip() or self._default_name()
        timer: int | None = self.query_one("#timer", Choice).value
        return CreateTable(
            name=name,
            rules=self.rules(),
            turn_seconds=timer,
            private=self.query_one("#private", Flag).value,
            spectators_allowed=self.query_one("#spectators", Flag).value,
            rated=not self.moon.solo and self.query_one("#rated", Flag).value,
            practice=bool(self.query("#practice"))
            and self.query_one("#practice", Flag).value,
        )

    def action_create(self) -> None:
        try:
            command = self.command()
        except RulesError as exc:
            set_text(self.query_one("#form-error", Static), f"✗ {option_problem(exc.option)}")
            return
        self.moon.send(command)
        self.dismiss(None)

    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.action_close()

    @on(Input.Submitted, "#name")
    def _submitted(self) -> None:
        self.action_create()
