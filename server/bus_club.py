"""One club on every worker: what each worker's lobby shares with the others on the bus.

Each worker (`moon-server --workers N`) runs the tables opened on it; its lobby is given
a `ClubOnBus` as its peers (`moon_tui/lobby/peers.py`), which:

- **shares** this worker's part of the club: every `SHARE_SECONDS` the lobby's
  `ClubShare` (its own tables' entries, who is connected here, its operators) is written,
  in the wire format, to `moon:club:worker:<w>` with an expiry of `SHARE_TTL_MS`, renewed
  each time: a worker that dies leaves the list within that time. The worker's name is
  kept in the set `moon:club:workers`;
- **reads** the other workers' shares at the same pace, decodes and checks each (a share
  that is not a `ClubShare`, too big, or with names that cannot be players' is dropped and
  logged), and gives them to the lobby (`Lobby.from_peers`), which lists their tables
  beside its own and who is online there;
- carries the **lobby chat** through the stream `moon:club:chat` (read by `WorkerBus`'s
  reader as it comes; its last lines read at start, for whoever connects first), and
  the lobby's **news** for the other workers through the club's news (`bus_news.py`);
- says on the bus which names this worker serves (`moon:member:<name>`), in order with
  what it sends their tables, and makes the links of tables run elsewhere.

Nothing here is the truth: the journal is. A bus that restarts empty is filled again by
the next round of shares.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from moon_tui.lobby import codec
from moon_tui.lobby.chat import clean_text
from moon_tui.lobby.internal import (
    BusBack,
    ClubShare,
    FromPeers,
    PeerChat,
    PeerNews,
    TableOutput,
    TakenElsewhere,
)
from moon_tui.lobby.links import TableLink
from moon_tui.lobby.messages import ChatLine, ChatPosted
from moon_tui.lobby.restoring import shown

from .bus import still_running
from .bus_link import CHAT_STREAM, CHAT_STREAM_MAX, WORKER_NAME, WorkerBus

if TYPE_CHECKING:
    from moon_tui.lobby import Lobby

    from .bus_news import NewsOnBus

log = logging.getLogger(__name__)

SHARE_SECONDS = 0.5
"""How often a worker writes its share and reads the others' (a table opened on one
worker is listed on the others about this long after)."""
SHARE_TTL_MS = 5_000
"""How long a worker's share lasts unless written again: a dead worker's tables and
players leave the other workers' lists this long after its last write."""
ORPHANS_SECONDS = 30.0
"""How long the tables of a worker that died stay listed as coming back (another worker
takes each over once its lease lapsed: `ownership.py`), at most."""
WORKERS_KEY = "moon:club:workers"
TABLES_MAX = 10_000
"""The most tables one share may list, and the most names it may say are online."""
NAME_CHARS_MAX = 32


def share_key(worker: str) -> str:
    return f"moon:club:worker:{worker}"


def last_share_key(worker: str) -> str:
    """The same share, kept `ORPHANS_SECONDS`: a worker started after another died (its
    share expired) lists that one's tables as coming back all the same."""
    return f"moon:club:worker:{worker}:last"


def a_name(name: str) -> bool:
    """A name a player (or a table) could have: short, printable, one line."""
    return 0 < len(name) <= NAME_CHARS_MAX and name.isprintable()


def checked_share(data: bytes) -> ClubShare:
    """A share read from the bus, decoded and checked (`codec.CodecError` if it is not one
    this server could have written)."""
    share = codec.decode(data)
    if not isinstance(share, ClubShare):
        raise codec.CodecError(f"a {type(share).__name__} is not a worker's share")
    if len(share.tables) > TABLES_MAX or len(share.online) > TABLES_MAX:
        raise codec.CodecError("a share too big")
    names = [*share.online, *share.operators]
    for table in share.tables:
        names += [table.owner, *table.spectators,
                  *(seat.name for seat in table.seats if seat.name is not None)]
        if not a_name(table.table_id):
            raise codec.CodecError(f"a table id {shown(table.table_id)}")
    if not all(a_name(name) for name in names):
        raise codec.CodecError("a name that no player could have")
    return share


def checked_chat(posted: ChatPosted, chars_max: int) -> ChatPosted:
    """A lobby chat line from another worker, as this one would have let it through."""
    line = posted.line
    if line.table_id is not None or not a_name(line.sender):
        raise codec.CodecError("not a lobby chat line")
    return ChatPosted(ChatLine(line.sender, clean_text(line.text)[:chars_max], None, line.at))


