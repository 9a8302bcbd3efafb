"""The Moon app: one player's session, on a local terminal or over SSH.

The app talks to the lobby only through its `PlayerHandle`: it sends commands and renders
the events it receives (views made for this player alone). One app runs per SSH session,
many in one process, so it touches nothing process-wide and redraws only what changed.
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.notifications import Notify, SeverityLevel
from textual.screen import Screen
from textual.widgets import Static

from .bots.analysis import Analyst
from .lobby import Lobby, LobbyClosed, PlayerHandle
from .lobby.messages import (
    ChatPosted,
    Command,
    CreateTable,
    Disconnected,
    Event,
    GameFinished,
    LeaveTable,
    LobbyUpdate,
    Notice,
    Rejected,
    RestartNotice,
    TableLeft,
    TableUpdate,
)
from .lobby.notices import Tell
from .services import GameArchive, KeyManager, RatingBook, ServerHealth
from .ui.base import ComingBackScreen, FirstScreen, MoonModal, MoonParts, MoonScreen
from .ui.context import ScreenContext
from .ui.frames import draw_now
from .ui.game import GameScreen, LessonGameScreen, SoloGameScreen
from .ui.lobby_screen import LobbyScreen
from .ui.model import Model
from .ui.notices import ending_words, left_words, notice_title, notice_words
from .ui.plain import plain, printable
from .ui.refusals import refusal_words
from .ui.replay import ReplayScreen
from .ui.timers import TimedNotification, timer_delay
from .ui.waiting import WaitingScreen
from .ui.words import restart_words

log = logging.getLogger(__name__)


TABLE_NOTICES = frozenset({Tell.CANNOT_SAVE, Tell.SAVING_AGAIN})
"""Notices about one table (its journal), handed to its screens as its other news is."""


def table_of(event: Event) -> str | None:
    """The table an event is about, None for the lobby's and the app's own events."""
    if isinstance(event, TableUpdate):
        return event.table.table_id
    if isinstance(event, GameFinished | TableLeft):
        return event.table_id
    if isinstance(event, ChatPosted):
        return event.line.table_id
    if isinstance(event, Rejected):
        table_id = getattr(event.command, "table_id", None)
        return table_id if isinstance(table_id, str) else None
    if isinstance(event, Notice) and event.code in TABLE_NOTICES:
        table_id = event.params.get("table_id")
        return table_id if isinstance(table_id, str) else None
    return None

RESTART_NOTICE_SECONDS = 12.0
"""How long a restart notice stays up (it is repeated at 60, 30, 10 and 5 s)."""
JOIN_CLOSED = "The server is shutting down: come back in a minute."
JOIN_FAILED = "Could not join the lobby (the server's log says why): try again in a minute."
NOTICE_SECONDS = {Tell.INVITED: 10.0, Tell.CANNOT_SAVE: 3600.0}
"""How long a notice stays up (6 s unless said here): "the server cannot save" stays until
the table goes on ("saves again" takes it down)."""
ENDED_SECONDS = 4.0
"""How long the reason a session ended stays on screen before the app exits."""
RELIES_ON = (
    (App, "_background_screens", "the screens drawn under the top one, and is_current"),
    (App, "is_headless", "the app's driver is _driver: the window title is written to it"),
)
"""Private parts of Textual `MoonApp` overrides or reads: (owner, name, what it relies on)."""


class SessionOver(MoonModal):
    """The lobby ended this session: say why, then leave."""

    BINDINGS = [("escape,enter,q,space", "close", "Close")]

    def __init__(self, reason: str) -> None:
        super().__init__(classes="dialog")
        self.reason = reason

    def compose_body(self) -> ComposeResult:
        yield Static(Content.assemble("Your session has ended:\n\n", plain(self.reason),
                                      "\n\n(any key closes)"), id="ended")

    def on_mount(self) -> None:
        self.set_timer(timer_delay(ENDED_SECONDS), self.action_close)

    def action_close(self) -> None:
        self.app.exit(message=Text(printable(self.reason)))  # a str would be read as markup


NOTICE_SECONDS = {Tell.INVITED: 10, Tell.WHILE_AWAY: 15, Tell.SEAT_WAITS: 10}
"""Notices that stay longer than the others: they take reading, or a key to act on."""


class MoonApp(App[None]):
    """The whole interface of one player. See the module docstring for the contract."""

    CSS_PATH = "ui/moon.tcss"
    TITLE = "Moon"
    BINDINGS = [Binding("B", "toggle_bell", "bell on/off", show=False)]
    ENABLE_COMMAND_PALETTE = False
    # The palette's screenshot/open-url actions would act on the server host.

    def __init__(self, lobby: Lobby, name: str, *, motd: str = "", operator: bool = False,
                 guest: bool = False, keys: KeyManager | None = None,
                 driver_class: type[Driver] | None = None,
                 health: ServerHealth | None = None, person: str | None = None,
                 games: GameArchive | None = None, analyst: Analyst | None = None,
                 ratings: RatingBook | None = None, help_first: bool = False,
                 to_table: bool = False, open_replay: str | None = None) -> None:
        super().__init__(driver_class=driver_class)
        self.lobby = lobby
        self.player_name = name
        self.motd = motd
        self.operator = operator
        self.guest = guest
        """Logged in without a key, under a `guest-NNNN` name given for this visit."""
        self.person = person
        """Whom the lobby's per-person limits count this session against (None: the
        name; `Lobby.connect`)."""
        self.solo = False
        """A game played alone (`moon`, set by LocalMoonApp): no lobby, no chat."""
        self.club_next = False
        """A game alone that leads to the club's lobby (the first lesson, from the
        welcome screen): leaving it goes there."""
        self.lesson: str | None = None
        """The first lesson is on (`moon_tui/lesson.py`): what its last step offers."""
        self._lesson_table = False
        """The lesson is played at a practice table of the club (`start_lesson`)."""
        self.keys = keys
        self.health = health
        """The server's alarms, for an operator's screen (None: nothing to report)."""
        self.games = games
        self.analyst = analyst
        self.open_replay = open_replay
        """Open this saved game in the replay viewer at once (`ssh -t host replay CODE`)."""
        self.ratings = ratings
        self.model = Model(name)
        self.chat_max_chars = lobby.config.chat_max_chars
        self.handle: PlayerHandle | None = None
        self.current_table: str | None = None
        self.to_table = to_table
        """A table holds this player's place (they come back to it): the first screen is
        that table's, and the lobby is built when they first leave it. After a restart
        every seated player comes back at once, and a lobby composed and drawn for each
        before their table, unseen, was a third of each one's start (docs/CAPACITY.md)."""
        self.help_first = help_first
        """Open the help over the first screen (the player pressed ? on the SSH banner)."""
        self._ended = False
        self.bell_on = True
        """Ring the terminal bell when the game calls this player (B turns it off for the
        session; not kept with the account)."""
        self.calls: list[str] = []
        """Why the player was called (rung for or not), oldest first: `turn`, `start`,
        `chat`, `timer`. Kept short."""
        self.window_title = ""
        self._command_unanswered = False
        """The player sent a command since the last frame drawn for the lobby's events:
        the next events' frame is drawn as soon as they are in (`ui.frames`)."""

    @property
    def _background_screens(self) -> list[Screen[Any]]:
        """The screens that show through the top one. Textual's list always names the
        screen under the top one, even when the top one hides it: the lobby under a table
        was then drawn at every lobby change, and each change redrew the whole table
        screen on top. Here a screen with an opaque background hides the rest; a
        translucent dialog still shows what is under it (`RELIES_ON`)."""
        stack = self.screen_stack
        if stack and stack[-1].styles.background.a == 1:
            return []
        return super()._background_screens

    # -- the session -----------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        return FirstScreen()

    def on_mount(self) -> None:
        if not self.to_table:
            self.push_screen(LobbyScreen())
        if self.open_replay is not None and self.games is not None:
            from .ui.games import GamesScreen

            self.push_screen(GamesScreen(self.games, code=self.open_replay))
        if self.help_first:
            from .ui.help import HelpScreen

            self.push_screen(HelpScreen())
        self.run_worker(self._session(), name="session", exclusive=True)

    async def open_handle(self) -> PlayerHandle:
        """Connect to the lobby (a local game overrides this to start its own lobby)."""
        return await self.lobby.connect(self.player_name, operator=self.operator,
                                        person=self.person)

    async def _session(self) -> None:
        try:
            self.handle = await self.open_handle()
        except LobbyClosed:  # its text is the lobby's, for logs
            self.end_session(JOIN_CLOSED)
            return
        except Exception:  # noqa: BLE001 - the player is told, then we leave
            log.exception("could not join the lobby")
            self.end_session(JOIN_FAILED)
            return
        self.on_session_start()
        handle = self.handle
        async for event in handle:
            try:
                self.take(event)
            except Exception:
                # A drawing bug must not stop the session: the model is up to date and
                # the next event redraws.
                log.exception("could not show %s", type(event).__name__)
            if self._command_unanswered and not handle.has_events \
                    and draw_now(self.screen):
                # Every event that came is in (they are taken without a pass between),
                # and the player waits on what their command changed: drawn now.
                self._command_unanswered = False

    def on_session_start(self) -> None:
        """Hook for a local game: the handle is ready."""

    @property
    def may_start_lesson(self) -> bool:
        """The help may start the first lesson: at a club, at no table, not in one."""
        return (self.lesson is None and not self.solo and self.current_table is None
                and self.handle is not None)

    def start_lesson(self) -> None:
        """The first lesson's hand at a practice table of the club's lobby (from the
        help): the same deal and words as the banner's lesson, then back to the lobby."""
        from .lesson_deal import lesson_play_on
        from .ui.lesson_text import FINISH

        if not self.may_start_lesson:
            return
        self.lesson, self._lesson_table = FINISH, True
        self.send(CreateTable("first lesson", play_on=lesson_play_on()))

    @on(GameScreen.LessonOver)
    def _club_lesson_over(self) -> None:
        """The learner read the lesson's last step: leave its table for the lobby."""
        if self._lesson_table and self.current_table is not None:
            self.send(LeaveTable(self.current_table))

    def on_key(self, event: events.Key) -> None:
        # Before the app's bindings, as the table screen's own handler would have been.
        screen = self.screen
        if isinstance(screen, GameScreen):
            screen.explain_key(event)

    def send(self, command: Command) -> None:
        if self.handle is not None and not self.handle.closed:
            self.handle.send(command)
            self._command_unanswered = True

    async def on_unmount(self) -> None:
        if self.handle is not None and not self.handle.closed:
            await self.handle.close()

    def end_session(self, reason: str) -> None:
        if self._ended:
            return
        self._ended = True
        self.push_screen(SessionOver(reason))

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """A toast, always as plain text (`markup` is ignored; see `ui.plain`).

        Toasts carry broadcasts, the message of the day, reasons and refusals that quote
        what a person typed; Textual's `notify` (and a screen's, which passes
        `markup=True`) would read them as markup, and `[/]` raised in every session.
        The notice is a `TimedNotification`: its toast's timer never gets a negative delay."""
        notice = TimedNotification(printable(message), printable(title), severity,
                        self.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=False)
        self.post_message(Notify(notice))

    # -- events ----------------------------------------------------------------------------
    def take(self, event: Event) -> None:
        """Take one event in: update the model, move between screens, tell the screens
        the event concerns."""
        before = self.model.tables.get(table_of(event) or "") \
            if isinstance(event, TableUpdate) else None
        if not self.model.apply(event):
            return
        if isinstance(event, Rejected):
            self.model.note_refusal(event, time.monotonic())
        self._maybe_call(event, before)
        if isinstance(event, TableUpdate):
            self._follow_table(event)
        elif isinstance(event, LobbyUpdate) \
                and isinstance(self.screen, FirstScreen | ComingBackScreen) \
                and self._at_no_table(event):
            self._lobby_on_need()  # the place the door saw went before they came in
        elif isinstance(event, Notice) and event.code is Tell.TABLE_COMING_BACK \
                and isinstance(self.screen, FirstScreen):
            self.push_screen(ComingBackScreen(notice_words(event)))
        elif isinstance(event, TableLeft) and event.table_id == self.current_table:
            self._leave_table(event)
        elif isinstance(event, Notice) and event.code is not Tell.SEAT_WAITS:
            # (a seat waiting is said on the lobby's board as long as it waits)
            severity = {"info": "information", "warning": "warning", "error": "error"}
            if event.code is Tell.SAVING_AGAIN:
                self.clear_notifications()  # the table's "cannot save" is over
            self.notify(notice_words(event), title=notice_title(event),
                        severity=severity[event.level],  # type: ignore[arg-type]
                        timeout=NOTICE_SECONDS.get(event.code, 6))
            if event.code is Tell.INVITED:
                self.screen.refresh_bindings()  # the lobby's `y` joins it now
        elif isinstance(event, RestartNotice):
            self.notify(restart_words(event), title="Restart", severity="warning",
                        timeout=RESTART_NOTICE_SECONDS)
        elif isinstance(event, Rejected) and not self._screen_explains(event):
            if isinstance(event.command, CreateTable) and self._lesson_table \
                    and self.current_table is None:
                self.lesson, self._lesson_table = None, False  # no lesson table after all
            self.notify(refusal_words(event), severity="warning", timeout=6)
        elif isinstance(event, Disconnected):
            self.end_session(ending_words(event))
        table_id = table_of(event)
        if table_id is None and not isinstance(event, LobbyUpdate | ChatPosted):
            return
        for screen in list(self.screen_stack):
            if not isinstance(screen, MoonParts) or not screen.is_mounted:
                continue
            try:
                if table_id is not None:
                    if screen.table_id == table_id:
                        screen.table_event(event)
                elif isinstance(event, LobbyUpdate | ChatPosted):
                    screen.lobby_event(event)
            except NoMatches:
                # Still composing (or being removed): it draws from the model on mount.
                log.debug("%s not ready for %s", screen, type(event).__name__)

    def _screen_explains(self, event: Rejected) -> bool:
        table_id = table_of(event)
        return any(isinstance(s, GameScreen) and s.table_id == table_id
                   for s in self.screen_stack)

    def _follow_table(self, event: TableUpdate) -> None:
        table_id = event.table.table_id
        if self.current_table is None:
            self.current_table = table_id
        if table_id != self.current_table:
            return
        self._show_table(table_id, "waiting" if event.view is None else "game")

    def _base_screens(self) -> list[MoonScreen]:
        return [s for s in self.screen_stack if isinstance(s, MoonScreen)]

    def _show_table(self, table_id: str, kind: str) -> None:
        wanted = GameScreen if kind == "game" else WaitingScreen
        for screen in self._base_screens():
            if isinstance(screen, wanted) and screen.table_id == table_id:
                return
        while isinstance(self.screen, MoonModal | ComingBackScreen):
            self.pop_screen()
        # A play-on from the replay viewer opens over it (leaving goes back there).
        if not isinstance(self.screen, FirstScreen | LobbyScreen | WaitingScreen | GameScreen
                          | ReplayScreen):
            self.switch_screen(LobbyScreen())
        # Straight from the lobby into a game under way: the player came back to it.
        returning = not isinstance(self.screen, WaitingScreen | GameScreen | ReplayScreen)
        game = (LessonGameScreen if self.club_next else SoloGameScreen if self.solo
                else GameScreen)
        new = (game(table_id, returning=returning) if kind == "game"
               else WaitingScreen(table_id))
        if isinstance(self.screen, WaitingScreen | GameScreen):
            self.switch_screen(new)
        else:
            self.push_screen(new)

    def _lobby_on_need(self) -> None:
        """Show the lobby where nothing is over the first screen: a player who came
        straight to their table (`to_table`) gets theirs built when they first leave it."""
        if isinstance(self.screen, FirstScreen):
            self.push_screen(LobbyScreen())
        elif isinstance(self.screen, ComingBackScreen):  # it did not come back after all
            self.switch_screen(LobbyScreen())

    def _at_no_table(self, lobby: LobbyUpdate) -> bool:
        """The lobby says this player neither sits at nor watches a table."""
        place = dict(zip(lobby.online, lobby.places, strict=False)).get(self.player_name)
        return place is not None and place[0] == "idle"

    # -- calling the player ----------------------------------------------------------------
    def _maybe_call(self, event: Event, before: TableUpdate | None) -> None:
        """Ring when it becomes this player's turn after someone else's, when a table
        they wait at starts, and on a chat line that names them; the window title says
        whose turn it is."""
        if isinstance(event, TableUpdate) and event.table.table_id == self.current_table:
            view = event.view
            mine = view is not None and view.my_turn
            self._set_window_title("Moon — your turn" if mine else "Moon")
            if before is not None and before.table.status == "waiting" and \
                    event.table.status == "playing" and event.seat is not None and \
                    event.table.owner != self.player_name:
                self._call("start")
            elif mine and before is not None and before.view is not None and \
                    not before.view.my_turn:
                self._call("turn")
        elif isinstance(event, ChatPosted) and event.line.sender != self.player_name and \
                names(event.line.text, self.player_name):
            self._call("chat")

    @on(GameScreen.TimeRunningOut)
    def _time_running_out(self, message: GameScreen.TimeRunningOut) -> None:
        """Your turn timer entered its last seconds."""
        self._call("timer")

    def _call(self, why: str) -> None:
        self.calls = [*self.calls[-9:], why]
        if self.bell_on:
            self.bell()

    def _set_window_title(self, title: str) -> None:
        """The terminal window's title (OSC 2), written only when it changes."""
        if title == self.window_title:
            return
        self.window_title = title
        if not self.is_headless and self._driver is not None:
            # Straight to the terminal (no markup): one of this file's own titles.
            self._driver.write("\x1b]2;" + printable(title, lines=False) + "\x07")

    def action_toggle_bell(self) -> None:
        self.bell_on = not self.bell_on
        self.notify("The bell is on." if self.bell_on else
                    "The bell is off for this session (B turns it on again).", timeout=4)

    def _leave_table(self, event: TableLeft) -> None:
        self.current_table = None
        if self._lesson_table:
            self.lesson, self._lesson_table = None, False
        self._set_window_title("Moon")
        while isinstance(self.screen, MoonModal | ComingBackScreen):
            self.pop_screen()
        if isinstance(self.screen, WaitingScreen | GameScreen):
            self.pop_screen()
        self._lobby_on_need()
        self.notify(left_words(event, guest=self.guest), timeout=6)
        for table_id in self.model.tables:
            self._follow_table(self.model.tables[table_id])
            break


def names(text: str, name: str) -> bool:
    """Whether a chat line names `name` (as a word, any case)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


if TYPE_CHECKING:
    _checked: type[ScreenContext] = MoonApp  # the app is what its screens need
