"""The player's SSH keys: list them and add another (through the host's `KeyManager`)."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from ..services import KeyManager
from .base import MoonModal, set_text, steady_input


class KeysScreen(MoonModal):
    AUTO_FOCUS = "Input"

    def __init__(self, keys: KeyManager) -> None:
        super().__init__(classes="dialog")
        self.keys = keys

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide"):
            yield Static("Your SSH keys", classes="title")
            yield Static("…", id="key-list")
            yield Static("Add a key: paste one line (ssh-ed25519 AAAA… comment), Enter")
            yield steady_input(placeholder="ssh-ed25519 AAAA…", id="new-key")
            yield Static(id="key-message")
            yield Static("Esc closes", classes="hint")

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="keys")
    async def load(self) -> None:
        found = await self.keys.list_keys()
        text = "\n".join(f"• {k}" for k in found) or "No key yet."
        set_text(self.query_one("#key-list", Static), text, layout=True)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        if line:
            self.add(line)

    @work(exclusive=True, group="add-key")
    async def add(self, line: str) -> None:
        try:
            message = await self.keys.add_key(line)
        except ValueError as exc:
            set_text(self.query_one("#key-message", Static), f"✗ {exc}", layout=True)
            return
        self.query_one(Input).clear()
        set_text(self.query_one("#key-message", Static), message, layout=True)
        self.load()
