"""The form that creates a table: every rule option of RULES.md, target, timer, privacy."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from ..lobby.messages import CreateTable
from ..rules import Rules, RulesError
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
    ("no00", "No 0-0 (21 tiles, no widow; 3 players)"),
    ("trump_before_widow", "Trump named before taking the widow"),
    ("moon_wins_game", "A made moon wins the game"),
    ("doubles_trump", "Doubles may be trump"),
    ("no_trump", "No trump (follow-me) allowed"),
    ("discard_shown", "The discard is laid face up (3 players, with 0-0)"),
]


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
                    yield steady_input(value=f"{self.moon.player_name}'s table", id="name",
                                       max_length=30)
                    for key, label, options in CHOICES:
                        yield Label(label)
                        yield Choice(options, getattr(defaults, key), id=key)
                    yield Label("Target")
                    yield steady_input(placeholder="21 points / 7 marks", id="target",
                                       type="integer", max_length=4)
                    yield Label("Turn timer")
                    yield Choice(TIMERS, None, id="timer")
                for key, label in FLAGS:
                    value = False if key == "no00" else getattr(defaults, key)
                    yield Flag(label, value, id=key)
                yield Flag("Private (join by invite code only)", False, id="private")
                yield Flag("Spectators may watch", True, id="spectators")
            yield Static("Tab: next · ← →: change a choice · space: tick a box", classes="hint")
            yield Static(id="form-error")
            with Horizontal(id="create-buttons"):
                yield Button("Create (ctrl+s)", id="create", variant="primary", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def rules(self) -> Rules:
        """The options as chosen; `RulesError` says which one is wrong."""
        options: dict[str, Any] = {}
        for key, _, _ in CHOICES:
            options[key] = self.query_one(f"#{key}", Choice).value
        players = options["players"]
        if players == 3 and self.query_one("#no00", Flag).value:
            options["set"] = "moon21"
        for key, _ in FLAGS[1:]:
            options[key] = self.query_one(f"#{key}", Flag).value
        target = self.query_one("#target", Input).value.strip()
        if target:
            options["target"] = int(target)
        return Rules.make(**options)

    def command(self) -> CreateTable:
        name = self.query_one("#name", Input).value.strip() or f"{self.moon.player_name}'s table"
        timer: int | None = self.query_one("#timer", Choice).value
        return CreateTable(
            name=name,
            rules=self.rules(),
            turn_seconds=timer,
            private=self.query_one("#private", Flag).value,
            spectators_allowed=self.query_one("#spectators", Flag).value,
        )

    def action_create(self) -> None:
        try:
            command = self.command()
        except (RulesError, ValueError) as exc:
            set_text(self.query_one("#form-error", Static), f"✗ {exc}")
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
