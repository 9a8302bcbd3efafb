"""The table's link over the bus: a table on one worker, its members on any.

`moon_tui.lobby.links.TableLink` is how a table and the lobby's side reach each other
(two streams of messages, in the versioned wire format of `codec.py`). With several
workers, a table runs on the worker that owns it (`ownership.py`) and its members may be
served by others; `WorkerBus` carries the two streams between them over Valkey:

- **into a table**: the stream `moon:table:<id>:in`. A worker whose player commands a
  table elsewhere writes there (`RemoteTableLink.to_table`), each entry the message's
  codec bytes and the sender worker's name. The owner reads it (`OwnerLink`) and takes
  only what another worker may send: a member's command, attach, detach, close. A
  command's id is the sender's: the owner gives it one of its own (negative, apart from
  its lobby's) and sends the acknowledgement back to the sender under the sender's id.
- **out of a table**: each worker reads its own stream `moon:worker:<name>:in`. An event
  for a member (`ToMember`) goes to the worker that serves that member now (the key
  `moon:member:<name>` names it), and to no other: a seat's view reaches only the worker
  of that seat's player, a spectator's only that spectator's. No worker serving the
  name: the event is dropped (the member is away; `Resync` brings them up to date).
  A worker takes only `ToMember` and `Acked` from its stream.

Streams, not pub/sub: an entry waits in the stream while its reader is briefly away (a
reconnection to the bus), they keep their order, and each is bounded (`STREAM_MAX`).
Everything read is decoded by the codec, checked, and dropped with a log line if it is
not what that stream may carry: a worker treats the bus as input, not as trusted objects.
The lobby layer never imports valkey: this module is the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import re
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from valkey.exceptions import ValkeyError

from moon_tui.lobby import codec
from moon_tui.lobby.internal import (
    Acked,
    Attach,
    CloseNow,
    Detach,
    FromMember,
    TableMessage,
    TableOutput,
    ToMember,
)
from moon_tui.lobby.links import InProcessLink
from moon_tui.lobby.messages import ChatPosted, Disconnected
from moon_tui.lobby.notices import Ending
from moon_tui.lobby.refusals import Refusal, Refused
from moon_tui.lobby.restoring import shown

from .bus import ANSWER_SECONDS, still_running
from .ownership import lease_key

if TYPE_CHECKING:
    from valkey.asyncio import Valkey

log = logging.getLogger(__name__)

STREAM_MAX = 10_000
"""Entries a stream keeps at most (approximately): a reader that is gone for good does
not make the bus grow without end."""
READ_BLOCK_MS = 1_000
READ_COUNT = 256
UNSENT_MAX = 10_000
"""Entries that wait at most while the bus does not answer (`WorkerBus._send`)."""
BATCH_MAX = 1_000
"""Entries written in one round trip at most."""
STAMP_ORIGIN_MAX = 64
STAMP_DIGITS_MAX = 18
STAMP_ORIGINS_MAX = 256
"""Bounds on what an entry's stamp is read as (`WorkerBus._repeated`): a writer's name,
its number's digits, and the writers remembered per stream."""
RETRY_SECONDS = 1.0
"""How long a worker waits to read or write the bus again after it did not answer."""
WAKE = b"wake"
"""An entry a worker writes to its own stream to stop waiting and read its tables anew."""
WORKER_NAME = re.compile(r"w\d{1,3}")
CHAT_STREAM = "moon:club:chat"
"""The lobby chat's lines, from every worker, read by every worker (`bus_club.py`)."""
CHAT_STREAM_MAX = 1_000
INTO_A_TABLE = (FromMember, Attach, Detach, CloseNow)
"""What another worker may put into a table (its clocks and computers are its own)."""
OUT_TO_A_WORKER = (ToMember, Acked)


