"""The operators' dashboard: who is on, the tables, the server's load, bans and members,
and the commands that act on them, from the lists or typed.

Everything shown comes from the host's `ServerHealth` (`moon_tui/services.py`); lobby
commands (say, kick, ban, unban, close, restart, motd) go to the lobby, which answers with
a notice; a member's keys and name are changed through the host directly. A key pressed
on a list writes the command into the command line, to finish (a time, a reason) and
send with Enter: nothing is done by one stray key.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from ..lobby.messages import (
    Ban,
    Broadcast,
    CancelRestart,
    ClearBoard,
    CloseTable,
    Command,
    Kick,
    Restart,
    SetMotd,
    Unban,
)
from ..services import (
    AccountRefused,
    BanFacts,
    KeyFacts,
    LoadFacts,
    MemberFacts,
    PersonOn,
    ServerHealth,
    TableFacts,
)
from .account_words import key_removed_words, refusal_words, renamed_words
from .alarm_words import raised_words
from .bars import KeyBar
from .base import MoonModal, set_text, steady_input
from .rows import Row, RowList
from .timers import timer_delay

REFRESH_SECONDS = 2.0
"""How often an open dashboard reads the server's facts again (only operators open it)."""
USAGE = ("say [TIME] TEXT · unsay · motd [TEXT] · kick NAME [TIME] [REASON] · ban NAME "
         "[REASON] · unban NAME · close ID [REASON] · rename OLD NEW · unkey NAME KEY · "
         "restart SECONDS [MESSAGE] · restart cancel · TIME: 30m, 2h, 1d")


OPERATOR_LINE_MAX = 500
"""Characters of one operator command: a broadcast or a reason reaches every screen."""

_DURATION = re.compile(r"([0-9]+)([smhd])")
"""A time as typed: `30m`, `2h`, `1d`, `90s` (ASCII digits and a unit, nothing else). Of
any length: a time too long is the lobby's to refuse (`BAD_MINUTES`), not a word of the
reason (`kick bob 99999999m` kicked bob for the default 10 minutes)."""
_MINUTES_PER = {"s": 1 / 60, "m": 1.0, "h": 60.0, "d": 24 * 60.0}


class OperatorError(ValueError):
    """A line that is not an operator command."""


@dataclass(frozen=True, slots=True)
class RenameMember:
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class RemoveMemberKey:
    name: str
    fingerprint: str


MemberChange = RenameMember | RemoveMemberKey


def minutes_of(word: str) -> float | None:
    """`30m` -> 30.0, `2h` -> 120.0; None when `word` is not a time."""
    found = _DURATION.fullmatch(word)
    return None if found is None else float(found.group(1)) * _MINUTES_PER[found.group(2)]


def _timed(rest: str) -> tuple[float | None, str]:
    """An optional time in front of the rest of a line: `30m rude` -> (30.0, "rude")."""
    first, _, after = rest.partition(" ")
    minutes = minutes_of(first)
    return (None, rest) if minutes is None else (minutes, after.strip())


def parse_operator(line: str) -> Command | MemberChange:
    """`say tea at 8` -> Broadcast(...), `kick bob 30m rude` -> Kick("bob", "rude", 30),
    `restart 60 new version` -> Restart(60, "new version"), `rename bob robert` ->
    RenameMember(...). A leading ":" is the key that opened the line, typed once more
    (`:kick bob`): it is not part of the command."""
    verb, _, rest = line.strip().removeprefix(":").lstrip().partition(" ")
    rest = rest.strip()
    target, _, reason = rest.partition(" ")
    reason = reason.strip()
    verb = verb.lower()
    if verb == "say" and rest:
        minutes, text = _timed(rest)
        if text:
            return Broadcast(text, minutes)
    if verb == "unsay" and not rest:
        return ClearBoard()
    if verb == "motd":
        return SetMotd(rest)
    if verb == "kick" and target:
        minutes, why = _timed(reason)
        return Kick(target, why, minutes)
    if verb == "ban" and target:
        return Ban(target, reason)
    if verb == "unban" and target and not reason:
        return Unban(target)
    if verb == "close" and target:
        return CloseTable(target, reason)
    if verb == "rename" and target and reason and " " not in reason:
        return RenameMember(target, reason)
    if verb == "unkey" and target and reason and " " not in reason:
        return RemoveMemberKey(target, reason)
    if verb == "restart" and target.lower() == "cancel" and not reason:
        return CancelRestart()
    if verb == "restart" and target.isascii() and target.isdigit() and len(target) <= 6:
        return Restart(int(target), reason)  # ASCII digits: `restart ²` once crashed it
    raise OperatorError(f"not an operator command: {line.strip()!r}\n{USAGE}")


