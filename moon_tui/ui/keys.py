"""The player's SSH keys: which may log in, and a code to add one from another computer.

A key is added only by logging in with it and typing the code shown here (the host's
`KeyManager` checks it): a pasted public key proves nothing, anyone can copy one.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from ..services import KeyManager, LinkCode
from .base import MoonModal, set_text
from .timers import timer_delay

REFRESH_SECONDS = 5.0
"""While a code is shown, the list is read again this often, so the new key appears."""


def instructions(link: LinkCode) -> Content:
    """What to do with the code, in plain text (nothing in it is markup)."""
    return Content(
        f"Your code: {link.code}\n\n"
        f"On the other computer, run:  {link.command}\n"
        "with the new key, and type this code when asked.\n"
        "(this-server: the address you used to connect here)\n"
        f"The code works once, for {link.minutes:g} minutes."
    )


class KeysScreen(MoonModal):
    BINDINGS = [Binding("a", "new_code", "add a key")]

    def __init__(self, keys: KeyManager) -> None:
        super().__init__(classes="dialog")
        self.keys = keys
        self._refresh: Timer | None = None

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide"):
            yield Static("Your SSH keys", classes="title")
            yield Static("…", id="key-list")
            yield Static("To add a key from another computer, press a for a code.", id="key-code")
            yield Static("a: a new code · Esc closes", classes="hint")

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="keys")
    async def load(self) -> None:
        found = await self.keys.list_keys()
        text = "\n".join(f"• {k}" for k in found) or "No key yet."
        set_text(self.query_one("#key-list", Static), Content(text), layout=True)

    def action_new_code(self) -> None:
        self.new_code()

    @work(exclusive=True, group="link-code")
    async def new_code(self) -> None:
        shown = self.query_one("#key-code", Static)
        try:
            link = await self.keys.new_link_code()
        except ValueError as exc:
            set_text(shown, Content(f"✗ {exc}"), layout=True)
            return
        set_text(shown, instructions(link), layout=True)
        if self._refresh is None:
            self._refresh = self.set_interval(timer_delay(REFRESH_SECONDS), self.load)
