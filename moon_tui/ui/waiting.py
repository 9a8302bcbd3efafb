"""The waiting room: who sits where, computer players for the owner, start."""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Label, Static

from ..lobby.messages import (
    AddBot,
    BotLevel,
    ChatPosted,
    Event,
    JoinSeat,
    LeaveTable,
    RemoveBot,
    SendChat,
    StartGame,
    TableInfo,
    TableUpdate,
)
from .bars import KeyBar
from .base import MoonScreen, set_text
from .chat import ChatPanel
from .fields import Choice
from .rows import RowList
from .words import named, rules_line, seat_detail, watcher_names

SEAT_COLUMNS = (("Seat", 6), ("Who", 22), ("", 26))
PLAYER_LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "expert")
"""The computer levels a table's owner is offered (`random` is a test tool, not an
opponent: moon-arena and the tests still use it)."""


def seat_rows(info: TableInfo, me: str, operators: Collection[str] = ()
              ) -> list[tuple[str, str, str]]:
    rows = []
    for i, seat in enumerate(info.seats):
        if seat.name is not None:
            who = named(seat.name, operators) + (" (you)" if seat.name == me else "")
            what = "owner" if seat.name == info.owner else "player"
            if seat.away:
                what += ", away"
        elif seat.bot_level is not None:
            who, what = f"Bot {i + 1}", seat_detail(seat)
        else:
            who, what = "(empty)", "free seat"
        team = f"team {'AB'[i % 2]}" if info.rules.players == 4 else ""
        rows.append((f"Seat {i + 1}", who, " · ".join(w for w in (what, team) if w)))
    return rows


