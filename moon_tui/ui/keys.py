"""The player's SSH keys: which may log in, a code to add one from another computer, and
removing one (a lost laptop).

A key is added only by logging in with it and typing the code shown here (the host's
`KeyManager` checks it): a pasted public key proves nothing, anyone can copy one. A key
is removed with `d` pressed twice; the host never removes the last one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from ..services import AccountRefused, KeyFacts, KeyManager, LinkCode
from .account_words import refusal_words
from .base import MoonModal, set_text
from .rows import Row, RowList
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


KEY_COLUMNS = (("Key", 36), ("Type", 7), ("Added", 7), ("Last used", 10))
"""68 cells with the padding: the dialog at 80 columns; the key grows on wider screens."""



def ago(seconds: float) -> str:
    """`45s ago`, `12m ago`, `3h ago`, `2d ago`."""
    seconds = max(0.0, seconds)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return f"{int(seconds)}s ago"


def key_row(key: KeyFacts, now: float) -> Row:
    used = "this login" if key.current else \
        "never" if key.last_used is None else ago(now - key.last_used)
    kind = key.kind.removeprefix("ssh-") + (f" {key.comment}" if key.comment else "")
    added = "config" if key.configured else ago(now - key.added)
    return key.fingerprint, (key.fingerprint, kind, added, used)


class KeysScreen(MoonModal):
    AUTO_FOCUS = "#key-list"
    BINDINGS = [Binding("a", "new_code", "add a key"),
                Binding("d", "remove", "remove a key")]

    def __init__(self, keys: KeyManager) -> None:
        super().__init__(classes="dialog")
        self.keys = keys
        self._refresh: Timer | None = None
        self._to_remove: str | None = None
        """The key `d` was pressed on once: a second `d` removes it."""

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide"):
            yield Static("Your SSH keys", classes="title")
            yield RowList(KEY_COLUMNS, flex=(0,), id="key-list")
            yield Static(id="key-message")
            yield Static("To add a key from another computer, press a for a code.", id="key-code")
            yield Static("a: a new code · d: remove the key under the cursor · Esc closes",
                         classes="hint")

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="keys")
    async def load(self) -> None:
        self._show(await self.keys.list_keys())

    def _show(self, found: Sequence[KeyFacts]) -> None:
        now = time.time()
        self.query_one(RowList).set_rows([key_row(key, now) for key in found])
        if not found:
            self._say("No key yet.")

    def _say(self, text: str) -> None:
        set_text(self.query_one("#key-message", Static), Content(text), layout=True)

    def action_remove(self) -> None:
        chosen = self.query_one(RowList).selected
        if chosen is None:
            return
        if self._to_remove != chosen:
            self._to_remove = chosen
            self._say(f"Press d again to remove {chosen}: it will no longer log in as "
                      f"{self.moon.player_name}. Any other key leaves it.")
            return
        self._to_remove = None
        self.remove_key(chosen)

    def on_key(self, event: events.Key) -> None:
        if event.key != "d" and self._to_remove is not None:  # any other key: not removed

            self._to_remove = None
            self._say("")

    @work(exclusive=True, group="remove-key")
    async def remove_key(self, fingerprint: str) -> None:
        try:
            await self.keys.remove_key(fingerprint)
        except AccountRefused as refused:
            self._say(f"✗ {refusal_words(refused.why, refused.name)}")
            return
        # The list without it before the words: a `d` read after them acts on a key that is
        # there (it found the removed one under the cursor, and the host said it had no
        # such key).
        self._show(await self.keys.list_keys())
        self._say(f"Removed {fingerprint}: it no longer logs in as {self.moon.player_name}.")

    def action_new_code(self) -> None:
        self.new_code()

    @work(exclusive=True, group="link-code")
    async def new_code(self) -> None:
        shown = self.query_one("#key-code", Static)
        try:
            link = await self.keys.new_link_code()
        except AccountRefused as refused:
            set_text(shown, Content(f"✗ {refusal_words(refused.why, refused.name)}"),
                     layout=True)
            return
        set_text(shown, instructions(link), layout=True)
        if self._refresh is None:
            self._refresh = self.set_interval(timer_delay(REFRESH_SECONDS), self.load)
