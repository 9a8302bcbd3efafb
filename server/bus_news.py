"""One club on every worker: the news each worker acts on, through one stream on the bus.

What the lobby chat is to players, the club's news is to the workers (`moon-server
--workers N`): one stream, `moon:club:news` (about `NEWS_STREAM_MAX` entries kept), that
every worker writes to and reads from the moment it starts, through its `WorkerBus`'s
reader. Each entry is one `internal.ClubNews` in the versioned wire format (`codec.py`)
with the name of the worker that wrote it:

- from a lobby (its `Peers.news`, here through `ClubOnBus`): an operator's **broadcast**
  (every worker tells its players), the **notice board** and **message of the day** as
  an operator set them (every worker's lobby shows them; the worker they were set on
  keeps them), a **kick** or **ban** of someone served by another worker (the worker
  serving them ends their session and keeps them out, as it would for its own operator:
  it knows their key and address), an **invitation** to someone served elsewhere, and a
  player turning **invitations** off or on;
- from the server: an operator's **restart countdown**, started or called off. Every
  worker runs the same countdown (from the moment it was started, read from the entry),
  tells its own players at the same marks, and stops at its end; the supervisor, seeing
  a worker end for an operator's restart, stops any worker not stopped yet and ends with
  the restart's status. A countdown of the system's own (SIGTERM) is not news: the
  supervisor passes the signal to every worker. The simplest design that holds when the
  worker the operator used dies meanwhile: no worker waits for another to stop;
- the **busy alarm** (`load.py`) of a worker, as its figures: while the alarm lasts, told
  when it starts and every `BUSY_RENEW_SECONDS`; the others list it among their alarms,
  worded as the worker's own and naming it, until told it ended, or for
  `BUSY_TTL_SECONDS` after the last word (a worker that died busy says nothing more).

What another worker wrote is input, checked here as that worker's lobby would have let
it through (`checked_news`): names that players could have, an operator's text cut to
the lobby's bounds (shown as plain text as ever), numbers within the lobby's limits.
An entry that is not news, or not such news, is dropped and logged (`WorkerBus`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from moon_tui.lobby import codec
from moon_tui.lobby.chat import clean_text
from moon_tui.lobby.internal import (
    ClubBusy,
    ClubNews,
    ClubRestart,
    PeerBroadcast,
    PeerInvitations,
    PeerInvite,
    PeerKick,
    PeerNotices,
)
from moon_tui.lobby.messages import CODE_ALPHABET, CODE_LENGTH, TABLE_NAME_MAX, BoardNote
from moon_tui.lobby.operators import MINUTES_MAX, OPERATOR_TEXT_MAX, RESTART_MAX_SECONDS
from moon_tui.services import Busy, LoadFacts

from .bus_club import a_name
from .load import LoadWatch, busy_advice

if TYPE_CHECKING:
    from moon_tui.lobby import Lobby

    from .bus_link import WorkerBus
    from .restart import RestartCountdown
    from .store import Database

NEWS_STREAM = "moon:club:news"
NEWS_STREAM_MAX = 1_000
RECENT_NEWS = 100
"""The news a starting worker reads back for a restart countdown under way."""
BUSY_CHECK_SECONDS = 1.0
"""How often a worker looks whether its busy alarm started or ended."""
BUSY_RENEW_SECONDS = 10.0
BUSY_TTL_SECONDS = 30.0
"""How long another worker's busy alarm is listed after its last word."""
FIGURE_MAX = 10_000_000
"""The largest figure a busy alarm may carry (players, stalls, milliseconds...)."""


def _names(*names: str) -> None:
    if not all(a_name(name) for name in names):
        raise codec.CodecError("a name that no player could have")


def _text(text: str) -> str:
    """An operator's words, as the lobby lets them through."""
    return clean_text(text)[:OPERATOR_TEXT_MAX]


def _minutes(minutes: float) -> float:
    if not 0 <= minutes <= MINUTES_MAX:
        raise codec.CodecError(f"{minutes!r} minutes is out of bounds")
    return minutes


def _figure(value: float) -> float:
    if not 0 <= value <= FIGURE_MAX:
        raise codec.CodecError(f"a busy alarm's figure of {value!r}")
    return value


def checked_news(message: Any) -> ClubNews:
    """News read from the bus, as the lobby that wrote it would have let it through;
    `codec.CodecError` if it is not news, or names no player could have, or numbers
    past the lobby's limits."""
    if isinstance(message, PeerBroadcast):
        _names(message.by)
        return PeerBroadcast(_text(message.text), message.by)
    if isinstance(message, PeerNotices):
        board = message.board
        if board is not None:
            _names(board.by)
            board = BoardNote(_text(board.text), board.by, board.at, board.until)
        motd = None if message.motd is None else _text(message.motd)
        return PeerNotices(board, motd)
    if isinstance(message, PeerKick):
        _names(message.name, message.by)
        return PeerKick(message.name, message.banned, message.by,
                        message.reason[:OPERATOR_TEXT_MAX], _minutes(message.minutes))
    if isinstance(message, PeerInvite):
        _names(message.name, message.by, message.table_id)
        if len(message.code) > CODE_LENGTH or not set(message.code) <= set(CODE_ALPHABET):
            raise codec.CodecError("not an invite code")
        return PeerInvite(message.name, message.by,
                          clean_text(message.table)[:TABLE_NAME_MAX] or message.by,
                          message.table_id, message.code)
    if isinstance(message, PeerInvitations):
        _names(message.name)
        return message
    if isinstance(message, ClubRestart):
        _names(message.by)  # an operator's: the system's own is no news
        if message.seconds is not None and not 0 <= message.seconds <= RESTART_MAX_SECONDS:
            raise codec.CodecError(f"a restart in {message.seconds} s")
        return ClubRestart(message.seconds, _text(message.message),
                           message.by, message.at)
    if isinstance(message, ClubBusy):
        for figure in (message.players, message.cpu_share, message.stalls,
                       message.longest_ms, message.window_seconds, message.strangers,
                       message.stalls_cpu_share):
            _figure(figure)
        return message
    raise codec.CodecError(f"a {type(message).__name__} is not the club's news")