RESUME_SECONDS = 60.0
"""A table taken over reads what was written to it since the last command its earlier
owner took up (in a pass its journal kept), at most this long ago: the moves its players
on other workers made while it was between owners are played, nothing older."""
TAKEN_KEEP_SECONDS = 86_400
"""How long the bus keeps where a table's owner got to (`taken_key`) after its last
command: a table closed on a worker that died leaves that key behind for a day."""
STREAM_ID = re.compile(rb"(\d{1,15})-(\d{1,10})")


def taken_key(table_id: str) -> str:
    """Where the table's owner got to in its stream: the id of the last entry it took up
    in a pass its journal kept."""
    return f"moon:table:{table_id}:taken"


def resume_from(taken: bytes | None, now: float) -> str | None:
    """Where a table taken up at `now` reads its stream from: just past `taken` (the
    earlier owner's last command taken up), but never more than `RESUME_SECONDS` back;
    None when no owner got anywhere (a table new to the bus: nothing before is its own)."""
    found = STREAM_ID.fullmatch(taken or b"")
    if found is None:
        return None
    oldest = (int((now - RESUME_SECONDS) * 1000), 0)
    at = max((int(found[1]), int(found[2])), oldest)
    return f"{at[0]}-{at[1]}"


def _now_id() -> str:
    """A stream position just before now: an entry written in this very millisecond is
    read too (its id may be `<now>-0`, which a position of `<now>-0` passes over)."""
    return f"{int(time.time() * 1000) - 1}-0"


def _why(error: BaseException) -> str:
    """What went wrong with a call to the bus, for the log (a call that waited past its
    bound says nothing of itself)."""
    if isinstance(error, TimeoutError) and not str(error):
        return "no answer in time"
    return str(error)


def table_inbox(table_id: str) -> str:
    return f"moon:table:{table_id}:in"


def worker_inbox(worker: str) -> str:
    return f"moon:worker:{worker}:in"


def member_key(name: str) -> str:
    return f"moon:member:{name}"


_LEAVE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_LET_GO = """
local owner = redis.call('GET', KEYS[2])
if not owner or string.sub(owner, 1, #ARGV[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
"""Deletes a table's stream (KEYS[1]) unless another worker holds its lease (KEYS[2]):
the stream is the new owner's then, with what was sent to it meanwhile."""
_TO_MEMBER = """
local worker = redis.call('GET', KEYS[1])
if not worker then return 0 end
local fields = {'m', ARGV[1], 'from', ARGV[2], 'u', ARGV[7]}
if ARGV[3] ~= '' then fields[7] = 't'; fields[8] = ARGV[3] end
redis.call('XADD', ARGV[5] .. worker .. ARGV[6], 'MAXLEN', '~', ARGV[4], '*',
           unpack(fields))
return 1
"""
"""Adds a message (ARGV[1], from worker ARGV[2], about table ARGV[3]) to the stream of
the worker serving the name of KEYS[1], found as it is written, in the same round trip
(a lookup first cost one more, and a move across workers waited for it); nobody serving
the name: nothing is written. ARGV[4]: the stream's cap; ARGV[5] and ARGV[6]: what goes
before and after a worker's name in its stream's key; ARGV[7]: the entry's stamp."""
_INBOX_AROUND = worker_inbox("\0").split("\0")
Receiver = Callable[[TableOutput], None]
_Out = tuple[str, str, bytes | None, str | None, Callable[[], None] | None]
"""An entry to write: what to do (`add` to a stream, `member`: add to the stream of the
worker serving a name, `let go` of a table's stream, `serve` or `leave` a name), the key,
the bytes, the table they are about, and what to do if it is never written (a member's
command: they are told)."""


class Asking(Protocol):
    """Where a worker says that it is answering a player another worker serves, and when
    it has (`driver.ASKS`: its apps give way meanwhile, as they do to its own players'
    keys)."""

    def asked(self, asker: object, now: float) -> None: ...

    def answered(self, asker: object) -> None: ...


