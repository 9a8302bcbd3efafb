"""Inviting a person to your table: the people online, Enter invites the one chosen.

The lobby tells them (with the table's invite code, so a private table lets them in) and
tells you it did, or why not (they turned invitations off, they left).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ..lobby.messages import Invite
from .base import MoonModal, set_text
from .lobby_screen import place_words
from .rows import RowList
from .words import named

COLUMNS = (("Name", 20), ("Where", 30))


class InviteScreen(MoonModal):
    AUTO_FOCUS = "RowList"

    def __init__(self, table_id: str) -> None:
        super().__init__(classes="dialog")
        self.invite_table = table_id
        """The table to invite to (not `table_id`: the table's events are not for it)."""

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("Invite a player to your table", classes="title")
            yield RowList(COLUMNS, flex=(1,), id="invite-list")
            yield Static(id="invite-note")
            yield Static("↑↓ choose · Enter invites · Esc closes", classes="hint")

    def on_mount(self) -> None:
        lobby = self.moon.model.lobby
        me = self.moon.player_name
        rows = []
        if lobby is not None:
            seated = {seat.name for info in lobby.tables if info.table_id == self.invite_table
                      for seat in info.seats}
            for name, place in zip(lobby.online, lobby.places, strict=False):
                if name != me and name not in seated:
                    rows.append((name, (named(name, lobby.operators),
                                        place_words(place, lobby.tables))))
        self.query_one(RowList).set_rows(rows)
        if not rows:
            set_text(self.query_one("#invite-note", Static),
                     "Nobody else is online (or they all sit here already).")

    @on(RowList.Selected)
    def _invite(self, event: RowList.Selected) -> None:
        self.moon.send(Invite(self.invite_table, event.key))
        self.dismiss(None)
