"""The lobby: the tables, who is online, the lobby chat; create, join, watch."""

from __future__ import annotations

import time
from collections.abc import Collection

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from ..lobby.messages import (
    BoardNote,
    ChatPosted,
    Invitations,
    JoinByCode,
    JoinSeat,
    LobbyUpdate,
    Notice,
    Place,
    SendChat,
    Spectate,
    TableInfo,
)
from ..lobby.notices import Tell
from .bars import KeyBar
from .base import MoonScreen, set_text
from .chat import ChatPanel
from .notices import notice_words
from .refusals import refusal_words
from .rows import Row, RowList
from .words import fit, named, rules_cell

GUEST_NOTE = (
    "You play as a guest: your SSH client offered no key, so this name is for this visit "
    "only. To keep a name: run ssh-keygen, then ssh again."
)

ONLINE_NAMES = 8
"""Lines the online panel has for names (`#lower` is 9 lines high, one is the title)."""

#: (title, width): 79 columns with the cell padding, so the list fits at 80x24.
COLUMNS = (("Table", 16), ("Rules", 18), ("Seats", 19), ("Status", 11), ("Watch", 5))
RULES_COLUMN, SEATS_COLUMN = 1, 2
"""The columns that share the room a wider screen gives."""


def seats_cell(info: TableInfo, width: int = 19, operators: Collection[str] = ()) -> str:
    """Who sits at the table, in `width` cells: the players' names (operators marked),
    then the computer players (`2 bots, normal`); names that do not fit are counted
    (`+2`), never cut."""
    names = [named(seat.name, operators) for seat in info.seats if seat.name is not None]
    levels = [seat.bot_level for seat in info.seats if seat.name is None
              and seat.bot_level is not None]
    bots = ""
    if levels:
        count = f"{len(levels)} bot{'s' if len(levels) > 1 else ''}"
        level = f", {levels[0]}" if len(set(levels)) == 1 else ""
        bots = count + level
        if len(", ".join([*names, bots])) > width:
            bots = count
    parts = [*names, bots] if bots else names
    if not parts:
        return "–"
    shown = len(names)
    while shown:
        more = len(names) - shown
        cell = ", ".join([*names[:shown], *([bots] if bots else []),
                          *([f"+{more}"] if more else [])])
        if len(cell) <= width:
            return cell
        shown -= 1
    others = len(names)
    return ", ".join([*([f"{others} player{'s' if others > 1 else ''}"] if others else []),
                      *([bots] if bots else [])])


def status_cell(info: TableInfo) -> str:
    taken = sum(1 for s in info.seats if not s.is_free)
    if info.status == "waiting":
        return f"waiting {taken}/{len(info.seats)}"
    return info.status


def watch_cell(info: TableInfo) -> str:
    if not info.spectators_allowed:
        return "closed"
    return str(len(info.spectators))


def place_words(place: Place, tables: tuple[TableInfo, ...]) -> str:
    """`at ann's table` / `watching t3` / `idle` (a private table is not named)."""
    kind, table_id = place
    if kind == "idle":
        return "idle"
    name = next((t.name for t in tables if t.table_id == table_id), None)
    where = "a private table" if table_id is None else (name or f"table {table_id}")
    return f"at {where}" if kind == "seated" else f"watching {where}"


def online_text(online: tuple[str, ...], me: str, places: tuple[Place, ...] = (),
                tables: tuple[TableInfo, ...] = (), width: int = 20,
                operators: Collection[str] = ()) -> Text:
    """Who is online and where (at a table, watching, idle), in lines of `width` cells: as
    many players as the panel has lines for (you first), then how many more. A place that
    does not fit whole beside its name goes on the line below; names are never cut;
    operators are marked.


    Only what fits is drawn: in a club of hundreds, every arrival redraws every lobby."""
    where = dict(zip(online, places, strict=False))
    order = ([me] if me in online else []) + [n for n in online if n != me]
    entries: list[list[str]] = []
    used = 0
    for name in order:
        label = f"• {named(name, operators)}" + (" (you)" if name == me else "")
        place = where.get(name)
        entry = [label]
        if place is not None:
            words = place_words(place, tables)
            if len(label) + 1 + len(words) <= width:
                entry = [f"{label} {words}"]
            else:
                entry.append("  " + fit(words, width - 2))
        if used + len(entry) > ONLINE_NAMES:
            break
        entries.append(entry)
        used += len(entry)
    more = len(order) - len(entries)
    if more and used == ONLINE_NAMES:
        used -= len(entries.pop())
        more += 1
    text = Text(f"Online ({len(online)})", style="bold", no_wrap=True, overflow="ellipsis")
    for entry in entries:
        for line in entry:
            text.append(f"\n{line}", style="")
    if more:
        text.append(f"\n… and {more} more", style="dim")
    return text


def seats_waiting(tables: tuple[TableInfo, ...], me: str) -> list[TableInfo]:
    """The games going on with a computer in `me`'s seat, theirs to take back."""
    return [t for t in tables if t.status == "playing"
            and any(s.held_for == me for s in t.seats)]