class OwnerLink(InProcessLink):
    """A table run here: its lobby's side is in this process, and other workers' members
    reach it through its stream on the bus."""

    def __init__(self, table_id: str, receiver: Receiver, bus: WorkerBus) -> None:
        super().__init__(table_id, receiver)
        self._bus = bus
        self._remote_ids = itertools.count(-1, -1)
        self.senders: dict[int, tuple[str, int, str]] = {}
        """Commands from other workers not yet acknowledged: our id -> (worker, theirs,
        the stream entry that brought it)."""
        self._acked: list[int] = []
        """Those the table took up in the pass it is in: acknowledged at its end (`told`)."""

    def open(self, inbox: Callable[[TableMessage], None]) -> None:
        super().open(inbox)
        self._bus.take_up(self)

    def shut(self) -> None:
        super().shut()
        self._bus.let_go(self.table_id)
        for worker, command_id, _ in self.senders.values():  # they wait in vain otherwise
            self._bus.send(worker_inbox(worker), Acked(command_id), self.table_id)
        self.senders.clear()
        self._acked.clear()

    def from_bus(self, message: TableMessage, sender: str, entry: str) -> None:
        """A message another worker sent this table (checked by the caller's decoding),
        brought by the stream's entry `entry`."""
        if isinstance(message, FromMember) and message.command_id:
            ours = next(self._remote_ids)
            self.senders[ours] = (sender, message.command_id, entry)
            self._bus.answering()
            message = FromMember(message.name, message.command, message.by_code, ours)
        self.to_table(message)

    def to_lobby(self, message: TableOutput) -> None:
        if isinstance(message, Acked) and message.command_id < 0:
            self._acked.append(message.command_id)
        elif isinstance(message, ToMember) and not self._bus.serves(message.name):
            self._bus.to_member(message, self.table_id)
        else:
            super().to_lobby(message)

    def told(self) -> None:
        """The commands the pass took up are acknowledged to their workers now, with
        what they brought about: acknowledged at once, an acknowledgement went out
        alone before the journal's write, and the views, written after it, waited for
        the bus's answer to that first write (6.5 ms, seen at 60 players)."""
        last = None
        for ours in self._acked:
            sender = self.senders.pop(ours, None)
            if sender is not None:
                worker, theirs, last = sender
                self._bus.send(worker_inbox(worker), Acked(theirs), self.table_id)
        self._acked.clear()
        if last is not None:  # a worker taking the table over goes on from there
            self._bus.taken(self.table_id, last)


class RemoteTableLink(InProcessLink):
    """A table run on another worker, seen from this one: commands go to its stream;
    what it sends this worker's members comes in through this worker's stream."""

    def __init__(self, table_id: str, receiver: Receiver, bus: WorkerBus) -> None:
        super().__init__(table_id, receiver)
        self._bus = bus

    def open(self, inbox: Callable[[TableMessage], None]) -> None:
        raise RuntimeError(f"table {self.table_id} runs on another worker")

    def shut(self) -> None:
        self._bus.forget_remote(self.table_id)

    def to_table(self, message: TableMessage) -> None:
        try:
            data = codec.encode(message)
        except codec.CodecError as exc:  # refused here, as `LoopbackLink` does
            if not isinstance(message, FromMember):
                raise
            log.info("a command that cannot be written refused: %s", shown(str(exc)))
            self._refuse(message, Refused(Refusal.NOT_A_COMMAND))
            return
        lost = None
        if isinstance(message, FromMember):
            def lost() -> None:  # the bus stayed away too long: they are told
                self._refuse(message, Refused(Refusal.BUS_AWAY, table_id=self.table_id))
        self._bus.send_bytes(table_inbox(self.table_id), data, on_lost=lost)


