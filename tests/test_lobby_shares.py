"""The other workers' shares read without a lobby (`lobby/shares.py`); the lobby acting on
them over a real bus is tests/test_lobby_peers.py's and tests/test_bus_club.py's."""

from moon_tui.lobby.internal import ClubShare
from moon_tui.lobby.messages import SeatInfo, TableInfo
from moon_tui.lobby.shares import read_shares
from moon_tui.rules import Rules


def info(table_id: str, code: str | None = None) -> TableInfo:
    return TableInfo(table_id, f"table {table_id}", "ann", Rules.make(),
                     (SeatInfo("ann"), SeatInfo(), SeatInfo()), "waiting", False, True, (),
                     None, invite_code=code)


def test_a_table_run_here_is_not_theirs() -> None:
    shares = (ClubShare((info("t1"), info("t2", "ABC123")), ("olga",), (), "w1.1"),)
    read = read_shares(shares, {"t1"}, {})
    assert set(read.theirs) == {"t2"} and read.runners == {"t2": "w1.1"}
    assert read.codes == {"ABC123": "t2"}


def test_a_table_first_seen_has_not_moved_and_one_run_from_elsewhere_has() -> None:
    first = read_shares((ClubShare((info("t1"),), (), (), "w1.1"),), (), {})
    assert not first.moved and not first.coming_back
    again = read_shares((ClubShare((info("t1"),), (), (), "w1.1"),), (), first.runners)
    assert not again.moved
    restarted = read_shares((ClubShare((info("t1"),), (), (), "w1.2"),), (), again.runners)
    assert restarted.moved == {"t1"}


def test_a_table_its_worker_stopped_running_is_coming_back_once() -> None:
    ran = read_shares((ClubShare((info("t1"),), (), (), "w1.1"),), (), {})
    stopped = read_shares((ClubShare((info("t1"),), (), (), ""),), (), ran.runners)
    assert stopped.coming_back == {"t1"} and not stopped.moved
    still = read_shares((ClubShare((info("t1"),), (), (), ""),), (), stopped.runners)
    assert not still.coming_back, "told once"
    taken_over = read_shares((ClubShare((info("t1"),), (), (), "w0.1"),), (), still.runners)
    assert taken_over.moved == {"t1"}


def test_who_is_online_elsewhere_is_every_workers_sorted() -> None:
    shares = (ClubShare((), ("zed", "olga"), ("olga",), "w1.1"),
              ClubShare((), ("bob",), (), "w2.1"))
    read = read_shares(shares, (), {})
    assert read.online == ("bob", "olga", "zed") and read.operators == {"olga"}