def board_text(note: BoardNote | None, motd: str, now: float,
               waiting: list[TableInfo] | tuple[()] = ()) -> Text:
    """The lobby's notice board: the games whose seat waits for the player, the
    operators' note (who put it up, when it comes down) and the message of the day, one
    line each, as plain text."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    for info in waiting:
        if text.plain:
            text.append("\n")
        text.append(notice_words(Notice(Tell.SEAT_WAITS, {"table": info.name,
                                                           "table_id": info.table_id})),
                    style="bold")
    if motd:
        if text.plain:
            text.append("\n")
        text.append("Today: ", style="bold")
        text.append(" ".join(motd.split()))
    if note is not None:
        if text.plain:
            text.append("\n")
        until = "" if note.until is None else \
            f", until {time.strftime('%H:%M', time.localtime(note.until))}"
        text.append(f"Notice from {note.by or 'the server'}{until}: ", style="bold")
        text.append(" ".join(note.text.split()))
    return text


def table_row(info: TableInfo, rules_width: int = 18, seats_width: int = 19,
              operators: Collection[str] = ()) -> tuple[str, ...]:

    name = info.name + (" (private)" if info.private else "")
    return (name, rules_cell(info.rules, rules_width, info.turn_seconds),
            seats_cell(info, seats_width, operators), status_cell(info), watch_cell(info))


class LobbyScreen(MoonScreen):
    AUTO_FOCUS = "RowList"
    BINDINGS = [
        Binding("n", "new_table", "new table"),
        Binding("j", "join", "join"),
        Binding("w", "watch", "watch"),
        Binding("i", "invite", "by code"),
        Binding("y", "accept_invitation", "join invite"),
        Binding("x", "invitations", "invitations on/off", show=False),
        Binding("c", "chat", "chat"),
        Binding("escape", "unfocus_chat", "back", show=False),
        Binding("k", "keys", "keys"),
        Binding("g", "games", "games"),
        Binding("L", "leaderboard", "ratings"),
        Binding("p", "player_card", "player", show=False),
        Binding("o", "operator", "operator"),
        Binding("l", "lesson", "learn to play", show=False),
        Binding("question_mark", "help", "help"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="lobby")
        self._stale = False
        self._to_table = False
        self._rows_made: dict[str, tuple[TableInfo, tuple[str, ...]]] = {}
        """Each table's row as last made, with the entry it was made of."""
        self._rows_for: tuple[int, int, tuple[str, ...]] = (0, 0, ())
        self._waiting_shown: frozenset[str] = frozenset()
        """The tables whose seat waits for the player, as last shown: the cursor goes to
        one when it first shows, so that Enter takes the seat back."""
        """The rules and seats columns' widths and the operators those rows were made
        with."""

    def compose_body(self) -> ComposeResult:
        yield Static(id="header")
        yield Static(id="board")
        if self.moon.guest:
            yield Static(GUEST_NOTE, id="guest-note")
        yield RowList(COLUMNS, flex=(RULES_COLUMN, SEATS_COLUMN), id="tables")
        with Horizontal(id="lower"):
            yield Static(id="online")
            yield ChatPanel(placeholder="c: chat with everyone",
                            max_length=self.moon.chat_max_chars, id="lobby-chat")
        yield KeyBar()

    def on_mount(self) -> None:
        self.show(self.moon.model.lobby)
        self.query_one(ChatPanel).show(self.moon.model.chat_of(None), self.moon.model.operators)
        # Drawn before its first layout (the panels' widths unknown): again once laid
        # out. A lobby opened after the app's start (a player who came straight to their
        # table leaves it) gets no resize that would do it.
        self.on_resize()

    def lobby_event(self, event: LobbyUpdate | ChatPosted) -> None:
        if not self.is_current:
            # Every player gets every lobby change: a hidden lobby redraws when shown.
            self._stale = True
        elif isinstance(event, LobbyUpdate):
            self.show(event)
        else:
            self.query_one(ChatPanel).add(event.line, self.moon.model.operators)

    def on_screen_suspend(self) -> None:
        self._to_table = bool(self.moon.model.tables)  # leaving for a table

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # (Textual calls each class's own handler: MoonParts' runs too.)
        if self._to_table:
            # Back from a table: the cursor starts at the first table, as on arrival.
            self._to_table = False
            self.query_one(RowList).action_move(-1_000_000)
        if self._stale:
            self._stale = False
            self.show(self.moon.model.lobby)
            self.query_one(ChatPanel).show(self.moon.model.chat_of(None), self.moon.model.operators)

    def show(self, lobby: LobbyUpdate | None) -> None:
        """Draw the lobby as `lobby` shows it (None: not heard from the lobby yet)."""
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append(" Moon ", style="bold reverse")
        header.append(" lobby · you are ")
        header.append(self.moon.player_name, style="bold")
        board = self.query_one("#board", Static)
        waiting = seats_waiting(lobby.tables, self.moon.player_name) if lobby else []
        words = board_text(lobby.board, lobby.motd, time.time(), waiting) if lobby \
            else Text()
        if board.display != bool(words.plain):
            board.display = bool(words.plain)
        set_text(board, words, layout=True)
        if lobby is None:

            set_text(self.query_one("#header", Static), header)
            return
        if lobby.tables:
            count = len(lobby.tables)
            header.append(f" · {count} table{'s' if count != 1 else ''}: ↑↓ choose, j join")
        else:
            header.append(" · no table yet: press n to open one")
        set_text(self.query_one("#header", Static), header)
        set_text(self.query_one("#online", Static),
                 online_text(lobby.online, self.moon.player_name, lobby.places,
                             lobby.tables, self.query_one("#online").content_size.width,
                             lobby.operators))
        rows = self.query_one(RowList)
        width = (rows.column_width(RULES_COLUMN), rows.column_width(SEATS_COLUMN))
        had_rows = rows.selected is not None
        if rows.set_rows(self._rows(lobby.tables, (*width, lobby.operators))) \
                and had_rows != (rows.selected is not None):
            self.refresh_bindings()  # join and watch need a table to choose
        new = [t.table_id for t in waiting if t.table_id not in self._waiting_shown]
        if new:
            rows.select(new[0])
        self._waiting_shown = frozenset(t.table_id for t in waiting)

    def _rows(self, tables: tuple[TableInfo, ...], made_for: tuple[int, int, tuple[str, ...]]
              ) -> list[Row]:
        """The list's rows; a row is made again only for a table whose entry changed (the
        lobby sends the same entry, the same object, for every table that did not).
        `made_for`: the rules and seats columns' widths, and the operators."""
        before = self._rows_made if made_for == self._rows_for else {}
        made: dict[str, tuple[TableInfo, tuple[str, ...]]] = {}
        for info in tables:
            row = before.get(info.table_id)
            if row is None or row[0] is not info:
                row = (info, table_row(info, *made_for))
            made[info.table_id] = row
        self._rows_made, self._rows_for = made, made_for
        return [(table_id, cells) for table_id, (_, cells) in made.items()]

    def on_resize(self) -> None:
        # The list's rules and seats columns grow with the screen: say more in them.
        self.call_after_refresh(lambda: self.show(self.moon.model.lobby))

    def _selected_id(self) -> str | None:
        return self.query_one(RowList).selected

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("join", "watch"):
            return True if self._selected_id() is not None else None
        if action == "accept_invitation":
            return self.moon.model.invitation is not None
        if action == "keys":
            return self.moon.keys is not None
        if action == "operator":
            return self.moon.operator
        if action == "games":
            return self.moon.games is not None
        if action in ("leaderboard", "player_card"):
            return self.moon.ratings is not None
        if action == "lesson":
            return self.moon.may_start_lesson
        return True

    def action_new_table(self) -> None:
        from .create import CreateTableScreen

        refused = self.moon.model.table_refusal(time.monotonic())
        if refused is not None:  # the lobby would refuse it: say so before the form
            self.app.notify(refusal_words(refused), severity="warning", timeout=6)
            return
        self.app.push_screen(CreateTableScreen())

    @on(RowList.Selected)
    def action_join(self) -> None:
        table_id = self._selected_id()
        if table_id is not None:
            self.moon.send(JoinSeat(table_id))

    def action_watch(self) -> None:
        table_id = self._selected_id()
        if table_id is not None:
            self.moon.send(Spectate(table_id))

    def action_accept_invitation(self) -> None:
        invitation = self.moon.model.take_invitation()
        if invitation is not None:
            self.moon.send(JoinByCode(str(invitation.get("code", ""))))
            self.refresh_bindings()

    def action_invitations(self) -> None:
        self.moon.send(Invitations(not self.moon.model.invitations_on))

    def action_invite(self) -> None:
        from .dialogs import InviteCodeScreen

        self.app.push_screen(InviteCodeScreen())

    def action_keys(self) -> None:
        from .keys import KeysScreen

        if self.moon.keys is not None:
            self.app.push_screen(KeysScreen(self.moon.keys))

    def action_games(self) -> None:
        from .games import GamesScreen

        if self.moon.games is not None:
            self.app.push_screen(GamesScreen(self.moon.games))
    def action_lesson(self) -> None:
        """The first lesson, at a table of the player's own (`MoonApp.start_lesson`)."""
        self.moon.start_lesson()

    def action_leaderboard(self) -> None:
        from .leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen())

    def action_player_card(self) -> None:
        from .card import AskPlayerScreen

        self.app.push_screen(AskPlayerScreen())

    def action_operator(self) -> None:
        from .operator import OperatorScreen

        if self.moon.operator:
            self.app.push_screen(OperatorScreen())

    def action_chat(self) -> None:
        self.query_one(ChatPanel).focus_input()

    def action_unfocus_chat(self) -> None:
        self.query_one(RowList).focus()

    @on(ChatPanel.Said)
    def _said(self, event: ChatPanel.Said) -> None:
        self.moon.send(SendChat(event.text))
        self.query_one(RowList).focus()