class WaitingScreen(MoonScreen):
    table_id: str
    AUTO_FOCUS = "RowList"
    BINDINGS = [
        Binding("b", "add_bot", "add bot"),
        Binding("x", "remove_bot", "drop bot"),
        Binding("v", "level", "level"),
        Binding("t", "take_seat", "sit here"),
        Binding("s", "start", "start"),
        Binding("i", "invite", "invite"),
        Binding("c", "chat", "chat"),
        Binding("p", "player_card", "card", show=False),
        Binding("escape", "unfocus_chat", "back", show=False),
        Binding("question_mark", "help", "help"),
        Binding("q", "leave", "leave"),
    ]

    def __init__(self, table_id: str) -> None:
        super().__init__(classes="waiting")
        self.table_id = table_id
        self.info: TableInfo | None = None
        """The table as last shown."""
        self._asked: set[int] = set()
        """Seats a computer player was asked for since `info` came: not free any more."""

    def compose_body(self) -> ComposeResult:
        yield Static(id="header")
        yield Static(id="info")
        yield RowList(SEAT_COLUMNS, id="seat-list")
        with Horizontal(id="owner-row"):
            yield Label("Computer level ")
            yield Choice([(level, level) for level in PLAYER_LEVELS], "normal", id="level")
            yield Button("Add bot (b)", id="add", compact=True)
            yield Button("Remove bot (x)", id="remove", compact=True)
            yield Button("Start (s)", id="start", compact=True, variant="primary")
        yield ChatPanel(placeholder="c: chat at this table",
                            max_length=self.moon.chat_max_chars, id="chat")
        yield KeyBar()

    def on_mount(self) -> None:
        model = self.moon.model
        info = model.table(self.table_id)
        if info is not None:
            self.show(info)
        self.query_one(ChatPanel).show(model.chat_of(self.table_id), model.operators)

    def table_event(self, event: Event) -> None:
        if isinstance(event, TableUpdate):
            self.show(event.table)
        elif isinstance(event, ChatPosted):
            self.query_one(ChatPanel).add(event.line, self.moon.model.operators)

    @property
    def is_owner(self) -> bool:
        info = self.info
        return info is not None and info.owner == self.moon.player_name

    def show(self, info: TableInfo) -> None:
        """Draw the waiting room as `info` shows the table."""
        self.info = info
        self._asked.clear()
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append(" Moon ", style="bold reverse")
        header.append(f" {info.name} · waiting room · owner {info.owner}")
        set_text(self.query_one("#header", Static), header)
        lines = [f"Rules: {rules_line(info.rules)}"]
        extra = []
        extra.append(f"turn timer {info.turn_seconds}s" if info.turn_seconds else "no timer")
        extra.append("private" if info.private else "public")
        extra.append("spectators welcome" if info.spectators_allowed else "no spectators")
        extra.append("rated: who leaves early ranks last" if info.rated else
                     "practice: one player, h shows hints, not rated" if info.practice
                     else "not rated")
        if info.spectators:
            extra.append("watching: " + ", ".join(watcher_names(info)))
        lines.append(" · ".join(extra))
        if info.invite_code:
            lines.append(f"Invite code: {info.invite_code}  (friends press i in the lobby)")
        free = sum(1 for s in info.seats if s.is_free)
        if self.is_owner:
            lines.append("Fill every seat (b adds a computer player), then press s to start."
                         if free else "Every seat is taken: press s to start.")
        else:
            lines.append(f"Waiting for {info.owner} to start the game.")
        set_text(self.query_one("#info", Static), "\n".join(lines), layout=True)
        self.query_one("#owner-row").display = self.is_owner
        self.query_one(RowList).set_rows(
            [(str(i), row) for i, row in enumerate(seat_rows(info, self.moon.player_name,
                                                           self.moon.model.operators))])
        self.refresh_bindings()

    def _seat(self) -> int:
        return self.query_one(RowList).cursor

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add_bot", "remove_bot", "level", "start"):
            return self.is_owner
        if action == "player_card":
            return self.moon.ratings is not None
        return True

    def action_player_card(self) -> None:
        """The card of whoever sits in the chosen seat (a computer: its level's)."""
        from ..lobby.seating import bot_name
        from .card import PlayerCardScreen

        info = self.info
        if info is None or not 0 <= self._seat() < len(info.seats):
            return
        seat = info.seats[self._seat()]
        name = seat.name or (bot_name(seat.bot_level) if seat.bot_level else None)
        if name is not None:
            self.app.push_screen(PlayerCardScreen(name))

    def _level(self) -> BotLevel:
        level: BotLevel = self.query_one("#level", Choice).value
        return level

    def action_add_bot(self) -> None:
        info = self.info
        if info is None:
            return
        seat = self._seat()
        # A seat asked for a moment ago counts as taken: `b b` typed fast fills two seats.
        free = [i for i, s in enumerate(info.seats) if s.is_free and i not in self._asked]
        if seat not in free:
            if not free:
                self.notify("Every seat is taken.", severity="warning")
                return
            seat = free[0]
        self._asked.add(seat)
        self.moon.send(AddBot(self.table_id, seat, self._level()))

    def action_remove_bot(self) -> None:
        info = self.info
        if info is None:
            return
        seat = self._seat()
        if not info.seats[seat].is_bot:
            bots = [i for i, s in enumerate(info.seats) if s.is_bot]
            if not bots:
                self.notify("No computer player to remove.", severity="warning")
                return
            seat = bots[-1]
        self.moon.send(RemoveBot(self.table_id, seat))

    def action_level(self) -> None:
        self.query_one("#level", Choice).action_step(1)

    def action_take_seat(self) -> None:
        self.moon.send(JoinSeat(self.table_id, self._seat()))

    def action_invite(self) -> None:
        from .invite import InviteScreen

        self.app.push_screen(InviteScreen(self.table_id))

    def action_start(self) -> None:

        self.moon.send(StartGame(self.table_id))

    def action_leave(self) -> None:
        self.moon.send(LeaveTable(self.table_id))

    def action_chat(self) -> None:
        self.query_one(ChatPanel).focus_input()

    def action_unfocus_chat(self) -> None:
        self.query_one(RowList).focus()

    @on(ChatPanel.Said)
    def _said(self, event: ChatPanel.Said) -> None:
        self.moon.send(SendChat(event.text, self.table_id))
        self.query_one(RowList).focus()

    @on(Button.Pressed, "#add")
    def _add(self) -> None:
        self.action_add_bot()

    @on(Button.Pressed, "#remove")
    def _remove(self) -> None:
        self.action_remove_bot()

    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        self.action_start()
