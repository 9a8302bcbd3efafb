"""A worker's lobby among peers: the other workers' tables listed and reached through
their links, who is online there, their lobby chat, and this lobby's own share."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace

from moon_tui.lobby import (
    AddBot,
    Ban,
    Broadcast,
    ChatPosted,
    CreateTable,
    Event,
    JoinByCode,
    JoinSeat,
    Kick,
    Lobby,
    MemoryRecordStore,
    PlayerHandle,
    Refusal,
    Rejected,
    SendChat,
)
from moon_tui.lobby.internal import (
    Acked,
    Attach,
    BusBack,
    ClubShare,
    Detach,
    FromMember,
    FromPeers,
    PeerBroadcast,
    PeerChat,
    PeerInvitations,
    PeerInvite,
    PeerKick,
    PeerNews,
    PeerNotices,
    TableOutput,
    ToMember,
)
from moon_tui.lobby.journal import JournalEntry, MemoryJournal, NotOwner
from moon_tui.lobby.links import InProcessLink, TableLink
from moon_tui.lobby.messages import (
    ChatLine,
    Disconnected,
    Invite,
    Notice,
    SeatInfo,
    TableInfo,
    TableUpdate,
)
from moon_tui.lobby.notices import Ending, Tell
from tests.test_lobby import FAST
from tests.test_lobby_codec import a_real_update
from tools.probe import eventually


async def heard(handle: PlayerHandle, wanted: Callable[[Event], bool]) -> None:
    """The handle's events until one is `wanted`."""
    async with asyncio.timeout(10):
        while not wanted(await handle.next_event()):
            pass


class Recorded:
    """The peers, as a test sees them: what the lobby told them, and the links it made."""

    def __init__(self) -> None:
        self.told: list[tuple[str, object]] = []
        self.links: dict[str, InProcessLink] = {}
        self.into: list[object] = []
        self.catching_up: Callable[[], None] = lambda: None
        """What reaches this lobby while it waits for the other workers' shares."""

    def arrived(self, name: str) -> None:
        self.told.append(("arrived", name))

    def left(self, name: str) -> None:
        self.told.append(("left", name))

    def chat(self, posted: ChatPosted) -> None:
        self.told.append(("chat", posted.line.text))

    def news(self, news: PeerNews) -> None:
        self.told.append(("news", news))

    def remote_link(self, table_id: str, receiver: Callable[[TableOutput], None]
                    ) -> TableLink:
        link = self.links[table_id] = InProcessLink(table_id, receiver)
        link.open(self.into.append)
        return link

    async def caught_up(self) -> None:
        self.told.append(("caught up", ""))
        self.catching_up()


async def test_the_other_workers_tables_and_people_are_listed_and_reached() -> None:
    peers = Recorded()
    theirs = replace(a_real_update().table, table_id="far1", owner="olga",
                     status="waiting", invite_code="ABCDEF")
    async with Lobby(FAST, peers=peers) as lobby:
        ann = await lobby.connect("ann")
        assert peers.told == [("arrived", "ann")]
        lobby.from_peers(FromPeers((ClubShare((theirs,), ("olga", "bob"), ("olga",)),)))
        await eventually(lambda: lobby.tables() == (theirs,), "their table listed")
        assert lobby.online() == ("ann", "bob", "olga") and lobby.serves("ann")
        assert not lobby.serves("bob")
        assert lobby.shared() == ClubShare((), ("ann",), ())  # only what runs here

        # ann's command goes to their table through its link; its answer comes back.
        ann.send(JoinSeat("far1", 1))
        await eventually(lambda: bool(peers.into), "the command reached the link")
        [command] = peers.into
        assert isinstance(command, FromMember) and command.command == JoinSeat("far1", 1)
        assert ann.pending == 1
        update = TableUpdate(theirs, 1, None, 1)
        peers.links["far1"].to_lobby(ToMember("ann", update))
        peers.links["far1"].to_lobby(Acked(command.command_id))
        assert ann.pending == 0
        await heard(ann, lambda e: e == update)

        # The lobby chat goes to the peers, and theirs comes to everyone here.
        ann.send(SendChat("hi all"))
        line = ChatPosted(ChatLine("bob", "hello from w1", None, 1.0))
        lobby.from_peers(PeerChat(line))
        await heard(ann, lambda e: e == line)
        assert ("chat", "hi all") in peers.told

        # Their table closed: unlisted, its link shut; a command that was on its way
        # counts no more (its acknowledgement will not come).
        ann.send(JoinSeat("far1", 2))
        await eventually(lambda: len(peers.into) == 2, "a second command sent")
        assert ann.pending == 1
        lobby.from_peers(FromPeers((ClubShare((), ("bob",), ()),)))
        await eventually(lambda: lobby.tables() == (), "their table unlisted")
        assert ann.pending == 0
        assert lobby.online() == ("ann", "bob")
        await ann.close()
        await eventually(lambda: ("left", "ann") in peers.told, "ann left")