class NewsOnBus:
    """This worker's end of the club's news: what it tells, and what it does with what
    the others tell."""

    def __init__(self, link: WorkerBus, restart: RestartCountdown, db: Database,
                 load: LoadWatch, strangers: Callable[[], int],
                 stopping: Callable[[], bool]) -> None:
        """`restart`: the server's countdown; `db` lists the operators' alarms; `load`
        is this worker's busy alarm, `strangers()` its connections not playing;
        `stopping()`: the server is stopping (a countdown is no news any more)."""
        self.link = link
        self.restart = restart
        self.db = db
        self.load = load
        self.strangers = strangers
        self.stopping = stopping
        self._lobby: Lobby | None = None
        self._busy_told_at: float | None = None
        self._alarms_end: dict[str, asyncio.TimerHandle] = {}
        """Each other worker's busy alarm listed here: when it is dropped unless renewed."""

    def publish(self, news: ClubNews) -> None:
        """For every other worker (written in order with what this worker sends)."""
        self.link.send(NEWS_STREAM, news)

    def restart_told(self, seconds: int | None, message: str, by: str) -> None:
        """An operator here started a countdown of `seconds` (None: called it off)."""
        self.publish(ClubRestart(seconds, message, by, time.time()))

    async def start(self, lobby: Lobby) -> None:
        """The news written from now on reaches `lobby` and the server's parts."""
        self._lobby = lobby
        recent = await self.link.bus.xrevrange(NEWS_STREAM, count=RECENT_NEWS)
        last = recent[0][0].decode("ascii") if recent else "0-0"
        self._join_countdown(recent)
        self.link.hear(NEWS_STREAM, self._heard, last, NEWS_STREAM_MAX)

    def _join_countdown(self, recent: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """A restart countdown under way when this worker starts (it was restarted, or
        added, in the middle of one) goes on here too: the last countdown news of
        `recent` (newest first), if it was not called off and has not ended."""
        for _, fields in recent:
            try:
                news = checked_news(codec.decode(fields.get(b"m", b"")))
            except codec.CodecError:
                continue
            if isinstance(news, ClubRestart):
                if news.seconds is not None and news.seconds > time.time() - news.at:
                    self._restart(news)
                return

    def _heard(self, message: Any, sender: str) -> None:
        if sender == self.link.worker:
            return
        news = checked_news(message)
        if isinstance(news, ClubRestart):
            self._restart(news)
        elif isinstance(news, ClubBusy):
            self._busy_elsewhere(news, sender)
        elif self._lobby is not None:
            self._lobby.from_peers(news)

    def _restart(self, news: ClubRestart) -> None:
        countdown = self.restart
        if self.stopping():
            return
        if news.seconds is None:
            if countdown.running and countdown.by:  # an operator's, not the system's
                countdown.cancel(news.by)
            return
        left = news.seconds - max(0.0, time.time() - news.at)
        countdown.start(min(float(news.seconds), max(0.0, left)), news.message, news.by)

    # --- the busy alarm ------------------------------------------------------------------

    async def run(self) -> None:
        """Tell the others of this worker's busy alarm, until cancelled."""
        while True:
            self.tell_busy(time.monotonic())
            await asyncio.sleep(BUSY_CHECK_SECONDS)

    def tell_busy(self, now: float) -> None:
        """This worker's alarm, if it started, goes on (renewed), or ended."""
        told = self._busy_told_at
        if self.load.busy and (told is None or now - told >= BUSY_RENEW_SECONDS):
            facts = self.load.figures()
            self.publish(ClubBusy(True, facts.players, facts.cpu_share, facts.stalls,
                                  facts.longest_ms, facts.window_seconds, self.strangers(),
                                  facts.stalls_cpu_share))
            self._busy_told_at = now
        elif not self.load.busy and told is not None:
            self.publish(ClubBusy(False, 0, 0.0, 0, 0.0, 0.0, 0, 0.0))
            self._busy_told_at = None

    def _busy_elsewhere(self, news: ClubBusy, worker: str) -> None:
        topic = f"busy {worker}"
        ending = self._alarms_end.pop(worker, None)
        if ending is not None:
            ending.cancel()
        if not news.busy:
            self.db.clear_alarm(topic)
            return
        facts = LoadFacts(players=news.players, cpu_share=news.cpu_share,
                          stalls=news.stalls, longest_ms=news.longest_ms,
                          stall_ms=LoadWatch.STALL * 1000,
                          window_seconds=news.window_seconds, busy=True,
                          stalls_cpu_share=news.stalls_cpu_share)
        advice = busy_advice(facts, news.strangers)
        self.db.alarm(topic, Busy(facts, news.strangers, advice, worker))
        self._alarms_end[worker] = asyncio.get_running_loop().call_later(
            BUSY_TTL_SECONDS, self.db.clear_alarm, topic)

    def close(self) -> None:
        for ending in self._alarms_end.values():
            ending.cancel()
        self._alarms_end.clear()