# --- words for the lists ------------------------------------------------------------------

def span(seconds: float) -> str:
    """`45s`, `12m`, `3h`, `2d`: a duration in a few cells."""
    seconds = max(0.0, seconds)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def person_row(person: PersonOn) -> Row:
    """A person on another worker of the club shows where they are, not their address."""
    kind = "op" if person.operator else "guest" if person.guest else \
        "key" if person.here else "–"
    place, table_id = person.place
    where = "lobby" if place == "idle" else f"{'at' if place == 'seated' else 'watch'} " \
        f"{table_id or 'private'}"
    if not person.here:
        return person.name, (person.name, kind, "another worker", where, "–")
    return person.name, (person.name, kind, person.address, where, span(person.idle_seconds))


def table_row(table: TableFacts, now: float) -> Row:
    names = [s.name or (f"{s.bot_level} bot" if s.bot_level else "free") for s in table.seats]
    players = ", ".join(names) + (f" +{table.spectators} watch" if table.spectators else "")
    name = table.name + (" (private)" if table.private else "")
    started = "–" if table.started is None else f"{span(now - table.started)} ago"
    hand = "–" if table.hand is None else str(table.hand)
    return table.table_id, (table.table_id, name, players, table.status, hand, started)


def ban_row(ban: BanFacts, now: float) -> Row:
    until = "for good" if ban.until is None else f"{span(ban.until - now)} left"
    holds = ", ".join(part for part in (
        f"{ban.keys} key{'s' if ban.keys != 1 else ''}" if ban.keys else "",
        f"{ban.addresses} addr" if ban.addresses else "") if part) or "name"
    return ban.name, (ban.name, "kick" if ban.kick else "ban", until, holds,
                      ban.reason or "–")


def member_rows(members: Sequence[MemberFacts], now: float) -> list[Row]:
    """One row per key (the member's name on its first), one for a member with none."""
    rows: list[Row] = []
    for member in members:
        if not member.keys:
            rows.append((f"{member.name}\n", (member.name, "no key", "", "", "")))
        for index, key in enumerate(member.keys):
            used = "never" if key.last_used is None else f"{span(now - key.last_used)} ago"
            rows.append((f"{member.name}\n{key.fingerprint}", (
                member.name if index == 0 else "", short_key(key.fingerprint),
                key_type_words(key), f"{span(now - key.added)} ago", used)))
    return rows


def key_type_words(key: KeyFacts) -> str:
    """`ssh-ed25519`, with the note kept with the key after it when there is one."""
    return f"{key.kind} · {key.comment}" if key.comment else key.kind


def short_key(fingerprint: str) -> str:
    """`SHA256:AbCdEfGh…`: enough of a fingerprint to tell keys apart on a line."""
    return fingerprint if len(fingerprint) <= 16 else fingerprint[:15] + "…"


def counts_words(load: LoadFacts, tables: int) -> str:
    """`3 players · 1 table · CPU 4%`, for the dashboard's top line."""
    return (f"{load.players} player{'s' if load.players != 1 else ''} · {tables} "
            f"table{'s' if tables != 1 else ''} · CPU {load.cpu_share:.0%}")


def load_words(load: LoadFacts) -> str:
    """The busy alarm's figures in a line: how often the event loop fell behind."""
    window = "minute" if load.window_seconds == 60 else f"{load.window_seconds:g} s"
    state = "BUSY" if load.busy else "fine"
    stalls = "no stall" if not load.stalls else \
        f"{load.stalls} stall{'s' if load.stalls != 1 else ''} (up to {load.longest_ms:.0f} ms)"
    return f"Load: {state} · {stalls} over {load.stall_ms:.0f} ms in the last {window}"



# --- the screen ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Section:
    key: str
    title: str
    columns: tuple[tuple[str, int], ...]
    flex: tuple[int, ...]


