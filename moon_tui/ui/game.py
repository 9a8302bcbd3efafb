"""The table: your hand, the other seats, the trick, bidding, widow, trump, chat."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from ..bots.claim import PROOF_SECONDS
from ..lobby.messages import (
    Act,
    ChatPosted,
    Claim,
    Event,
    GameFinished,
    HandOver,
    HandSeen,
    LeaveTable,
    Notice,
    OpenSeats,
    Rejected,
    Rematch,
    SendChat,
    TableInfo,
    TableUpdate,
)
from ..lobby.notices import Tell
from ..rules import MOON, TRUMP_DOUBLES, TRUMP_NONE, Action, Phase, SeatView, Tile
from ..rules.foresight import foresee
from .awaited import UNANSWERED_SECONDS, AwaitedMove
from .bars import ClickBar, Item, KeyBar
from .base import MoonScreen, set_text
from .chat import ChatPanel
from .dominoes import HandTile, Mark
from .hand import HandView
from .lesson_text import lesson_step
from .panel import Line, LinePanel
from .plain import plain
from .refusals import refusal_words
from .table_text import (
    centre_panel,
    header,
    played_panel,
    seats_panel,
    summary,
    trumps_out_line,
)
from .timers import later, timer_delay
from .words import (
    action_words,
    bids_left_words,
    name_width,
    seat_name,
    trump_counts,
    trump_refused_words,
)

LEAVE_CONFIRM_SECONDS = 3.0
WARN_SECONDS = 10
"""Your turn timer is shown highlighted for its last seconds (and `TimeRunningOut` sent)."""
TRUMP_KEYS = {"d": TRUMP_DOUBLES, "n": TRUMP_NONE}
"""The trumps named by a letter (a table's rules may refuse them)."""
PICK = Binding.Group("choose tile", compact=True)
BID = Binding.Group("bid", compact=True)
TRUMP = Binding.Group("trump", compact=True)


def _digit_bindings() -> list[Binding]:
    keys: list[Binding] = []
    # Trump first, so that the footer lists every group's digits in order from 0.
    for trump in range(7):
        keys.append(Binding(str(trump), f"trump({trump})", f"{trump}s", group=TRUMP))
    for i in range(8):
        keys.append(Binding(str(i + 1), f"pick({i})", f"tile {i + 1}", group=PICK))
    for amount in (3, 4, 5, 6, 7):
        keys.append(Binding(str(amount), f"bid({amount})", f"bid {amount}", group=BID))
    return keys


class GameScreen(MoonScreen):
    """One table while a game is on (or over). Renders only the latest `SeatView`."""

    table_id: str

    class TimeRunningOut(Message):
        """Your turn timer entered its last `WARN_SECONDS`: sent once per turn (the app
        may ring the bell on it)."""

        def __init__(self, table_id: str, seconds_left: int) -> None:
            super().__init__()
            self.table_id = table_id
            self.seconds_left = seconds_left

    class LessonOver(Message):
        """The learner read the first lesson's last step (Enter): the app moves on."""

    AUTO_FOCUS = "HandView"
    BINDINGS = [
        Binding("left", "move(-1)", "move the cursor", show=False),
        Binding("right", "move(1)", "move the cursor", show=False),
        Binding("enter", "choose", "choose", show=False),
        *_digit_bindings(),
        Binding("p", "pass", "pass"),
        Binding("m", "bid(21)", "moon"),
        Binding("d", "trump(7)", "doubles"),
        Binding("n", "trump(8)", "no trump"),
        Binding("C", "claim", "claim the rest"),
        Binding("r", "rematch", "rematch"),
        Binding("l", "last_trick", "last trick"),
        Binding("t", "played", "played"),
        Binding("s", "scores", "scores"),
        Binding("h", "hand_over", "a computer plays for an absent player now", show=False),
        Binding("o", "open_seats", "owner: newcomers may take computers' seats", show=False),
        Binding("h", "hint", "hint"),
        Binding("c", "chat", "chat"),
        Binding("escape", "unfocus_chat", "back", show=False),
        Binding("question_mark", "help", "help"),
        Binding("q", "leave", "leave"),
    ]

    def __init__(self, table_id: str, *, returning: bool = False) -> None:
        """`returning`: the player comes back to a game under way (a new connection):
        their first Enter only says so, see `action_choose`."""
        super().__init__(classes="game")
        self.table_id = table_id
        self._returning = returning
        self._view: SeatView | None = None
        self._update: TableUpdate | None = None
        self._finished: GameFinished | None = None
        self._told: tuple[str, bool] | None = None
        """What `_tell` shows in place of the prompt: its words, and whether they say
        something was refused (drawn with ✗)."""
        self._turn_key: tuple[object, ...] = ()
        self._turn_deadline: float | None = None
        self._reconnect_deadline: float | None = None
        self._warned: tuple[object, ...] = ()
        self._seen_hand: int | None = None
        """The hand whose result this player said they have read (Enter)."""
        self._timer: Timer | None = None
        self._header_key: tuple[object, ...] = ()
        """What the header was made from (every input of `header`)."""
        self._leave_armed_until = 0.0
        self._awaited: AwaitedMove | None = None
        """The player's own move sent and not yet taken by the table (`_act`)."""
        self._unanswered: asyncio.TimerHandle | None = None

    def compose_body(self) -> ComposeResult:
        yield Line(id="header")
        with Horizontal(id="middle"):
            yield LinePanel(id="seats")
            yield LinePanel(id="centre")
            yield ChatPanel(placeholder="c: chat at this table",
                            max_length=self.moon.chat_max_chars, id="chat")
            yield Static(id="lesson")
        yield Line(id="prompt")
        yield ClickBar(id="actions")
        yield HandView(id="hand")
        yield KeyBar()

    def on_mount(self) -> None:
        if self.moon.solo or self.moon.lesson is not None:
            # Nobody else can read a chat at a table played alone (the lesson's words
            # take its place).
            self.query_one(ChatPanel).display = False
        self.query_one("#lesson").display = self.moon.lesson is not None
        self.set_class(self.moon.lesson is not None, "-lesson")
        model = self.moon.model
        self._finished = model.finished.get(self.table_id)
        update = model.tables.get(self.table_id)
        if update is not None:
            self.show(update)
        self.query_one(ChatPanel).show(model.chat_of(self.table_id), model.operators)

    # -- drawing ---------------------------------------------------------------------------
    def table_event(self, event: Event) -> None:
        if isinstance(event, TableUpdate):
            if event.view is not None and event.view.outcome is None:
                self._finished = None
            kept = None if self._awaited is None else self._awaited.drawn_over(event)
            if kept is None:
                self._forget_awaited()
            self.show(event if kept is None else kept)
        elif isinstance(event, GameFinished):
            self._finished = event
            if self._update is not None:
                self.show(self._update)
        elif isinstance(event, ChatPosted):
            self.query_one(ChatPanel).add(event.line, self.moon.model.operators)
        elif isinstance(event, Notice) and event.code is Tell.CANNOT_SAVE:
            self.show_answered()  # a move not saved is not shown
        elif isinstance(event, Rejected):
            if isinstance(event.command, (Act, Claim)):
                self.show_answered()  # (a move shown or said to be sent did not happen)
            words = refusal_words(event)
            self._tell(words[:1].upper() + words[1:])

    def show(self, update: TableUpdate) -> None:
        """Draw the table as this update shows it."""
        if update.view is None:
            return
        self._update = update
        view = update.view
        self._view = view
        key = (view.hand_number, view.phase, view.to_move, len(view.bids),
               len(view.played_tiles()))
        # The table says how long each wait has left: the countdowns run from here.
        now = time.monotonic()
        if key != self._turn_key:
            self._turn_key = key
            if now > self._leave_armed_until:  # "press q again" holds while it holds
                self._told = None
        self._turn_deadline = None if update.turn_left is None else now + update.turn_left
        self._reconnect_deadline = (None if update.reconnect_left is None
                                    else now + update.reconnect_left)
        finished = self._finished
        # The bids under the names of who made them (a computer may play a seat now).
        dealt = update.table_of_hand(view.hand_number)
        self._draw_header(view, dealt)
        self._draw_seats()
        centre = self.query_one("#centre", Static)
        ring = centre.content_size.width if self.app.size.width >= 100 else None
        panel = centre_panel(view, update.table, self._names(), ring or None,
                             self._last_hand(), dealt)
        if self.app.size.width >= 120 and self.app.size.height >= 40 and \
                view.phase is Phase.PLAY:
            # Room enough: what has been played is always in view.
            panel = panel.copy()
            panel.append("\n\n")
            panel.append_text(played_panel(view))
        elif view.phase is Phase.PLAY:
            # Smaller: the count a player keeps in their head, always (t shows the rest).
            line = trumps_out_line(view, centre.content_size.width)
            if line:
                panel = panel.copy()
                panel.append("\n\n" + line)
        set_text(centre, panel)
        self._draw_hand(view, finished)
        self._draw_actions(view)
        self._draw_prompt()
        if self.moon.lesson is not None:
            names = [seat_name(update.table, s) for s in range(len(view.hand_sizes))]
            set_text(self.query_one("#lesson", Static),
                     lesson_step(view, names, self.moon.lesson), layout=True)
        self._start_timer()
        state = self._bindings_state(view)
        if state != self.bindings_state:
            # Working out the active keys runs every check_action: only when they may change.
            self.bindings_state = state
            self.refresh_bindings()

    def show_answered(self) -> None:
        """Draw the table as it last said it is, without a move of the player's own
        sent since (`_act`): the table refused it, or cannot save it yet."""
        self._forget_awaited()
        answered = self.moon.model.tables.get(self.table_id)
        if answered is not None and answered is not self._update:
            self.show(answered)

    def _forget_awaited(self) -> None:
        self._awaited = None
        if self._unanswered is not None:
            self._unanswered.cancel()
            self._unanswered = None

    def _not_answered(self) -> None:
        """The table has not taken the move in `UNANSWERED_SECONDS` (its worker is
        being replaced, the bus is away): show the table as it was, and say why."""
        self.show_answered()
        self._tell("The table has not taken your move yet: if it is still your turn, "
                   "play again.")

    def _bindings_state(self, view: SeatView) -> tuple[object, ...]:
        """All that `check_action` reads of the view and the screen."""
        legal = view.legal if view.phase in (Phase.BID, Phase.TRUMP) else ()
        return (view.phase, view.my_turn, legal, view.outcome is None, view.seat is None,
                bool(view.tricks), len(view.hand), self._may_see(view), self.moon.solo,
                self._to_lead(view))

    def _draw_header(self, view: SeatView, table: TableInfo) -> None:
        """The header, made again only when what it shows may have changed: it changes a
        few times a hand, and making it was ~1.5% of a table update's CPU (measured)."""
        width, names = self.app.size.width, self._names()
        key = (table.name, table.seats, view.hand_number, view.declarer, view.bid, view.trump,
               view.rules, width, names)
        if key != self._header_key:
            self._header_key = key
            set_text(self.query_one("#header", Static), header(view, table, width, names))

    def on_resize(self) -> None:
        # Names and panels are laid out to the width: draw again, from the latest update
        # when the redraw runs (not the one current now, which may be stale by then).
        self.call_after_refresh(self._redraw)

    def _redraw(self) -> None:
        if self._update is not None:
            self.show(self._update)

    @staticmethod
    def _left(deadline: float | None) -> int | None:
        if deadline is None:
            return None
        return max(0, int(deadline - time.monotonic() + 0.999))

    def _seconds_left(self) -> int | None:
        return self._left(self._turn_deadline)

    def _warning(self) -> int | None:
        """Seconds left on your own turn timer, when in its last `WARN_SECONDS`."""
        left = self._seconds_left()
        view = self._view
        if left is None or view is None or not view.my_turn or left > WARN_SECONDS:
            return None
        return left

    def _draw_seats(self) -> None:
        if self._view is None or self._update is None:
            return
        seats = self.query_one("#seats", Static)
        width = seats.content_size.width or 29
        set_text(seats, seats_panel(self._view, self._update.table, self._seconds_left(),
                                    width, self._names(),
                                    waiting=self._left(self._reconnect_deadline) is not None,
                                    operators=self.moon.model.operators))

    def _names(self) -> int:
        """The width names get on this screen (cut the same way everywhere on it)."""
        return name_width(self.app.size.width)

    def _tick(self) -> None:
        """Once a second while a countdown runs: the seats, and the prompt if it counts."""
        if self._turn_deadline is None and self._reconnect_deadline is None:
            return
        self._draw_seats()
        if self._warn() is not None or self._reconnect_deadline is not None:
            self._draw_prompt()

    def _warn(self) -> int | None:
        """`_warning()`, and `TimeRunningOut` sent the first time in a turn."""
        warning = self._warning()
        if warning is not None and self._warned != self._turn_key:
            self._warned = self._turn_key
            self.post_message(self.TimeRunningOut(self.table_id, warning))
        return warning

    def _start_timer(self) -> None:
        if self._timer is None and (self._turn_deadline is not None
                                    or self._reconnect_deadline is not None):
            self._timer = self.set_interval(timer_delay(1.0), self._tick)

    def _draw_hand(self, view: SeatView, finished: GameFinished | None) -> None:
        hand = self.query_one(HandView)
        if view.seat is None:
            sizes = "  ".join(f"{seat_name(self._table(), s)}: {n} tiles"
                              for s, n in enumerate(view.hand_sizes))
            hand.show_text(plain(f"You are watching this table: the hands stay hidden.\n"
                                 f"{sizes}"))
            return
        hand.show_text(None if view.hand else summary(
            view, self._table(), finished, self._last_hand(), seen=not self._may_see(view),
            names=self._names(), solo=self.moon.solo))
        choosing = view.my_turn and view.phase in (Phase.PLAY, Phase.DISCARD)
        playable = {a.tile for a in view.legal if a.kind in ("play", "discard")}
        tiles = []
        for i, tile in enumerate(view.hand):
            if not choosing:
                mark = Mark.PLAIN
            else:
                mark = Mark.LEGAL if tile in playable else Mark.ILLEGAL
            label = "" if mark is Mark.ILLEGAL else str(i + 1)
            if view.widow is not None and tile == view.widow and view.phase is Phase.DISCARD:
                label = f"{label} W".strip()
            tiles.append(HandTile(tile, mark, label))
        hand.set_tiles(tuple(tiles), show_cursor=choosing)
        cursor = hand.cursor
        if choosing and cursor is not None and tiles[cursor].mark is Mark.ILLEGAL:
            hand.place_cursor(next(i for i, t in enumerate(tiles) if t.mark is Mark.LEGAL))

    @staticmethod
    def _to_lead(view: SeatView) -> bool:
        """This player leads the next trick (and so may claim the rest: `C`)."""
        trick = view.current_trick
        return (view.my_turn and view.phase is Phase.PLAY and trick is not None
                and not trick.plays)

    def _may_see(self, view: SeatView) -> bool:
        """The hand is over and the table waits for this player to say they read it."""
        return (view.seat is not None and view.phase is Phase.DEAL and view.outcome is None
                and bool(view.results) and self._seen_hand != view.hand_number)

    def _last_hand(self) -> TableInfo | None:
        """The table as seated for the last hand over: it keeps its players' names."""
        view, update = self._view, self._update
        if view is None or update is None or not view.results:
            return None
        return update.table_of_hand(view.results[-1].number)

    def _table(self) -> TableInfo:
        assert self._update is not None
        return self._update.table

    def _choices(self, view: SeatView) -> list[Item]:
        """The choices also offered as clickable items: bids, trumps, rematch."""
        if view.outcome is not None:
            if self.moon.solo:
                return [Item("rematch", "r", "play again"), Item("leave", "q", "quit")]
            return [Item("rematch", "r", "rematch"), Item("leave", "q", "leave")]
        if not view.my_turn:
            return []
        if view.phase is Phase.BID:
            out = []
            for action in view.legal:
                if action.kind == "pass":
                    out.append(Item(f"a{action.code}", "p", "pass"))
                elif action.bid == MOON:
                    out.append(Item(f"a{action.code}", "m", "moon"))
                else:
                    out.append(Item(f"a{action.code}", str(action.bid), ""))
            return out
        if view.phase is Phase.TRUMP:
            out = []
            for trump, count in trump_counts(view):
                code = f"a{Action.make_trump(trump).code}"
                if trump == TRUMP_NONE:
                    out.append(Item(code, "n", "no trump"))
                elif trump == TRUMP_DOUBLES:
                    out.append(Item(code, "d", f"doubles ({count})"))
                else:
                    out.append(Item(code, str(trump), f"({count})"))
            return out
        return []

    def _draw_actions(self, view: SeatView) -> None:
        choices = self._choices(view)
        bar = self.query_one("#actions", ClickBar)
        cursor = None
        if view.my_turn and view.phase in (Phase.BID, Phase.TRUMP):
            # ←→ and Enter choose in the row of bids (or trumps), as with the tiles.
            old = bar.cursor if bar.items == tuple(choices) else None
            cursor = 0 if old is None else old
        bar.set_items(choices, cursor)

    def _tell(self, words: str, *, wrong: bool = True) -> None:
        """Show `words` in place of the prompt until the turn moves on: marked ✗ when
        what the player did was refused, unmarked for a question or a greeting."""
        self._told = (words, wrong)
        self._draw_prompt()

    def _draw_prompt(self) -> None:
        view = self._view
        if view is None:
            return
        text = Text(no_wrap=True, overflow="ellipsis")
        warning = self._warn()
        if warning is not None:
            text.append(f" {warning} s left! ", style="bold reverse")
            text.append(" ")
        if self._told is not None:
            words, wrong = self._told
            if wrong:
                text.append("✗ ", style="bold")
            text.append(words, style="bold reverse")
        else:
            text.append(self._prompt(view))
        set_text(self.query_one("#prompt", Static), text)

    def _prompt(self, view: SeatView) -> str:
        n = len(view.hand)
        if view.outcome is not None:
            if self.moon.solo:
                return "The game is over. r: play again, q: quit or a new game."
            return "The game is over. r: rematch, q: leave the table."
        if view.seat is None:
            return "You are watching. q: back to the lobby."
        if view.phase is Phase.DEAL:
            # Everybody passed: the tiles are still in hand, so no result is drawn there.
            over = ("Everybody passed" if view.results and view.results[-1].redeal
                    else "The hand is over")
            if self._may_see(view):
                if self.moon.lesson is not None:
                    return f"{over}. {self.moon.lesson}"
                return f"{over}. Enter: on to the next hand."
            return f"{over}; the next one is dealt when everyone has read it."
        if not view.my_turn:
            if view.to_move is None:
                return ""
            who = seat_name(self._table(), view.to_move)
            back = self._left(self._reconnect_deadline)
            if back is not None:
                return f"Waiting for {who} to reconnect… {back} s (h: a computer plays now)"
            return f"Waiting for {who}…"
        if view.phase is Phase.BID:
            return "Your bid: ←→ Enter below, or p pass, a digit bids, m moon."
        keys = "1" if n == 1 else f"1-{n}"
        if view.phase is Phase.DISCARD:
            return f"You took the widow (W). Discard one tile: ←→ Enter or {keys}."
        if view.phase is Phase.TRUMP:
            return "Name trump: a number, d doubles or n no trump. (How many trumps you'd hold.)"
        if n == 1:
            return "Your turn: play your last tile (Enter or 1)."
        prompt = f"Your turn: play a tile (←→ Enter, or {keys})."
        if len(view.legal) < n:  # (the hint only when some tile is drawn dashed)
            prompt += " Dashed tiles may not be played."
        elif self._to_lead(view):
            prompt += " C: claim the rest."
        return prompt

    # -- choosing --------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self._view
        if action == "choose" and view is not None and self._may_see(view):
            return True
        if action in ("move", "choose") and view is not None and view.my_turn and \
                view.phase in (Phase.BID, Phase.TRUMP):
            return True
        if action in ("pick", "move", "choose"):
            if view is None or not view.my_turn or view.phase not in (Phase.PLAY, Phase.DISCARD):
                return False
            if action == "pick":
                index = parameters[0]
                return isinstance(index, int) and index < len(view.hand)
            return True
        if action in ("bid", "pass"):
            if view is None or not view.my_turn or view.phase is not Phase.BID:
                return False
            if action == "pass":
                return Action.make_pass() in view.legal
            amount = parameters[0]
            return isinstance(amount, int) and Action.make_bid(amount) in view.legal
        if action == "trump":
            if view is None or not view.my_turn or view.phase is not Phase.TRUMP:
                return False
            trump = parameters[0]
            return isinstance(trump, int) and Action.make_trump(trump) in view.legal
        if action == "rematch":
            return view is not None and view.outcome is not None and view.seat is not None
        if action == "claim":
            return view is not None and self._to_lead(view)
        if action == "last_trick":
            return view is not None and bool(view.tricks)
        if action == "played":
            return view is not None and view.phase is Phase.PLAY
        if action == "chat":
            return not self.moon.solo and self.moon.lesson is None  # (its words there)
        if action == "hand_over":
            return self._away_to_move() is not None
        if action == "open_seats":
            return (not self.moon.solo and self._update is not None
                    and self._table().owner == self.moon.player_name
                    and self._table().status == "playing")
        if action == "hint":
            # Practice tables only: one person, never rated (the lobby sees to it).
            return (view is not None and view.my_turn and self._update is not None
                    and self._update.table.practice and self.moon.analyst is not None)
        return True

    def _away_to_move(self) -> int | None:
        """The seat to move when its player is away (the table waits for them)."""
        view = self._view
        if self.moon.solo or view is None or view.seat is None or view.to_move is None \
                or self._update is None:
            return None
        seats = self._table().seats
        return view.to_move if 0 <= view.to_move < len(seats) and seats[view.to_move].away \
            else None

    def action_hand_over(self) -> None:
        """Ask that a computer play for the absent player now (the owner's word does it;
        else everyone here must ask)."""
        seat = self._away_to_move()
        if seat is not None:
            self.moon.send(HandOver(self.table_id, seat))

    def action_open_seats(self) -> None:
        """The owner lets newcomers take a computer's seat, or no longer."""
        if self._update is not None:
            self.moon.send(OpenSeats(self.table_id, not self._table().open_seats))

    def explain_key(self, event: events.Key) -> None:
        """A key the table cannot take now gets a word, not silence (the keys are off
        then). Called by the app (`MoonApp.on_key`): a screen with a key handler of its
        own would hold up every key at the table for a pass of the server's event loop
        (server/patches.py, patch 19)."""
        view = self._view
        if view is None or view.seat is None or view.to_move is None:
            return
        words = self._key_refused(event.character or "", view)
        if words is not None:
            self._tell(words)

    def _key_refused(self, key: str, view: SeatView) -> str | None:
        """Why `key` does nothing now: a digit out of turn, a claim when not leading, a
        bid too low, or a pass or a trump the rules refuse (None: nothing to say)."""
        digit = int(key) if len(key) == 1 and key.isdigit() else None
        if key == "C" and view.phase is Phase.PLAY and not self._to_lead(view):
            return "You may claim the rest when it is your turn to lead a trick."
        if not view.my_turn:
            if digit is None or view.phase not in (Phase.BID, Phase.DISCARD, Phase.TRUMP,
                                                   Phase.PLAY):
                return None
            assert view.to_move is not None
            return f"Not your turn yet: {seat_name(self._table(), view.to_move)} is to play."
        if view.phase is Phase.TRUMP and key in TRUMP_KEYS and \
                Action.make_trump(TRUMP_KEYS[key]) not in view.legal:
            return trump_refused_words(TRUMP_KEYS[key], view.legal)
        if view.phase is not Phase.BID:
            return None
        if key == "p" and Action.make_pass() not in view.legal:
            return "You cannot pass: everyone else passed, so you must bid."
        if digit is not None and not any(action.kind == "bid" and action.bid == digit
                                         for action in view.legal):
            return bids_left_words(digit, view.legal)
        return None

    def _act(self, action: Action) -> None:
        """Send a move of the player's own and answer it at once: drawn where the rules
        say what follows (`foresee`), else said to be sent. The table's answer, which
        takes a few passes of the server (more when the table runs on another worker),
        then replaces it. A move also answers "leave?" with "no"."""
        if self._awaiting_unforeseen():
            return  # one move at a time: the words say the last one waits for the table
        self._told = None
        self._leave_armed_until = 0.0
        self.moon.send(Act(self.table_id, action))
        update, before = self._update, self._view
        if update is None or before is None or not before.my_turn \
                or action not in before.legal:
            return  # the table refuses it, in its own words
        awaited = AwaitedMove(before, foresee(before, action))
        self._await(awaited)
        if awaited.foreseen is None:  # only the table can show what follows (the widow)
            self._tell(f"You {action_words(action)}: waiting for the table…", wrong=False)
            return
        drawn = awaited.drawn_over(update)
        assert drawn is not None  # (the update's view is the one the move was sent from)
        self.show(drawn)

    def _awaiting_unforeseen(self) -> bool:
        """A move of the player's own that could not be foreseen waits for the table."""
        return self._awaited is not None and self._awaited.foreseen is None

    def _await(self, awaited: AwaitedMove, seconds: float = UNANSWERED_SECONDS) -> None:
        """A move of the player's own waits for the table, for at most `seconds`."""
        self._forget_awaited()
        self._awaited = awaited
        self._unanswered = later(seconds, self, self._not_answered)

    def _in_row(self) -> bool:
        """←→ Enter act on the row of bids or trumps (else on the hand)."""
        view = self._view
        return view is not None and view.my_turn and view.phase in (Phase.BID, Phase.TRUMP)

    def action_move(self, step: int) -> None:
        self._returning = False
        if self._in_row():
            bar = self.query_one("#actions", ClickBar)
            if bar.items:
                cursor = ((bar.cursor or 0) + step) % len(bar.items)
                bar.set_items(bar.items, cursor)
            return
        self.query_one(HandView).move(step)

    def action_choose(self) -> None:
        view = self._view
        if view is not None and self._may_see(view) and self.moon.lesson is not None \
                and not view.results[-1].redeal:
            self.post_message(self.LessonOver())
            return
        if view is not None and self._may_see(view):
            self._seen_hand = view.hand_number
            self.moon.send(HandSeen(self.table_id, view.hand_number))
            if self._update is not None:
                self.show(self._update)  # (the keys too: Enter is done)
            return
        if self._returning:
            # Back from a dropped connection, a player presses Enter out of habit (the
            # welcome screen asks for it) before seeing what is marked: not a move.
            self._returning = False
            if view is not None and view.my_turn and view.phase in (
                    Phase.BID, Phase.TRUMP, Phase.DISCARD, Phase.PLAY):
                self._tell("Welcome back! Enter again takes the marked choice.", wrong=False)
                return
        if self._in_row():
            bar = self.query_one("#actions", ClickBar)
            if bar.cursor is not None:
                bar.chosen(bar.items[bar.cursor].ident)
            return
        hand = self.query_one(HandView)
        self._choose_tile(hand.select(hand.cursor))

    def action_pick(self, index: int) -> None:
        self._returning = False
        self._choose_tile(self.query_one(HandView).select(index))

    @on(HandView.Picked)
    def _picked(self, event: HandView.Picked) -> None:
        self._choose_tile(event.tile)  # a click on the hand

    def _choose_tile(self, tile: Tile | None) -> None:
        """Play `tile`, or discard it while discarding."""
        view = self._view
        if tile is None or view is None or view.seat is None:
            return
        if view.phase is Phase.DISCARD:
            self._act(Action.make_discard(tile))
        else:
            self._act(Action.make_play(tile))

    def action_bid(self, amount: int) -> None:
        self._act(Action.make_bid(amount))

    def action_pass(self) -> None:
        self._act(Action.make_pass())

    def action_trump(self, trump: int) -> None:
        self._act(Action.make_trump(trump))

    def action_rematch(self) -> None:
        self.moon.send(Rematch(self.table_id))

    def action_claim(self) -> None:
        """Claim every trick left: the table proves it, then plays the rest out at once
        (or says why not, in place of this prompt)."""
        if self._awaiting_unforeseen():
            return
        self._tell("Claiming the rest: the table checks that every trick is surely "
                   "yours…", wrong=False)
        self.moon.send(Claim(self.table_id))
        if self._view is not None:  # (its proof may take the table `PROOF_SECONDS`)
            self._await(AwaitedMove(self._view, None), UNANSWERED_SECONDS + PROOF_SECONDS)

    @on(ClickBar.Chosen, "#actions")
    def _clicked(self, event: ClickBar.Chosen) -> None:
        event.stop()
        if event.ident == "rematch":
            self.action_rematch()
        elif event.ident == "leave":
            self.action_leave()
        elif event.ident.startswith("a"):
            self._act(Action.from_code(int(event.ident[1:])))

    def _end_local(self, how: str | None) -> None:
        if how == "quit":
            self.app.call_later(self.app.run_action, "quit")
        elif how == "new":
            self.app.call_later(self.app.run_action, "new_game")

    # -- the rest --------------------------------------------------------------------------
    def action_last_trick(self) -> None:
        from .dialogs import LastTrickScreen

        self.app.push_screen(LastTrickScreen(self.table_id))

    def action_played(self) -> None:
        from .dialogs import PlayedScreen

        self.app.push_screen(PlayedScreen(self.table_id))

    def action_hint(self) -> None:
        from .hints import HintScreen

        self.app.push_screen(HintScreen(self.table_id))

    def action_scores(self) -> None:
        from .dialogs import ScoreSheetScreen

        self.app.push_screen(ScoreSheetScreen(self.table_id))

    def action_chat(self) -> None:
        self.query_one(ChatPanel).focus_input()

    def action_unfocus_chat(self) -> None:
        self.query_one(HandView).focus()

    @on(ChatPanel.Said)
    def _said(self, event: ChatPanel.Said) -> None:
        self.moon.send(SendChat(event.text, self.table_id))
        self.query_one(HandView).focus()

    def _game_over(self) -> bool:
        return self._view is not None and self._view.outcome is not None

    def action_leave(self) -> None:
        """Leave the table; mid-game a seated player presses q twice (a computer takes
        the seat), so a stray key does not abandon a game."""
        view = self._view
        playing = view is not None and view.seat is not None and view.outcome is None
        now = time.monotonic()
        if playing and now > self._leave_armed_until:
            self._leave_armed_until = now + LEAVE_CONFIRM_SECONDS
            self._tell("Leave this game? A computer takes your seat. Press q again.",
                       wrong=False)
            return
        self.moon.send(LeaveTable(self.table_id))


SOLO_WORDS = {"rematch": "play again", "leave": "quit"}
"""Played alone there is no rematch to vote for and no lobby to go back to."""


class SoloGameScreen(GameScreen):
    """The table played alone (`moon`): its keys read as its game-over choices do ("r
    play again", "q quit"); the same bindings, two of them in other words."""

    BINDINGS = [replace(b, description=SOLO_WORDS[b.action])
                if isinstance(b, Binding) and b.action in SOLO_WORDS else b
                for b in GameScreen.BINDINGS]

    def action_leave(self) -> None:
        """There is no lobby to go back to: q asks whether to quit or start a new game."""
        from .dialogs import EndLocalGameScreen

        self.app.push_screen(EndLocalGameScreen(self._game_over()), self._end_local)


class LessonGameScreen(GameScreen):
    """The first lesson, started from the club's welcome screen: played alone, but it
    leads to the club's lobby, so its q asks whether to leave the lesson for it."""

    def action_leave(self) -> None:
        from .dialogs import EndLessonScreen

        self.app.push_screen(EndLessonScreen(self._game_over()), self._end_local)
