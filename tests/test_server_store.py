"""The accounts database on a real SQLite file: keys, bans, and the in-game key manager."""

from __future__ import annotations

import asyncio
import pickle
import threading
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest

from moon_tui.services import AccountRefusal, AccountRefused
from server.identity import Player, fingerprint, openssh_line
from server.link_codes import LinkCodes
from server.members import AccountKeys, Members
from server.store import Database
from tools.probe import new_key


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(tmp_path / "moon.sqlite3")
    await database.open()
    yield database
    await database.close()


async def test_a_name_is_claimed_once(db: Database) -> None:
    first, second = new_key(), new_key()
    assert await db.claim("ann", fingerprint(first), openssh_line(first))
    assert not await db.claim("ann", fingerprint(second), openssh_line(second))
    account = await db.account("ann")
    assert account is not None and account.fingerprints == (fingerprint(first),)
    assert await db.key_owner(fingerprint(first)) == "ann"


async def test_the_keys_dialog_gives_a_code_for_its_own_name(db: Database) -> None:
    first = new_key()
    await db.claim("ann", fingerprint(first), openssh_line(first))
    codes = LinkCodes()
    keys = AccountKeys(db, Player("ann", fingerprint=fingerprint(first)), codes, 2222)
    assert [k.fingerprint for k in await keys.list_keys()] == [fingerprint(first)]
    link = await keys.new_link_code()
    assert link.command == "ssh -p 2222 ann@this-server" and link.minutes == 10
    assert codes.pending("ann") and not codes.pending("bob")
    assert not codes.redeem("bob", link.code)
    assert codes.redeem("ann", link.code.lower())
    assert not codes.redeem("ann", link.code)  # once


async def test_a_key_is_never_moved_and_guests_have_no_keys(db: Database) -> None:
    ann, bob = new_key(), new_key()
    await db.claim("ann", fingerprint(ann), openssh_line(ann))
    await db.claim("bob", fingerprint(bob), openssh_line(bob))
    assert await db.add_key("bob", fingerprint(ann), openssh_line(ann)) == "ann"
    assert await db.key_owner(fingerprint(ann)) == "ann"
    laptop = new_key()
    assert await db.add_key("ann", fingerprint(laptop), openssh_line(laptop)) is None
    assert await db.key_owner(fingerprint(laptop)) == "ann"
    guest = AccountKeys(db, Player("guest-0001", guest=True), LinkCodes(), 2222)
    assert await guest.list_keys() == []
    with pytest.raises(AccountRefused) as refused:
        await guest.new_link_code()
    assert refused.value.why is AccountRefusal.GUEST


async def test_a_key_or_a_member_change_is_refused_with_a_code(db: Database) -> None:
    """The accounts refuse with a code and the name it is about: the interface words it
    (`ui/account_words.py`), and a refusal can cross a process (it pickles)."""
    ann, laptop = new_key(), new_key()
    await db.claim("ann", fingerprint(ann), openssh_line(ann))
    await db.claim("bob", fingerprint(laptop), openssh_line(laptop))
    members = Members(db)

    async def why(change: Awaitable[object]) -> tuple[AccountRefusal, str]:
        with pytest.raises(AccountRefused) as refused:
            await change
        return refused.value.why, refused.value.name

    own = AccountKeys(db, Player("ann", fingerprint=fingerprint(ann)), LinkCodes(), 2222,
                      configured={"SHA256:from-config": "ssh-ed25519"})
    assert await why(own.remove_key(fingerprint(ann))) == (AccountRefusal.ONLY_KEY, "ann")
    assert await why(own.remove_key("SHA256:from-config")) == (
        AccountRefusal.CONFIGURED_KEY, "ann")
    assert await why(members.remove_key("ann", fingerprint(laptop), keep_one=False)) == (
        AccountRefusal.NO_SUCH_KEY, "ann")
    assert await why(members.rename("ann", "Ann!")) == (AccountRefusal.NAME_INVALID, "Ann!")
    assert await why(members.rename("ann", "guest-12")) == (
        AccountRefusal.NAME_RESERVED, "guest-12")
    assert await why(members.rename("cy", "cyril")) == (AccountRefusal.NO_SUCH_MEMBER, "cy")
    assert await why(members.rename("ann", "bob")) == (AccountRefusal.NAME_TAKEN, "bob")
    assert (await db.account("ann")) is not None  # nothing changed by a refusal
    assert await members.remove_key("ann", fingerprint(ann), keep_one=False) == 0
    refusal = AccountRefused(AccountRefusal.NAME_TAKEN, "bob")
    copy = pickle.loads(pickle.dumps(refusal))
    assert (copy.why, copy.name) == (refusal.why, refusal.name)


