"""Operator commands, for the players the server names operators: one line each."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from ..commandline import whole_number
from ..lobby.messages import Ban, Broadcast, CancelRestart, CloseTable, Command, Kick, Restart
from .base import MoonModal, set_text, steady_input
from .timers import timer_delay

ALARM_REFRESH_SECONDS = 2.0
"""How often an open operator screen looks for new alarms (only operators open it)."""
USAGE = ("say TEXT · kick NAME REASON · ban NAME REASON · close TABLE REASON (reasons optional)"
         " · restart SECONDS MESSAGE · restart cancel")


OPERATOR_LINE_MAX = 500
"""Characters of one operator command: a broadcast or a reason reaches every screen."""

class OperatorError(ValueError):
    """A line that is not an operator command."""


def parse_operator(line: str) -> Command:
    """`say tea at 8` -> Broadcast(...), `kick bob rude` -> Kick(...), `restart 60 new
    version` -> Restart(60, "new version"), `restart cancel` -> CancelRestart()."""
    verb, _, rest = line.strip().partition(" ")
    rest = rest.strip()
    target, _, reason = rest.partition(" ")
    verb = verb.lower()
    if verb == "say" and rest:
        return Broadcast(rest)
    if verb == "kick" and target:
        return Kick(target, reason.strip())
    if verb == "ban" and target:
        return Ban(target, reason.strip())
    if verb == "close" and target:
        return CloseTable(target, reason.strip())
    if verb == "restart" and target.lower() == "cancel" and not reason.strip():
        return CancelRestart()
    seconds = whole_number(target) if verb == "restart" and target.isdigit() else None
    if seconds is not None:  # ASCII digits: `restart ²` once crashed the operator's app
        return Restart(seconds, reason.strip())
    raise OperatorError(f"not an operator command: {line.strip()!r} ({USAGE})")


class OperatorScreen(MoonModal):
    AUTO_FOCUS = "Input"

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide"):
            yield Static("Operator", classes="title")
            yield Static(USAGE)
            yield Static(id="operator-alarms")
            yield steady_input(placeholder="say Tournament at 8pm!", id="operator-line",
                               max_length=OPERATOR_LINE_MAX)
            yield Static(id="operator-message")
            yield Static("Enter sends · Esc closes", classes="hint")

    def on_mount(self) -> None:
        self._show_alarms()
        if self.moon.health is not None:
            self.set_interval(timer_delay(ALARM_REFRESH_SECONDS), self._show_alarms)

    def _show_alarms(self) -> None:
        """The server's problems (a full disk refusing game records...), plain text."""
        health = self.moon.health
        alarms = health.alarms() if health is not None else ()
        box = self.query_one("#operator-alarms", Static)
        box.display = bool(alarms)
        set_text(box, Text("\n".join(f"⚠ {alarm}" for alarm in alarms)), layout=True)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            command = parse_operator(event.value)
        except OperatorError as exc:
            set_text(self.query_one("#operator-message", Static), f"✗ {exc}", layout=True)
            return
        self.moon.send(command)
        event.input.clear()
        set_text(self.query_one("#operator-message", Static), f"Sent: {event.value.strip()}",
                 layout=True)