class WorkerBus:
    """One worker's end of the bus: its stream and its tables' streams, read by one task;
    what it sends, written in order by another."""

    def __init__(self, bus: Valkey, writer: Valkey, reader: Valkey, worker: str,
                 serves: Callable[[str], bool], asks: Asking | None = None) -> None:
        """`bus` for the club's other calls (`bus_club.py`), `writer` writes what is sent
        and `reader` blocks reading: connections of their own, each call on them bounded
        here (`bus.connect(..., bounded=False)`: a move across workers crosses both
        twice); `serves(name)` says whether this worker's lobby has `name` connected
        now; `asks` hears while a command of another worker's player waits for its
        answer to be written (None: nobody hears)."""
        self.bus = bus
        self.writer = writer
        self.asks = asks
        self._asked = False
        """Whether `asks` was told this worker answers another worker's player."""
        self.reader = reader
        self.worker = worker
        self.serves = serves
        self.owned: dict[str, OwnerLink] = {}
        self.remote: dict[str, RemoteTableLink] = {}
        self._outbox: asyncio.Queue[_Out] = asyncio.Queue()
        """What to write, in order (`_Out`)."""
        self.on_taken: Callable[[str], None] | None = None
        """Where a name this worker served and another now serves goes (None: nowhere)."""
        """Where the lobby chat's lines posted on other workers go (None: not read)."""
        self.heard: dict[str, Callable[[Any, str], None]] = {}
        """The club's other streams read (`hear`): where each one's entries go."""
        self._caps: dict[str, int] = {CHAT_STREAM: CHAT_STREAM_MAX}
        self._positions: dict[str, str] = {}
        self._resuming: dict[str, str] = {}
        """Tables just taken up: their streams are read from this position (the moment
        each was taken up) until `_resume` has looked up where an earlier owner got to."""
        self.waiting = 0
        """Entries that wait for the bus to answer again (0 while it does)."""
        self.lost = 0
        """Entries never written: the bus was away while `UNSENT_MAX` more came."""
        self.dropped = 0
        """Entries read and refused (not a message, or not one this stream may carry)."""
        self.repeats = 0
        """Entries read a second time (a batch written again after a cut) and dropped."""
        self.origin = f"{worker}.{os.getpid()}.{secrets.token_hex(3)}"
        """This process's end of the bus, in the stamp of each entry it writes."""
        self._numbers = itertools.count()
        self._stamps: dict[str, dict[bytes, int]] = {}
        """For each stream read, the last number read from each writer (`_repeated`)."""

    # --- links ------------------------------------------------------------------------

    def owner_link(self, table_id: str, receiver: Receiver) -> OwnerLink:
        return OwnerLink(table_id, receiver, self)

    def remote_link(self, table_id: str, receiver: Receiver) -> RemoteTableLink:
        link = self.remote[table_id] = RemoteTableLink(table_id, receiver, self)
        return link

    def forget_remote(self, table_id: str) -> None:
        """The link to a table on another worker was shut."""
        self.remote.pop(table_id, None)

    def take_up(self, link: OwnerLink) -> None:
        """A table runs here from now on: its stream is read from where an earlier owner
        got to (`resume_from`: a move sent while the table was between owners is played),
        or from this moment for a table new to the bus."""
        self.owned[link.table_id] = link
        self._positions[table_inbox(link.table_id)] = self._resuming[link.table_id] = \
            _now_id()
        self._outbox.put_nowait(("add", worker_inbox(self.worker), WAKE, None, None))

    def taken(self, table_id: str, entry: str) -> None:
        """The owner of `table_id` took up its stream's entries to `entry` in a pass its
        journal kept."""
        self._outbox.put_nowait(("taken", taken_key(table_id), entry.encode(), table_id,
                                 None))

    def hear(self, stream: str, on_entry: Callable[[Any, str], None], after: str,
             cap: int) -> None:
        """The entries of the club's `stream` (kept to about `cap`) written after the entry
        `after` go to `on_entry(message, sender)` from now on, decoded: it checks them
        (raising `codec.CodecError` drops one) and skips its own worker's."""
        self.heard[stream] = on_entry
        self._caps[stream] = cap
        self._positions[stream] = after
        self._outbox.put_nowait(("add", worker_inbox(self.worker), WAKE, None, None))

    def let_go(self, table_id: str) -> None:
        if self.owned.pop(table_id, None) is not None:
            key = table_inbox(table_id)
            self._positions.pop(key, None)
            self._resuming.pop(table_id, None)
            self._stamps.pop(key, None)
            self._outbox.put_nowait(("let go", key, None, table_id, None))

    # --- who is served where ------------------------------------------------------------

    async def serve(self, name: str) -> None:
        """`name` is connected to this worker now: their tables' events come here."""
        await self.bus.set(member_key(name), self.worker)

    async def leave(self, name: str) -> None:
        """`name` left this worker (if another took them meanwhile, it stays theirs)."""
        await self.bus.eval(_LEAVE, 1, member_key(name), self.worker)  # type: ignore[misc]

    def serve_soon(self, name: str, serving: bool) -> None:
        """`serve` (or `leave`) in order with what is sent: an attach written after it
        finds the name served here."""
        self._outbox.put_nowait(("serve" if serving else "leave", member_key(name), None,
                                 None, None))

    # --- sending ----------------------------------------------------------------------

    def send(self, stream: str, message: Any, table_id: str | None = None) -> None:
        self.send_bytes(stream, codec.encode(message), table_id)

    def send_bytes(self, stream: str, data: bytes, table_id: str | None = None, *,
                   on_lost: Callable[[], None] | None = None) -> None:
        """Queued, written in order by `run` (a link never blocks); `on_lost` is called
        if it never is (the bus stayed away while `UNSENT_MAX` more entries came)."""
        self._outbox.put_nowait(("add", stream, data, table_id, on_lost))

    def to_member(self, message: ToMember, table_id: str) -> None:
        """To the worker serving `message.name` now, found when it is sent."""
        self._outbox.put_nowait(("member", member_key(message.name), codec.encode(message),
                                 table_id, None))

    def chat(self, posted: ChatPosted) -> None:
        """A lobby chat line posted here, for the other workers."""
        self._outbox.put_nowait(("add", CHAT_STREAM, codec.encode(posted), None, None))

    async def _send(self) -> None:
        """Write what is queued, in order. While the bus does not answer (it restarts, or
        the network is cut) the entries wait and are written once it is back: a move a
        player made meanwhile is played then. At most `UNSENT_MAX` wait: past that the
        oldest are dropped, and a member whose command was among them is told (a view
        dropped is sent afresh when the bus comes back empty: `BusBack`)."""
        unsent: list[tuple[int, _Out]] = []
        """Each entry with its number, given once: a batch written again after a cut
        carries the same stamps, and readers drop what they already had (`_repeated`)."""
        while True:
            if not unsent:
                unsent.append((next(self._numbers), await self._outbox.get()))
            while not self._outbox.empty():
                unsent.append((next(self._numbers), self._outbox.get_nowait()))
            if len(unsent) > UNSENT_MAX:
                self._drop([entry for _, entry in unsent[:len(unsent) - UNSENT_MAX]])
                del unsent[:len(unsent) - UNSENT_MAX]
            batch = unsent[:BATCH_MAX]
            served: list[tuple[int, str]] = []
            try:
                replies = await self._write(batch, served)
            except (ValkeyError, OSError) as error:  # kept, and written once it is back
                still_running()
                self.waiting = len(unsent)
                log.warning("bus: %d entries wait to be written (%s)", len(unsent),
                            _why(error))
                await asyncio.sleep(RETRY_SECONDS)
                continue
            still_running()
            del unsent[:len(batch)]
            self.waiting = len(unsent)
            if not unsent:
                self._answered()
            self._take_over_names([(name, replies[at]) for at, name in served])

    def answering(self) -> None:
        """A command from another worker's player came: until what it brings about is
        written (`_answered`), this worker's apps give way (patch 9), so the answer does
        not wait behind them. Their player typed too; another worker serves them."""
        if self.asks is not None:
            self.asks.asked(self, time.monotonic())
            self._asked = True

    def _answered(self) -> None:
        """All written, and every command from another worker acknowledged (looked at
        only while `asks` was told otherwise: the owned tables are not walked for
        nothing after each write)."""
        if self._asked and self.asks is not None and self._outbox.empty() and \
                not any(link.senders for link in self.owned.values()):
            self.asks.answered(self)
            self._asked = False

    def _drop(self, entries: list[_Out]) -> None:
        self.lost += len(entries)
        log.error("bus: %d entries dropped, the bus away too long", len(entries))
        for *_, on_lost in entries:
            if on_lost is not None:
                on_lost()

    async def _write(self, batch: list[tuple[int, _Out]],
                     served: list[tuple[int, str]]) -> list[Any]:
        """One batch in one round trip; `served` gets where each `serve`'s reply is."""
        async with asyncio.timeout(ANSWER_SECONDS), \
                self.writer.pipeline(transaction=False) as pipe:
            for number, (kind, key, data, table_id, _) in batch:
                stamp = f"{self.origin}:{number}"
                if kind == "let go":
                    pipe.eval(_LET_GO, 2, key, lease_key(str(table_id)),
                              f"{self.worker}.")
                    continue
                if kind == "serve":
                    served.append((len(pipe), key.removeprefix("moon:member:")))
                    pipe.set(key, self.worker, get=True)
                    continue
                if kind == "leave":
                    pipe.eval(_LEAVE, 1, key, self.worker)
                    continue
                if kind == "taken":
                    pipe.set(key, data or b"", ex=TAKEN_KEEP_SECONDS)
                    continue
                assert data is not None
                if kind == "member":
                    pipe.eval(_TO_MEMBER, 1, key, data,  # type: ignore[arg-type]
                              self.worker, table_id or "", str(STREAM_MAX), *_INBOX_AROUND,
                              stamp)
                    continue
                fields = {"m": data, "from": self.worker.encode(), "u": stamp.encode()}
                if table_id is not None:
                    fields["t"] = table_id.encode()
                pipe.xadd(key, fields, approximate=True,
                          maxlen=self._caps.get(key, STREAM_MAX))
            return list(await pipe.execute())

    def _take_over_names(self, served: list[tuple[str, bytes | None]]) -> None:
        """Names this worker serves now that another served: that worker ends its
        session of each (`Ending.TAKEN_OVER`), as one worker does for a second login."""
        for name, before in served:
            worker = before.decode("ascii", "replace") if before is not None else ""
            if worker != self.worker and WORKER_NAME.fullmatch(worker):
                self.send(worker_inbox(worker),
                          ToMember(name, Disconnected(Ending.TAKEN_OVER)))

    # --- reading ----------------------------------------------------------------------

    async def run(self) -> None:
        """Read and send until cancelled."""
        sender = asyncio.create_task(self._send(), name=f"bus-send-{self.worker}")
        try:
            await self._read()
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender

    async def _read(self) -> None:
        # Not "$": that would mean "from this read on" at every read until an entry comes,
        # and pass over what is written between two reads.
        self._positions[worker_inbox(self.worker)] = _now_id()
        while True:
            try:
                await self._resume()
                streams = dict(self._positions)
                async with asyncio.timeout(READ_BLOCK_MS / 1000 + ANSWER_SECONDS):
                    answer = await self.reader.xread(streams, count=READ_COUNT,
                                                     block=READ_BLOCK_MS)
            except (ValkeyError, OSError) as error:  # the bus restarts: read again soon
                still_running()
                log.warning("bus: cannot read (%s): trying again in %g s", _why(error),
                            RETRY_SECONDS)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            still_running()
            for key, entries in answer or ():
                stream = key.decode() if isinstance(key, bytes) else str(key)
                for entry_id, fields in entries:
                    entry = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
                    self._positions[stream] = entry
                    self._take(stream, entry, fields)

    async def _resume(self) -> None:
        """Where each table just taken up reads from (`resume_from`); one new to the bus
        from the moment it was taken up, which is written as where its owner got to (so
        that a later owner goes on from there)."""
        resuming = list(self._resuming.items())
        if not resuming:
            return
        async with asyncio.timeout(ANSWER_SECONDS):  # (one round trip for them all)
            found = await self.reader.mget([taken_key(table_id) for table_id, _ in resuming])
        for (table_id, taken_up), taken in zip(resuming, found, strict=True):
            position = resume_from(taken, time.time())
            if position is None:
                position = taken_up
                self.taken(table_id, position)
            if self._resuming.pop(table_id, None) is not None:  # (unless let go meanwhile)
                self._positions[table_inbox(table_id)] = position

    def _take(self, stream: str, entry: str, fields: dict[bytes, bytes]) -> None:
        """One entry read: decoded, checked, and handed on, or dropped (logged)."""
        if self._repeated(stream, fields.get(b"u")):
            self.repeats += 1
            return
        if fields.get(b"m") == WAKE:
            return  # a table was taken up: the next read reads its stream too
        try:
            message = codec.decode(fields.get(b"m", b""))
            sender = fields.get(b"from", b"").decode("ascii")
            if not WORKER_NAME.fullmatch(sender):
                raise codec.CodecError(f"a sender that is not a worker: {shown(sender)}")
            if stream == worker_inbox(self.worker):
                self._for_this_worker(message, fields.get(b"t", b"").decode("utf-8"))
            elif stream in self.heard:
                self.heard[stream](message, sender)
            else:
                table_id = stream.removeprefix("moon:table:").removesuffix(":in")
                if not isinstance(message, INTO_A_TABLE):
                    raise codec.CodecError(f"a {type(message).__name__} cannot come "
                                           "from another worker")
                link = self.owned.get(table_id)
                if link is not None:
                    link.from_bus(message, sender, entry)
        except (codec.CodecError, UnicodeDecodeError) as error:
            self.dropped += 1
            log.warning("bus: an entry of %s dropped: %s", stream, shown(str(error)))

    def _repeated(self, stream: str, stamp: bytes | None) -> bool:
        """Whether an entry of `stream` stamped `stamp` ("<origin>:<number>") was read
        already: a writer's entries come in the order of their numbers, and a batch
        written again after a cut (its replies lost) comes with the numbers it had."""
        origin, _, number = (stamp or b"").rpartition(b":")
        if not 0 < len(origin) <= STAMP_ORIGIN_MAX or not number.isdigit() \
                or len(number) > STAMP_DIGITS_MAX:
            return False  # no stamp (or not one a worker writes): nothing to compare
        last = self._stamps.setdefault(stream, {})
        if int(number) <= last.get(origin, -1):
            return True
        if origin not in last and len(last) >= STAMP_ORIGINS_MAX:
            last.clear()  # writers long gone (each process is one): forgotten
        last[origin] = int(number)
        return False

    def _for_this_worker(self, message: Any, table_id: str) -> None:
        if not isinstance(message, OUT_TO_A_WORKER):
            raise codec.CodecError(f"a {type(message).__name__} is not for a worker")
        if not table_id and isinstance(message, ToMember) and \
                message.event == Disconnected(Ending.TAKEN_OVER):
            if self.on_taken is not None:  # they connected to another worker
                self.on_taken(message.name)
            return
        link = self.remote.get(table_id)
        if link is None:
            raise codec.CodecError(f"no table {shown(table_id)} here")
        if isinstance(message, ToMember) and not self.serves(message.name):
            return  # they left this worker meanwhile
        link.to_lobby(message)
