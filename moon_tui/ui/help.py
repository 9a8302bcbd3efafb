"""Help: the rules in short (RULES.md) and every key of every screen."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from .base import MoonModal

RULES = (
    'Moon is a trick-taking domino game for 3 players, or 4 in two teams (partners sit '
    'opposite). Each player gets 7 tiles; with 3 players one tile is left: the widow.'
    '\n\n'
    'Bidding: each player speaks once, clockwise: pass, or bid more than the highest bid so '
    'far, from the lowest bid (usually 4) to 7 tricks, or 21: "shoot the moon", all 7 tricks. '
    'The highest bidder is the declarer. If everybody passes the hand is dealt again.'
    '\n\n'
    'The widow: the declarer takes it and discards one tile face down.'
    '\n\n'
    'Trump: the declarer names a number 0-6 (every tile with that number is a trump), the '
    'doubles, or no trump (follow-me). The double is the highest trump, then by the other end.'
    '\n\n'
    'Play: the declarer leads. The suit led is the trump suit if a trump is led, otherwise the '
    'higher end of the tile led. You must follow the suit led if you can; otherwise play '
    'anything. A trump belongs only to the trump suit. The highest trump wins the trick, else '
    'the highest tile of the suit led. The winner leads the next trick.'
    '\n\n'
    'Scoring: the declarer makes the bid by taking at least that many tricks, and scores the '
    'bid (4 players: the tricks taken); otherwise loses the bid. Every other side scores 1 per '
    'trick. First to the target (21) alone at the top wins; a made moon wins at once.'
    '\n\n'
    'In the hand: a solid border and a digit = you may play it; a dashed border, no digit = you'
    ' may not; a heavy border = the cursor. ▶ marks whose turn it is, ★ the declarer.'
)


def key_name(key: str) -> str:
    names = {"question_mark": "?", "escape": "Esc", "enter": "Enter", "left": "←",
             "right": "→", "ctrl+s": "Ctrl+S", "ctrl+q": "Ctrl+Q"}
    return names.get(key, key)


def keys_text(*, operator: bool = False, keys: bool = True) -> Text:
    """Every key of every screen offered to this player, from the screens' bindings."""
    from .game import GameScreen
    from .lobby_screen import LobbyScreen
    from .waiting import WaitingScreen

    hidden: set[str] = set()
    if not operator:
        hidden.add("operator")
    if not keys:
        hidden.add("keys")
    text = Text()
    for title, screen in (("Lobby", LobbyScreen), ("Waiting room", WaitingScreen),
                          ("At the table", GameScreen)):
        text.append(f"{title}\n", style="bold")
        seen: dict[str, list[str]] = {}
        for binding in screen.BINDINGS:
            assert isinstance(binding, Binding)
            if binding.action in hidden:
                continue
            what = binding.group.description if binding.group else binding.description
            seen.setdefault(what or binding.action, []).append(key_name(binding.key))
        for what, names in seen.items():
            shown = "".join(names) if len(names) > 2 else " ".join(names)
            text.append(f"  {shown:<10} {what}\n")
    text.append("Everywhere\n", style="bold")
    text.append("  Ctrl+Q     quit\n  Esc        close a dialog / leave the chat line\n")
    text.append("  B          bell on/off: it rings on your turn, when your table starts\n"
                "             and when a chat line names you (for this session)\n")
    text.append("  mouse      click a tile to choose it; click buttons and table rows\n")
    return text


class HelpScreen(MoonModal):
    AUTO_FOCUS = "#help-scroll"
    BINDINGS = [Binding("escape,q,question_mark", "close", "close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide tall"):
            yield Static("Help", classes="title")
            with VerticalScroll(id="help-scroll"):
                yield Static(Text("The rules in short\n", style="bold") + Text(RULES))
                yield Static(Text("\nKeys\n", style="bold") + keys_text(
                    operator=self.moon.operator, keys=self.moon.keys is not None))
            yield Static("↑↓ scroll · Esc closes", classes="hint")