async def test_bans_by_account_and_by_key(db: Database) -> None:
    assert await db.ban_reason("account", "ann") is None
    await db.ban("account", "ann", "rude")
    await db.ban("key", "SHA256:abc", "rude")
    assert await db.ban_reason("account", "ann") == "rude"
    assert await db.ban_reason("key", "SHA256:abc") == "rude"
    assert await db.ban_reason("key", "SHA256:other") is None


async def test_a_logins_checks_do_not_wait_for_the_database_thread(db: Database) -> None:
    key = new_key()
    await db.claim("ann", fingerprint(key), openssh_line(key))
    await db.ban("key", "SHA256:abc", "rude")
    # Keep the writer thread busy: the reads a login makes still answer, and they see
    # every write committed before them.
    release = threading.Event()
    busy = asyncio.get_running_loop().run_in_executor(db.executor, release.wait)
    try:
        account = await db.account("ann")
        assert account is not None and account.fingerprints == (fingerprint(key),)
        assert await db.ban_reason("key", "SHA256:abc") == "rude"
        assert await db.ban_reason("account", "ann") is None
        assert await db.key_owner(fingerprint(key)) == "ann"
    finally:
        release.set()
        await busy


async def test_last_seen_is_noted_without_waiting(db: Database) -> None:
    key = new_key()
    await db.claim("ann", fingerprint(key), openssh_line(key))
    before = await db.account("ann")
    assert before is not None
    db.clock = lambda: before.last_seen + 60
    db.touch_soon("ann")
    await db.ban("key", "SHA256:abc", "flush")  # after the touch on the same thread
    after = await db.account("ann")
    assert after is not None and after.last_seen == before.last_seen + 60

async def test_an_address_ban_ends_when_it_expires(db: Database) -> None:
    await db.ban("address", "192.0.2.7", "spam", until=1000.0)
    assert await db.ban_reason("address", "192.0.2.7", now=999.0) == "spam"
    assert await db.ban_reason("address", "192.0.2.7", now=1000.0) is None
    await db.ban("account", "ann", "rude")  # no expiry: for good
    assert await db.ban_reason("account", "ann", now=1e12) == "rude"


async def test_the_addresses_a_name_used_are_remembered(db: Database) -> None:
    db.note_address_soon("ann", "192.0.2.7")
    db.note_address_soon("ann", "198.51.100.1")
    db.note_address_soon("bea", "203.0.113.9")
    assert set(await db.addresses_since("ann", 0.0)) == {"192.0.2.7", "198.51.100.1"}
    assert await db.addresses_since("ann", time.time() + 60) == []


async def test_a_database_from_before_bans_could_expire_opens(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "moon.sqlite3"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE bans (kind TEXT NOT NULL, value TEXT NOT NULL,"
                    " reason TEXT NOT NULL, banned_at REAL NOT NULL,"
                    " PRIMARY KEY (kind, value))")
        old.execute("INSERT INTO bans VALUES ('account', 'ann', 'old', 0)")
    old.close()
    db = Database(path)
    await db.open()
    try:
        assert await db.ban_reason("account", "ann") == "old"
        await db.ban("address", "192.0.2.7", "new", until=time.time() + 60)
        assert await db.ban_reason("address", "192.0.2.7") == "new"
    finally:
        await db.close()


async def test_a_record_saved_again_is_kept_once(db: Database) -> None:
    """A table restored after a crash saves its finished game again: one row stays."""
    game = {"format": "moon/1", "seats": ["ann", "bob", "cy"], "hands": []}
    first = await db.save_record(game, finished=True)
    assert first > 0
    assert await db.save_record(dict(game), finished=True) == 0
    other = await db.save_record({**game, "seats": ["ann", "bob", "dee"]}, finished=True)
    assert other > first
    assert [(r.id, r.record["seats"][2]) for r in await db.records()] == \
        [(first, "cy"), (other, "dee")]


async def test_a_database_from_before_records_were_kept_once_opens(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "moon.sqlite3"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE records (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                    " saved_at REAL NOT NULL, finished INTEGER NOT NULL, record TEXT NOT NULL)")
        for _ in range(2):  # the old store could keep a record twice
            old.execute("INSERT INTO records (saved_at, finished, record)"
                        " VALUES (0, 1, '{\"seats\": [\"ann\"]}')")
    old.close()
    db = Database(path)
    await db.open()
    try:
        assert len(await db.records()) == 2
        assert await db.save_record({"seats": ["ann"]}, finished=True) > 0
        assert await db.save_record({"seats": ["ann"]}, finished=True) == 0
        assert len(await db.records()) == 3
    finally:
        await db.close()