class ClubOnBus:
    """This worker's lobby's peers (`moon_tui.lobby.peers.Peers`) over the bus."""

    def __init__(self, link: WorkerBus, chat_chars_max: int, runner: str,
                 news: NewsOnBus) -> None:
        """`runner`: this process's name in the club (`WorkerPlace.process`)."""
        self.link = link
        self.news_on_bus = news
        self.bus = link.bus
        self.worker = link.worker
        self.runner = runner
        self.chat_chars_max = chat_chars_max
        self.served: set[str] = set()
        self.dropped = 0
        """Shares and chat lines read and refused."""
        self._lobby: Lobby | None = None
        self._last: dict[str, bytes] = {}
        """The other workers' shares read last, as read."""
        self._shares: dict[str, ClubShare] = {}
        """The same, decoded and checked."""
        self._gone: dict[str, tuple[ClubShare, float]] = {}
        """The tables of workers that died, coming back until when (`_orphans`)."""
        self._given: list[ClubShare] = []
        """What the lobby was last given."""
        self._rounds = 0
        """Share rounds ended (`caught_up` waits on their count)."""
        self._round_ended: list[tuple[int, asyncio.Future[None]]] = []
        self._shared = False
        """A share was written (the next one finds it, unless the bus lost it)."""
        self._sent: tuple[ClubShare, bytes] | None = None
        """The last share and its encoding: encoded again only once it changed (~4 ms
        each half second at 150 players, in one piece; a steady club changes little)."""

    # --- the lobby's peers ---------------------------------------------------------------

    def arrived(self, name: str) -> None:
        self.served.add(name)
        self.link.serve_soon(name, True)

    def left(self, name: str) -> None:
        self.served.discard(name)
        self.link.serve_soon(name, False)

    def chat(self, posted: ChatPosted) -> None:
        self.link.chat(posted)

    def news(self, news: PeerNews) -> None:
        self.news_on_bus.publish(news)

    def remote_link(self, table_id: str, receiver: Callable[[TableOutput], None]
                    ) -> TableLink:
        return self.link.remote_link(table_id, receiver)

    # --- sharing -----------------------------------------------------------------------

    async def start(self, lobby: Lobby) -> None:
        """The lobby hears the chat from now on. The lines posted before, on every
        worker, it has read from the database the workers share (each worker keeps the
        lines posted on it there): read from the bus as well, they came twice."""
        self._lobby = lobby
        recent = await self.bus.xrevrange(CHAT_STREAM, count=1)
        last = recent[0][0].decode("ascii") if recent else "0-0"
        self.link.on_taken = self._taken
        self.link.hear(CHAT_STREAM, self._chat_heard, last, CHAT_STREAM_MAX)
        await self.news_on_bus.start(lobby)

    def _taken(self, name: str) -> None:
        self.served.discard(name)
        assert self._lobby is not None
        self._lobby.from_peers(TakenElsewhere(name))

    def _chat_heard(self, posted: object, sender: str) -> None:
        if not isinstance(posted, ChatPosted):
            raise codec.CodecError(f"a {type(posted).__name__} is not a chat line")
        if sender != self.worker:
            assert self._lobby is not None
            self._lobby.from_peers(PeerChat(checked_chat(posted, self.chat_chars_max)))

    async def caught_up(self) -> None:
        """Two rounds from now: the next one may have begun before another worker wrote
        what it shares now, the one after reads it."""
        waiter = asyncio.get_running_loop().create_future()
        self._round_ended.append((self._rounds + 2, waiter))
        await waiter

    async def run(self) -> None:
        """Share and read every `SHARE_SECONDS` until cancelled; a bus that does not
        answer is tried again at the next round."""
        while True:
            try:
                await self.share_round()
            except Exception as error:  # noqa: BLE001 - the bus is away: next round
                log.warning("cannot share the club on the bus: %s", error)
            still_running()
            self._rounds += 1
            due = [waiter for at, waiter in self._round_ended if at <= self._rounds]
            self._round_ended = [(at, w) for at, w in self._round_ended if at > self._rounds]
            for waiter in due:
                if not waiter.done():
                    waiter.set_result(None)
            await asyncio.sleep(SHARE_SECONDS)

    def _encoded(self, share: ClubShare) -> bytes:
        if self._sent is None or self._sent[0] != share:
            self._sent = share, codec.encode(share)
        return self._sent[1]

    async def share_round(self) -> None:
        lobby = self._lobby
        assert lobby is not None, "the club's sharing has not started"
        async with self.bus.pipeline(transaction=False) as pipe:
            share = self._encoded(replace(lobby.shared(), runner=self.runner))
            pipe.set(share_key(self.worker), share, px=SHARE_TTL_MS, get=True)
            pipe.set(last_share_key(self.worker), share, px=int(ORPHANS_SECONDS * 1000))
            pipe.sadd(WORKERS_KEY, self.worker)
            pipe.smembers(WORKERS_KEY)
            before, *_, members = await pipe.execute()
        first = not self._shared and not self._rounds
        restarted = before is None and self._shared
        if restarted:  # the bus restarted empty (or we were away)
            log.warning("bus: this worker's share was gone: its people are served again")
            for name in sorted(self.served):
                self.link.serve_soon(name, True)
            assert self._lobby is not None
            self._lobby.from_peers(BusBack(tuple(sorted(self.served))))
        self._shared = True
        workers = sorted(w for w in (m.decode("ascii", "replace") for m in members)
                         if WORKER_NAME.fullmatch(w) and w != self.worker)
        datas = await self.bus.mget([share_key(w) for w in workers]) if workers else []
        read = {w: d for w, d in zip(workers, datas, strict=True) if d is not None}
        if first:
            await self._gone_before_start([w for w in workers if w not in read])
        if restarted:  # the others' shares come back with their next round
            read = {**self._last, **read}
        live = []
        for worker, data in read.items():
            if self._last.get(worker) == data and worker in self._shares:
                live.append(self._shares[worker])
                continue
            self._shares.pop(worker, None)
            if self._last.get(worker) == data:
                continue  # dropped when it was first read
            try:
                self._shares[worker] = checked_share(data)
            except codec.CodecError as error:
                self.dropped += 1
                log.warning("bus: the share of %s dropped: %s", worker, shown(str(error)))
                continue
            live.append(self._shares[worker])
        self._last = read
        # Those coming back first: an entry of a live share wins over theirs.
        shares = [*self._orphans(read, time.monotonic()), *live]
        if shares != self._given:
            self._given = shares
            lobby.from_peers(FromPeers(tuple(shares)))

    async def _gone_before_start(self, workers: list[str]) -> None:
        """The tables of `workers` (listed in the club, no share now) that died shortly
        before this worker started: coming back, as if it had seen them go."""
        if not workers:
            return
        datas = await self.bus.mget([last_share_key(w) for w in workers])
        until = time.monotonic() + ORPHANS_SECONDS
        for worker, data in zip(workers, datas, strict=True):
            if data is None:
                continue
            try:
                tables = checked_share(data).tables
            except codec.CodecError as error:
                self.dropped += 1
                log.warning("bus: the last share of %s dropped: %s", worker, shown(str(error)))
                continue
            if tables:
                log.warning("bus: worker %s is gone: its %d tables are coming back",
                            worker, len(tables))
                self._gone[worker] = (ClubShare(tables, (), ()), until)

    def _orphans(self, read: dict[str, bytes], now: float) -> list[ClubShare]:
        """The tables of workers whose share expired (they died), listed as coming back
        (`ClubShare.runner` ""): a returning player still finds their place held and
        waits for their table there, until another worker takes it over and lists it, or
        for `ORPHANS_SECONDS` at most (a table that cannot be taken up)."""
        for worker in self._shares.keys() - read.keys():
            share = self._shares.pop(worker)
            if share.tables:
                log.warning("bus: worker %s is gone: its %d tables are coming back",
                            worker, len(share.tables))
                self._gone[worker] = (ClubShare(share.tables, (), ()), now + ORPHANS_SECONDS)
        listed = {t.table_id for w, share in self._shares.items() if w in read
                  for t in share.tables}
        kept = []
        for worker, (share, until) in list(self._gone.items()):
            tables = tuple(t for t in share.tables if t.table_id not in listed)
            if not tables or now >= until:
                del self._gone[worker]
                continue
            if tables != share.tables:
                share = ClubShare(tables, (), ())
                self._gone[worker] = (share, until)
            kept.append(share)
        return kept

    async def close(self) -> None:
        """This worker stops: its share and the names it served leave the bus."""
        self.news_on_bus.close()
        with contextlib.suppress(Exception):
            await self.bus.delete(share_key(self.worker), last_share_key(self.worker))
            for name in sorted(self.served):
                await self.link.leave(name)
        self.served.clear()