SECTIONS = (
    Section("people", "People", (("Name", 16), ("Key", 5), ("From", 15), ("Where", 12),
                                  ("Idle", 5)), (2, 3)),
    Section("tables", "Tables", (("Id", 7), ("Table", 14), ("Players", 23), ("Status", 8),
                                  ("Hand", 4), ("Started", 8)), (1, 2)),
    Section("bans", "Bans", (("Name", 16), ("Kind", 4), ("Ends", 10), ("Holds", 12),
                              ("Reason", 16)), (4,)),
    Section("members", "Members", (("Name", 16), ("Key", 16), ("Type", 14),
                                    ("Added", 8), ("Last used", 9)), (2,)),
)
ACTIONS = {"people": ("kick", "ban"), "tables": ("close",), "bans": ("unban",),
           "members": ("unkey", "rename")}
"""The list actions each section offers (its bindings' actions)."""


class OperatorScreen(MoonModal):
    """The dashboard: a full screen over the lobby."""

    AUTO_FOCUS = "#list-people"
    BINDINGS = [
        Binding("tab", "section(1)", "next list", priority=True),
        Binding("shift+tab", "section(-1)", "previous list", show=False, priority=True),
        Binding("k", "list_command('kick')", "kick"),
        Binding("b", "list_command('ban')", "ban"),
        Binding("x", "list_command('close')", "close"),
        Binding("u", "list_command('unban')", "unban"),
        Binding("d", "list_command('unkey')", "remove key"),
        Binding("r", "list_command('rename')", "rename"),
        Binding("s", "type('say ')", "say"),
        Binding("m", "type('motd ')", "motd"),
        Binding("colon", "type('')", "command"),
        Binding("escape", "close", "close"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dashboard")
        self.section = 0
        self._bans: list[BanFacts] = []
        self._members: list[MemberFacts] = []
        self._from_list = False
        """The command line was filled from a list: Enter goes back to it."""


    @property
    def health(self) -> ServerHealth | None:
        return self.moon.health

    def compose_body(self) -> ComposeResult:
        with Vertical(id="dashboard"):
            yield Static(id="header")
            yield Static(id="load")
            yield Static(id="operator-alarms")

            yield Static(id="sections")
            for section in SECTIONS:
                yield RowList(section.columns, flex=section.flex, id=f"list-{section.key}")
            yield Static(id="operator-hint", classes="hint")
            yield steady_input(placeholder=": a command (say, kick, ban, unban, close...)",
                               id="operator-line", max_length=OPERATOR_LINE_MAX,
                               select_on_focus=False)
            yield Static(id="operator-message")
            yield KeyBar()

    def on_mount(self) -> None:
        self._show_section()
        self.refresh_facts()
        if self.health is not None:
            self.set_interval(timer_delay(REFRESH_SECONDS), self.refresh_facts)

    # -- what it shows ---------------------------------------------------------------------
    def refresh_facts(self) -> None:
        """Read the facts again: at once those kept in memory, the database's in a worker."""
        health = self.health
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append(" Moon ", style="bold reverse")
        header.append(" operator")
        if health is None:
            set_text(self.query_one("#header", Static), header)
            return
        tables = health.tables()
        load = health.load()
        header.append(" · " + counts_words(load, len(tables)))
        set_text(self.query_one("#header", Static), header)
        set_text(self.query_one("#load", Static), load_words(load))
        alarms = health.alarms()
        box = self.query_one("#operator-alarms", Static)
        box.display = bool(alarms)
        set_text(box, Text("\n".join(f"⚠ {raised_words(alarm)}" for alarm in alarms)),
                 layout=True)
        now = time.time()
        self._set_rows("people", [person_row(p) for p in health.people()])
        self._set_rows("tables", [table_row(t, now) for t in tables])
        self._set_rows("bans", [ban_row(b, now) for b in self._bans])
        self._set_rows("members", member_rows(self._members, now))
        self.read_stored()

    @work(exclusive=True, group="dashboard-db")
    async def read_stored(self) -> None:
        """The bans always (a few rows); the members while their list is shown."""
        health = self.health
        if health is None:
            return
        self._bans = await health.bans()
        now = time.time()
        self._set_rows("bans", [ban_row(b, now) for b in self._bans])
        if SECTIONS[self.section].key == "members":
            self._members = await health.members()
            self._set_rows("members", member_rows(self._members, now))

    def _set_rows(self, key: str, rows: list[Row]) -> None:
        rows_list = self.query_one(f"#list-{key}", RowList)
        had = rows_list.selected is not None
        if not rows_list.set_rows(rows):
            return
        # A list shown after it was hidden drew only its first changed line (its size
        # while hidden); a dashboard is one per operator: the whole list is cheap.
        rows_list.refresh()
        if had != (rows_list.selected is not None):
            self.refresh_bindings()


    def _show_section(self) -> None:
        shown = SECTIONS[self.section]
        for section in SECTIONS:
            self.query_one(f"#list-{section.key}", RowList).display = section is shown
        tabs = Text(no_wrap=True, overflow="ellipsis")
        for index, section in enumerate(SECTIONS):
            tabs.append(f" {section.title} ", style="bold reverse" if section is shown else "")
            if index < len(SECTIONS) - 1:
                tabs.append(" ")
        tabs.append("  Tab: next list", style="dim")
        set_text(self.query_one("#sections", Static), tabs)
        hints = {"people": "k: kick (kept out 10 min, or a time: 30m) · b: ban",
                 "tables": "x: close a table (by its id)",
                 "bans": "u: unban (lets the name, its keys and addresses back)",
                 "members": "d: remove a key · r: rename a member"}
        set_text(self.query_one("#operator-hint", Static), hints[shown.key])
        self.query_one(f"#list-{shown.key}", RowList).focus()
        self.refresh_bindings()

    # -- acting ----------------------------------------------------------------------------
    def _list(self) -> RowList:
        return self.query_one(f"#list-{SECTIONS[self.section].key}", RowList)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "list_command":
            section = SECTIONS[self.section].key
            if parameters[0] not in ACTIONS[section] or \
                    self.query_one("#operator-line", Input).has_focus:
                return False  # while typing, letters are words (Tab goes to the list)

            return True if self._list().selected else None
        if action in ("section", "type"):
            return not self.query_one("#operator-line", Input).has_focus or action == "section"
        return True

    def action_section(self, step: int) -> None:
        """The next list (from the command line too: Tab always goes to a list)."""
        self.section = (self.section + step) % len(SECTIONS)

        self._show_section()
        if SECTIONS[self.section].key == "members":
            self.read_stored()

    def action_list_command(self, verb: str) -> None:
        key = self._list().selected
        if not key:
            return
        name, _, fingerprint = key.partition("\n")
        words = {"kick": f"kick {name} ", "ban": f"ban {name} ", "close": f"close {name} ",
                 "unban": f"unban {name}", "unkey": f"unkey {name} {fingerprint}",
                 "rename": f"rename {name} "}
        if verb == "unkey" and not fingerprint:
            return
        self.action_type(words[verb])
        self._from_list = True

    def action_type(self, text: str) -> None:
        """Write `text` into the command line and go there, to finish and send it."""
        self._from_list = False
        line = self.query_one("#operator-line", Input)
        line.value = text
        line.cursor_position = len(text)
        line.focus()

    def action_close(self) -> None:
        line = self.query_one("#operator-line", Input)
        if line.has_focus and line.value:  # Esc first drops what was typed
            line.clear()
            self._list().focus()
            return
        self.dismiss(None)


    def _say(self, text: str) -> None:
        set_text(self.query_one("#operator-message", Static), text, layout=True)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            command = parse_operator(event.value)
        except OperatorError as exc:
            self._say(f"✗ {exc}")
            return
        event.input.clear()
        if self._from_list:  # back where the command came from: the list, or the line
            self._list().focus()
        if isinstance(command, RenameMember | RemoveMemberKey):
            self.change_member(command)
            return
        self.moon.send(command)
        self._say(f"Sent: {event.value.strip()}")

    @work(group="members")
    async def change_member(self, change: MemberChange) -> None:
        health = self.health
        if health is None:
            self._say("✗ This server has no members to change.")
            return
        try:
            if isinstance(change, RenameMember):
                await health.rename_member(change.old, change.new)
                done = renamed_words(change.old, change.new)
            else:
                left = await health.remove_member_key(change.name, change.fingerprint)
                done = key_removed_words(change.name, left)
        except AccountRefused as refused:
            self._say(f"✗ {refusal_words(refused.why, refused.name)}")
            return
        self._say(done)
        self.read_stored()