async def sitting_down_far_away(lobby: Lobby, peers: Recorded
                                ) -> tuple[PlayerHandle, TableInfo]:
    """ann connected here, taking a seat at olga's table, which another worker runs and
    whose latest share does not list her yet: her command is on its way there."""
    theirs = replace(a_real_update().table, table_id="far1", owner="olga",
                     status="waiting", invite_code=None)
    ann = await lobby.connect("ann")
    lobby.from_peers(FromPeers((ClubShare((theirs,), ("olga",), ()),)))
    await eventually(lambda: lobby.tables() == (theirs,), "their table listed")
    ann.send(JoinSeat("far1", 1))
    await eventually(lambda: bool(peers.into), "the command reached the link")
    return ann, theirs


async def test_a_bus_back_empty_reaches_a_table_joined_before_its_share_came() -> None:
    # ann sat down at a table of another worker, and the bus restarted empty before that
    # worker's next share listed her there: her tables were asked for her view afresh
    # from the listing alone, so hers never was, and her game waited for good for the
    # view the bus had lost (test_a_game_across_two_workers_goes_on_after_the_bus_
    # restarts_empty, 1 run in 3).
    peers = Recorded()
    async with Lobby(FAST, peers=peers) as lobby:
        ann, _ = await sitting_down_far_away(lobby, peers)
        [command] = peers.into
        assert isinstance(command, FromMember)
        peers.links["far1"].to_lobby(Acked(command.command_id))
        assert "ann" not in {seat.name for seat in lobby.tables()[0].seats}  # not yet

        lobby.from_peers(BusBack(("ann",)))
        await eventually(lambda: Attach("ann") in peers.into, "her table asked afresh")
        await ann.close()


async def test_an_operator_reaches_the_people_of_the_other_workers_and_theirs_reach_here(
) -> None:
    peers = Recorded()
    async with Lobby(FAST, peers=peers) as lobby:
        olga = await lobby.connect("olga", operator=True)
        ann = await lobby.connect("ann")
        lobby.from_peers(FromPeers((ClubShare((), ("bob",), ()),)))
        await eventually(lambda: "bob" in lobby.online(), "bob online on another worker")
        # Made here: for everyone here, and news for the others. bob is served there: his
        # kick is news; a ban is news unless made for someone here.
        olga.send(Broadcast("tea\nat 8", 10))
        olga.send(Kick("bob", "rude", 5))
        olga.send(Ban("carl", "cheat"))
        olga.send(Kick("dora", "rude"))  # nowhere
        await heard(ann, lambda e: isinstance(e, Notice) and e.code is Tell.BROADCAST)
        await heard(olga, lambda e: isinstance(e, Notice) and e.code is Tell.KICKED)
        await heard(olga, lambda e: isinstance(e, Notice) and e.code is Tell.BANNED)
        [said, board, kick, ban] = [news for kind, news in peers.told if kind == "news"]
        assert said == PeerBroadcast("tea at 8", "olga")
        assert isinstance(board, PeerNotices) and board.board is not None
        assert (board.board.text, board.board.by, board.motd) == ("tea at 8", "olga", None)
        assert (kick, ban) == (PeerKick("bob", False, "olga", "rude", 5),
                               PeerKick("carl", True, "olga", "cheat", 0.0))

        # Made there: a broadcast, ann's invitations off then on (the invitation between
        # them is not told), an invitation, then a kick of ann.
        lobby.from_peers(PeerBroadcast("from w1", "otto"))
        await heard(ann, lambda e: isinstance(e, Notice) and e.params.get("text") == "from w1")
        lobby.from_peers(PeerNotices(None, "from w1"))  # `unsay`, then `motd from w1`
        await eventually(lambda: lobby.motd == "from w1", "their message of the day")
        lobby.from_peers(PeerInvitations("ann", False))
        lobby.from_peers(PeerInvite("ann", "bob", "first", "far1", "ABCDEF"))
        lobby.from_peers(PeerInvitations("ann", True))
        lobby.from_peers(PeerInvite("ann", "bob", "second", "far1", "ABCDEF"))
        async with asyncio.timeout(10):
            while not (isinstance(event := await ann.next_event(), Notice)
                       and event.code is Tell.INVITED):
                pass
        assert event.params == {"by": "bob", "table": "second", "table_id": "far1",
                                "code": "ABCDEF"}
        # An invitation to bob, served there, is news; once he turned invitations off
        # there, refused here.
        olga.send(CreateTable("olga's"))
        await eventually(lambda: len(lobby.tables()) == 1, "olga's table")
        [table] = lobby.tables()
        olga.send(Invite(table.table_id, "bob"))
        await eventually(lambda: len([k for k, _ in peers.told if k == "news"]) == 5,
                         "the invitation")
        assert peers.told[-1] == ("news", PeerInvite("bob", "olga", "olga's", table.table_id,
                                                     table.invite_code or ""))
        lobby.from_peers(PeerInvitations("bob", False))
        olga.send(Invite(table.table_id, "bob"))
        await heard(olga, lambda e: isinstance(e, Rejected)
                    and e.code is Refusal.NO_INVITATIONS)
        lobby.from_peers(PeerKick("ann", False, "otto", "rude", 0.0))
        await heard(ann, lambda e: e == Disconnected(Ending.KICKED, {"by": "otto",
                                                                    "reason": "rude"}))
        assert not lobby.serves("ann")


