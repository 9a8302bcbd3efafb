"""What a person typed is shown as plain text everywhere, never read as markup.

A broadcast holding `[/]` raised `MarkupError` in every session that drew it; `[b]x[/b]`
came out bold and `[bring snacks]` vanished. Each example here sends arbitrary text
through every place of the interface that shows such text (a real in-process lobby, the
app driven by Textual's pilot) and checks that nothing raised and the text is there,
character for character (control characters aside: those are dropped, `ui.plain`).
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import Phase, assume, example, given, settings
from hypothesis import strategies as st
from rich.cells import set_cell_size
from test_ui_support import FAST, screen_text, wait_for
from textual.content import Content
from textual.widgets import DataTable, Input, RichLog, Static
from textual.widgets._toast import Toast

from moon_tui.app import MoonApp, SessionOver
from moon_tui.lobby import AddBot, CreateTable, JoinSeat, Lobby, SendChat, StartGame
from moon_tui.lobby.chat import clean_text
from moon_tui.lobby.messages import CloseTable, Kick
from moon_tui.rules import Rules
from moon_tui.ui.dialogs import InviteCodeScreen, ScoreSheetScreen
from moon_tui.ui.game import GameScreen
from moon_tui.ui.lobby_screen import LobbyScreen
from moon_tui.ui.operator import OperatorScreen
from moon_tui.ui.plain import printable
from moon_tui.ui.waiting import WaitingScreen
from moon_tui.ui.words import NAME_WIDTH, fit

NASTY = [
    "[/]", "[b]x[/b]", "[bring snacks]", "[@click=app.quit]quit[/]", "[link=https://x]y[/]",
    "\\[/]", "[", "]", "[red", "[/red]", ":moon:", "[on red]", "$var [$accent]",
    "\x1b[2J\x1b]0;pwned\x07", "a\x00b\tc\r\nd\x7f", "\u202eevil\u200b", "\ud83c lone",
    "月🌙" * 40, "x[/]" * 500, "e\u0301 ﷽",
]
"""Markup, escape sequences, control and format characters, wide and long text."""

text = st.one_of(
    st.sampled_from(NASTY),
    st.text(min_size=1, max_size=60),
    st.text(alphabet="[]/=@#$:bix \\", min_size=1, max_size=30),
)
#: Names reach the lobby through the SSH name rules or as the local player's own name:
#: printable, but anything else (brackets included).
name = st.one_of(
    st.sampled_from(["[/]", "[b]x[/b]", "[bring snacks]", "[@click=app.quit]"]),
    st.text(st.characters(exclude_categories=("C", "Z")), min_size=1, max_size=20),
)


@dataclass(frozen=True)
class Typed:
    me: str
    other: str
    motd: str
    broadcast: str
    chat: str
    table_name: str
    code: str
    not_a_command: str
    close_reason: str
    kick_reason: str


typed = st.builds(Typed, me=name, other=name, motd=text, broadcast=text, chat=text,
                  table_name=text, code=text, not_a_command=text, close_reason=text,
                  kick_reason=text)


def shown(app: MoonApp) -> str:
    """Everything the current screen holds as text: the screen's lines, and each widget's
    whole content (a long text is cut on screen, but must be there as written)."""
    parts = [screen_text(app)]
    for widget in app.screen.walk_children(with_self=False):
        if isinstance(widget, Toast):
            parts.append(widget.render().plain)
        elif isinstance(widget, Static) and isinstance(widget.visual, Content):
            parts.append(widget.visual.plain)
        elif isinstance(widget, RichLog):
            # Wrapped lines: compared without whitespace (see `in_chat`).
            parts.append("".join("".join(s.text for s in widget.lines).split()))
        elif isinstance(widget, DataTable):
            parts.extend(column.label.plain for column in widget.columns.values())
            for row in range(widget.row_count):
                parts.extend(str(getattr(c, "plain", c)) for c in widget.get_row_at(row))
    return "\n\x00\n".join(parts)


def assert_shown(app: MoonApp, expected: str, where: str) -> None:
    wanted = printable(expected)
    assert wanted in shown(app), f"{where}: {wanted!r} not shown\n{screen_text(app)}"


async def toast(pilot, app: MoonApp, expected: str, where: str) -> None:  # type: ignore[no-untyped-def]
    wanted = printable(expected)
    await wait_for(pilot, lambda: any(wanted in t.render().plain
                                      for t in app.screen.query(Toast)), where)


KICKER = "kicker"
"""The operator who ends the session at the end of the walk."""


@settings(max_examples=10, deadline=None, phases=(Phase.explicit, Phase.generate))
@given(typed)
@example(Typed(me="[b]x[/b]", other="[/]", motd="[/] [bring snacks]", broadcast="[/]",
               chat="[b]x[/b]", table_name="[bring snacks]", code="[/]",
               not_a_command="[@click=app.quit]", close_reason="[/]", kick_reason="[/]"))
@example(Typed(me="[@click=app.quit]", other="月🌙", motd="\x1b]0;pwned\x07" + "x" * 3000,
               broadcast="[b]" + "月" * 200, chat="[/]\x00\t\u202e", table_name="\x1b[2J[/]",
               code="\x1b[", not_a_command="[link=x]y", close_reason="a\nb\x7f[/]",
               kick_reason="\ud83c[/]"))
async def test_typed_text_is_shown_as_written_everywhere(t: Typed) -> None:
    assume(t.me != t.other and KICKER not in (t.me, t.other))
    config = replace(FAST, motd=t.motd)
    async with Lobby(config, seed=1) as lobby:
        other = await lobby.connect(t.other)
        drain = asyncio.create_task(_drain(other))
        other.send(CreateTable(t.table_name, Rules.make(players=3)))
        app = MoonApp(lobby, t.me, operator=True)
        try:
            async with app.run_test(size=(100, 30), notifications=True) as pilot:
                await _walk(pilot, app, other, t)
        finally:
            drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await drain
            await other.close()


async def _drain(handle) -> None:  # type: ignore[no-untyped-def]
    async for _ in handle:
        pass


async def _walk(pilot, app: MoonApp, other, t: Typed) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen)
                   and app.model.lobby is not None and bool(app.model.lobby.tables)
                   and t.other in app.model.lobby.online, "the lobby with the table")
    # The message of the day, the names, the table's name in the list.
    if t.motd.strip():
        await toast(pilot, app, t.motd, "the message of the day")
    assert_shown(app, t.me, "my name")
    assert_shown(app, t.other, "the other's name")
    listed = app.model.lobby.tables[0].name  # type: ignore[union-attr]
    assert_shown(app, set_cell_size(printable(listed, lines=False), 16), "the table list")

    # Chat from the other player, as the lobby delivered it.
    other.send(SendChat(t.chat))
    if clean_text(t.chat) and len(t.chat) <= 300:
        await wait_for(pilot, lambda: bool(app.model.lobby_chat), "the chat line")
        said = app.model.lobby_chat[-1].text
        assert_shown(app, "".join(said.split()), "the chat")

    # A wrong invite code, typed into its dialog.
    await pilot.press("i")
    await wait_for(pilot, lambda: isinstance(app.screen, InviteCodeScreen), "the dialog")
    field = app.screen.query_one(Input)
    field.value = t.code
    code = field.value.strip()
    await pilot.press("enter")
    if code:
        await toast(pilot, app, f"no table has the invite code {clean_text(code)!r}",
                    "the refused invite code")
    if isinstance(app.screen, InviteCodeScreen):
        await pilot.press("escape")

    # The operator's line: a broadcast, and a line that is no command.
    await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.press("o")
    await wait_for(pilot, lambda: isinstance(app.screen, OperatorScreen), "operator")
    field = app.screen.query_one(Input)
    field.value = f"say {t.broadcast}"
    line = field.value
    field.focus()
    await pilot.press("enter")
    if clean_text(t.broadcast):
        await wait_for(pilot, lambda: f"Sent: {printable(line.strip())}" in shown(app),
                       "the operator's echo")
        await toast(pilot, app, clean_text(t.broadcast.strip()), "the broadcast")
    field.value = f"frob {t.not_a_command}"
    line = field.value
    field.focus()
    await pilot.press("enter")

    await wait_for(pilot, lambda: printable(repr(line.strip())) in shown(app),
                   "the operator's error")
    await pilot.press("escape")

    # The table: waiting room, game, score sheet, with the names and the table's name.
    table_id = app.model.lobby.tables[0].table_id  # type: ignore[union-attr]
    app.send(JoinSeat(table_id))
    await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
    assert_shown(app, listed, "the waiting room's header")
    assert_shown(app, t.other, "the owner")
    other.send(AddBot(table_id, 2))
    await wait_for(pilot, lambda: not app.model.tables[table_id].table.seats[2].is_free,
                   "a computer player")
    other.send(StartGame(table_id))
    await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
    assert_shown(app, listed, "the table's header")
    # The seats show a name whole up to the longest an account may have, then cut it.
    assert_shown(app, fit(t.other, NAME_WIDTH), "the seats")
    assert_shown(app, fit(t.me, NAME_WIDTH), "my seat")
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen), "the sheet")
    assert_shown(app, t.other, "the score sheet's columns")
    await pilot.press("escape")

    # An operator closes the table, then ends this very session, each with a reason.
    app.send(CloseTable(table_id, t.close_reason))
    await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), "back in the lobby")
    await toast(pilot, app, f"The table was closed by an operator ({t.me})"
                + (f": {t.close_reason}" if t.close_reason else ""), "the closing reason")
    # (Another operator: one does not kick oneself.)
    kicker = await app.lobby.connect(KICKER, operator=True)
    kicker.send(Kick(t.me, t.kick_reason))
    await wait_for(pilot, lambda: isinstance(app.screen, SessionOver), "the end")
    said = (f"removed by an operator ({KICKER})"
            + (f": {t.kick_reason}" if t.kick_reason else "")).rstrip()
    # (a line's trailing spaces are not drawn; a long reason wraps in the dialog)
    assert_shown(app, said if len(said) <= 50 else said[:30], "the kick's reason")
    await kicker.close()


# -- the interface's code keeps data out of markup ---------------------------------------

UI_FILES = sorted((Path(__file__).resolve().parent.parent / "moon_tui").glob("ui/*.py")) + [
    Path(__file__).resolve().parent.parent / "moon_tui" / "app.py"]
SHOWN_BY = {"Static", "Label", "notify", "add_row", "add_column", "add_columns", "write",
            "Toast", "Button"}
"""Calls that show a `str` argument as Textual markup (our `notify` excepted, but a
message built with an f-string there is still data mixed with words: keep it plain)."""


def _data_in_markup(node: ast.Call) -> bool:
    """An f-string with a non-constant value handed straight to a widget that reads
    markup (constants are UPPER_CASE names)."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in SHOWN_BY or name == "notify":
        return False
    for arg in node.args:
        if isinstance(arg, ast.JoinedStr):
            for value in arg.values:
                if isinstance(value, ast.FormattedValue) and not (
                        isinstance(value.value, ast.Name) and value.value.id.isupper()):
                    return True
    return False


def test_the_interface_never_hands_data_to_markup() -> None:
    """Widgets get data through `set_text` / `ui.plain` (see its docstring): no f-string
    with data reaches a widget that reads markup, no `update()` beside `set_text`'s (or an
    override's `super().update`, which passes on what it was given), and nothing parses
    markup on purpose."""
    problems = []
    for path in UI_FILES:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Call):
                func = node.func
                attr = func.attr if isinstance(func, ast.Attribute) else ""
                if _data_in_markup(node):
                    problems.append(f"{where}: data in an f-string shown as markup")
                if attr == "from_markup":
                    problems.append(f"{where}: from_markup")
                forwards = (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
                            and getattr(func.value.func, "id", "") == "super")
                if attr == "update" and path.name != "base.py" and not forwards:
                    problems.append(f"{where}: update() outside set_text")
                for keyword in node.keywords:
                    if keyword.arg == "markup" and not (
                            isinstance(keyword.value, ast.Constant)
                            and keyword.value.value is False):
                        problems.append(f"{where}: markup turned on")
    assert not problems, "\n".join(problems)
