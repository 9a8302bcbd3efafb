"""Help: the rules in short (RULES.md) and every key of every screen."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ..rules import Rules
from ..rules.options import set_numbers
from .base import MoonModal, heading


def rules_text(rules: Rules) -> str:
    """The rules in short (the project's docs/RULES.md), as `rules` set them: the help at
    a table shows that table's options, elsewhere the defaults."""
    four = rules.players == 4
    sets = {
        "moon22": "the double-six set without the tiles that show a 0, except 0-0: "
                  "22 tiles. Each player gets 7; the one left over, face down, is the "
                  "widow.",
        "moon21": "the double-six set without any tile that shows a 0: 21 tiles, 7 each, "
                  "no widow.",
        "full28": "all 28 tiles of the double-six set, 7 each, no widow.",
    }
    parts = [
        ("Moon is a trick-taking domino game for 4 players in two teams (partners sit "
         "opposite: the first and third seats against the second and fourth)."
         if four else "Moon is a trick-taking domino game for 3 players, each on their own.")
        + f" Tiles: {sets[rules.set]}",
    ]
    passing = ("If everybody passes the hand is dealt again." if rules.all_pass == "redeal"
               else "The last seat to speak may not pass when everyone before it did: it "
                    "must bid.")
    parts.append(
        f"Bidding: a random seat bids first, then the first bidder moves one seat clockwise "
        f"each hand. Each player speaks once, clockwise: pass, or bid more than the highest "
        f"bid so far, from {rules.min_bid} to 7 tricks, or 21: \"shoot the moon\", all 7 "
        f"tricks (nobody bids after a moon). The highest bidder is the declarer. {passing}")
    if rules.has_widow:
        order = ("the declarer names trump first, then takes the widow"
                 if rules.trump_before_widow else "the declarer takes the widow")
        laid = ("face up: every seat sees it once laid" if rules.discard_shown
                else "face down: only the declarer sees it")
        parts.append(f"The widow: {order} and lays one of the eight tiles away {laid} "
                     "(it may be the widow itself).")
    numbers = set_numbers(rules.set)  # moon21 has no 0: no 0 trump, no 0-0
    choices = [f"a number {numbers[0]}-{numbers[-1]} (every tile showing it is a trump; the "
               "double is the highest trump, then by the other end)"]
    if rules.doubles_trump:
        choices.append(f"the doubles (6-6 highest down to {numbers[0]}-{numbers[0]})")
    if rules.no_trump:
        choices.append("no trump (in every suit the double is highest)")
    parts.append("Trump: the declarer names " + "; or ".join(choices) + ".")
    parts.append(
        "Suits: a trump belongs only to the trump suit. A double that is not a trump "
        "belongs to its own number only; any other tile belongs to both its numbers' "
        "suits. In a suit the double is highest, then by the other end.")
    parts.append(
        "Play: the declarer leads. What was led: trumps if the tile led is a trump, "
        "otherwise the higher number of the tile led. You must follow the suit led if you "
        "can; otherwise play anything. The highest trump wins the trick, else the highest "
        "tile of the suit led. The winner leads the next trick.")
    unit = "marks" if rules.scoring == "marks" else "points"
    if rules.scoring == "marks":
        scoring = ("Scoring (marks): a made bid earns the declaring side a mark; a failed "
                   "bid earns every other side a mark.")
    else:
        made = ("the tricks the team took" if rules.team_scoring == "tricks"
                else "the bid") if four else "the bid"
        who = ("the declarer's team makes the bid by taking at least that many tricks "
               "together" if four else
               "the declarer makes the bid by taking at least that many tricks")
        scoring = (f"Scoring: {who} and scores {made} (a made moon: 21); a failed bid "
                   f"costs the bid. Every other side scores 1 per trick.")
    win = f"First to {rules.target} {unit} alone at the top wins; a tie at the top plays on"
    if rules.tie_break == "declarer":
        win += (", but a declaring side that made its bid and reached the target wins even "
                "when tied or behind")
    win += "."
    if rules.moon_wins_game:
        win += " A made moon wins the game at once."
    parts.append(f"{scoring} {win}")
    parts.append(
        "In the hand: a solid border and a digit = you may play it; a dashed border, no "
        "digit = you may not; a heavy border = the cursor. ▶ marks whose turn it is, ★ the "
        "declarer.")
    return "\n\n".join(parts)


LEARN = ("A guided first hand at a table of your own, with computer players: press l in "
         "the lobby (or here, when this help is open over it) or on the welcome screen when "
         "you log in (or run `moon --lesson` in your own terminal). It explains the tiles, "
         "bidding, the widow, trump, following suit, who takes a trick and the score as you "
         "play.")


TABLE_NOTES = (
    "  A digit sends its choice at once: it cannot be taken back. To change your mind\n"
    "  before a choice is sent, move with ← → (the marked tile, bid or trump) and send\n"
    "  it with Enter.\n"
    "  C, when you are to lead, claims every trick left: the server checks on the real\n"
    "  hands that you take each one whatever the others play (your partner too), then\n"
    "  plays the rest out at once; if some play could take a trick from you, you play on.\n")
"""What the keys of a table do that their one-line names cannot say."""


def key_name(key: str) -> str:
    names = {"question_mark": "?", "escape": "Esc", "enter": "Enter", "left": "←",
             "right": "→", "ctrl+s": "Ctrl+S", "ctrl+q": "Ctrl+Q"}
    return names.get(key, key)


def keys_text(*, operator: bool = False, keys: bool = True, solo: bool = False,
              games: bool = False, ratings: bool = True) -> Text:
    """Every key of every screen offered to this player, from the screens' bindings
    (`solo`: a game alone in one's own terminal, no lobby, no waiting room, no chat;
    `games`: the club's saved games and the replay viewer)."""
    from .game import GameScreen, SoloGameScreen
    from .games import GamesScreen
    from .lobby_screen import LobbyScreen
    from .replay import ReplayScreen
    from .waiting import WaitingScreen

    hidden: set[str] = set()
    if not operator:
        hidden.add("operator")
    if not keys:
        hidden.add("keys")
    if not ratings:
        hidden |= {"leaderboard", "player_card"}
    table = SoloGameScreen if solo else GameScreen
    screens: list[tuple[str, type[Screen[Any]]]] = [
        ("Lobby", LobbyScreen), ("Waiting room", WaitingScreen), ("At the table", table)]
    if games:
        screens += [("Saved games", GamesScreen), ("Replay viewer", ReplayScreen)]
    else:
        hidden.add("games")
    if solo:
        hidden |= {"chat", "unfocus_chat", "hand_over", "open_seats"}
        screens = screens[2:]
    text = Text()
    for title, screen in screens:
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
        if screen is table:
            text.append(TABLE_NOTES)
    text.append("Everywhere\n", style="bold")
    if solo:
        text.append("  Ctrl+Q     quit\n  Esc        close a dialog\n")
        text.append("  B          bell on/off: it rings on your turn\n")
        text.append("  mouse      click a tile to choose it; click buttons\n")
        return text
    text.append("  Ctrl+Q     quit\n  Esc        close a dialog / leave the chat line\n")
    text.append("  B          bell on/off: it rings on your turn, when your table starts,\n"
                "             when your turn timer runs low and when a chat line names\n"
                "             you (for this session)\n")
    text.append("  mouse      click a tile to choose it; click buttons and table rows\n")
    return text


class HelpScreen(MoonModal):
    AUTO_FOCUS = "#help-scroll"
    BINDINGS = [Binding("escape,q,question_mark", "close", "close"),
                Binding("l", "lesson", "learn to play")]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "lesson":
            return self.moon.may_start_lesson
        return True

    def action_lesson(self) -> None:
        """The first lesson, at a table of the player's own (`MoonApp.start_lesson`)."""
        self.dismiss(None)
        self.moon.start_lesson()

    def _rules(self) -> tuple[Rules, str]:
        """The rules of the table this player is at, else the defaults."""
        table_id = getattr(self.app, "current_table", None)
        update = self.moon.model.tables.get(table_id) if table_id else None
        if update is not None:
            return update.table.rules, f"The rules of this table ({update.table.name})"
        return Rules.make(), "The rules in short (a table may choose other options)"

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="box wide tall"):
            yield Static("Help", classes="title")
            with VerticalScroll(id="help-scroll"):
                rules, title = self._rules()
                yield Static(heading("New to Moon? Learn to play\n") + Text(LEARN))
                yield Static(heading(f"\n{title}\n") + Text(rules_text(rules)))
                yield Static(heading("\nKeys\n") + keys_text(
                    operator=self.moon.operator, keys=self.moon.keys is not None,
                    solo=self.moon.solo, games=self.moon.games is not None,
                    ratings=self.moon.ratings is not None))
            yield Static("↑↓ scroll · l learn to play · Esc closes"
                         if self.moon.may_start_lesson else "↑↓ scroll · Esc closes",
                         classes="hint")