class MovedAway(MemoryJournal):
    """A journal that, once `moved`, refuses every write: another worker owns the table."""

    moved = False

    async def write(self, entries: Sequence[JournalEntry],
                    then: Callable[[], object] | None = None) -> None:
        if self.moved:
            raise NotOwner("another worker owns it now")
        await super().write(entries, then)


async def test_a_table_another_worker_took_over_stops_here_telling_and_saving_nothing(
) -> None:
    journal, store = MovedAway(), MemoryRecordStore()
    async with Lobby(FAST, store, journal=journal) as lobby:
        ann = await lobby.connect("ann")
        ann.send(CreateTable("mine"))
        await eventually(lambda: len(lobby.tables()) == 1, "the table opened")
        [table] = lobby.tables()
        await heard(ann, lambda e: isinstance(e, TableUpdate))
        saved = dict(journal.tables)
        journal.moved = True
        ann.send(AddBot(table.table_id, 1, "easy"))
        await eventually(lambda: lobby.tables() == (), "the table stopped here")
        assert journal.tables == saved and not store.records  # nothing written, or saved
        while ann.has_events:  # and nobody was told of the computer it did not write
            event = await ann.next_event()
            assert not (isinstance(event, TableUpdate) and event.table.seats[1].name)


async def test_a_code_of_a_table_opened_on_another_worker_a_moment_ago_is_found() -> None:
    # Before, a code typed before the other worker's next share was read here was
    # refused: "no table has the invite code", though the friend typed it right.
    peers = Recorded()
    theirs = replace(a_real_update().table, table_id="far1", owner="olga",
                     status="waiting", invite_code="ABCDEF")
    async with Lobby(FAST, peers=peers) as lobby:
        ann = await lobby.connect("ann")
        peers.catching_up = lambda: lobby.from_peers(
            FromPeers((ClubShare((theirs,), ("olga",), ()),)))
        ann.send(JoinByCode("abcdef"))
        await eventually(lambda: bool(peers.into), "the code's command sent to far1")
        [command] = peers.into
        assert isinstance(command, FromMember) and command.command == JoinByCode("abcdef")
        assert ("caught up", "") in peers.told

        # A code no worker knows is refused once they have caught up.
        peers.catching_up = lambda: None
        ann.send(JoinByCode("nope12"))
        await heard(ann, lambda e: isinstance(e, Rejected)
                    and e.code is Refusal.NO_SUCH_CODE)
        assert peers.told.count(("caught up", "")) == 2
        await ann.close()


async def test_one_back_before_the_share_that_seats_them_is_given_their_seat() -> None:
    # ann sat down at a table of another worker and her connection dropped a moment
    # later; she came back to this worker before that worker's next share listed her
    # there, so her table was not told she was back: she landed in the lobby and a
    # computer played her seat. The share that lists her now tells her table.
    peers = Recorded()
    async with Lobby(FAST, peers=peers) as lobby:
        ann, theirs = await sitting_down_far_away(lobby, peers)
        await ann.close()
        await eventually(lambda: Detach("ann") in peers.into, "her table told she left")
        ann = await lobby.connect("ann")
        assert Attach("ann") not in peers.into  # nothing lists her there yet

        seated = replace(theirs, seats=(SeatInfo("olga"), SeatInfo("ann", away=True)))
        lobby.from_peers(FromPeers((ClubShare((seated,), ("olga",), ()),)))
        await eventually(lambda: Attach("ann") in peers.into, "her table told she is back")

        # One who sat down from this connection is a member already: not told again.
        bob = await lobby.connect("bob")
        bob.send(JoinSeat("far1", 2))
        await eventually(lambda: len(peers.into) == 4, "bob's command reached the link")
        with_bob = replace(seated, seats=(*seated.seats, SeatInfo("bob")))
        lobby.from_peers(FromPeers((ClubShare((with_bob,), ("olga",), ()),)))
        await eventually(lambda: lobby.tables() == (with_bob,), "bob listed there")
        assert Attach("bob") not in peers.into
        await ann.close()
        await bob.close()
