"""Members and their keys, as the operators and the players themselves manage them.

A member is a name kept in the accounts table with the SSH keys that may log in under
it. A player sees and removes their own keys (`k` in the lobby, `AccountKeys` below);
an operator lists every member, takes a key from one, or renames one (the dashboard,
`dashboard.py`). A key is never added here: only by logging in with it (`linking.py`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from moon_tui.services import AccountRefusal, AccountRefused, KeyFacts, LinkCode, MemberFacts

from .identity import Player, name_fault
from .link_codes import LinkCodes, grouped
from .store import Database


def _key_kind(public_key: str) -> str:
    return public_key.split(" ", 1)[0] if public_key else "?"


def _key_facts(row: tuple[object, ...], current: str | None = None) -> KeyFacts:
    print_, public_key, comment, added, last_used = row
    return KeyFacts(str(print_), _key_kind(str(public_key)), str(comment), float(str(added)),
                    None if last_used is None else float(str(last_used)),
                    current=print_ == current)


_KEY_COLUMNS = "fingerprint, public_key, comment, added, last_used"


class Members:
    """The accounts and their keys, read and changed on the database's writer thread."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def keys_of(self, name: str, current: str | None = None) -> list[KeyFacts]:
        """`name`'s keys, oldest first; `current` marks the key of this session."""

        def query() -> list[KeyFacts]:
            rows = self._db.connection().execute(
                f"SELECT {_KEY_COLUMNS} FROM account_keys WHERE name = ? ORDER BY added",
                (name,)).fetchall()
            return [_key_facts(row, current) for row in rows]

        return await self._db.run(query)

    async def all(self, limit: int = 2000) -> list[MemberFacts]:
        """Every member with their keys, the latest seen first."""

        def query() -> list[MemberFacts]:
            db = self._db.connection()
            accounts = db.execute(
                "SELECT name, created, last_seen FROM accounts ORDER BY last_seen DESC"
                " LIMIT ?", (limit,)).fetchall()
            keys: dict[str, list[KeyFacts]] = {}
            for row in db.execute(f"SELECT name, {_KEY_COLUMNS} FROM account_keys"
                                  " ORDER BY added"):
                keys.setdefault(str(row[0]), []).append(_key_facts(row[1:]))
            return [MemberFacts(str(n), float(c), float(s), tuple(keys.get(str(n), ())))
                    for n, c, s in accounts]

        return await self._db.run(query)

    async def remove_key(self, name: str, fingerprint: str, *,
                         keep_one: bool) -> int:
        """Take `fingerprint` from `name`; how many keys `name` has left. With
        `keep_one`, the last key is never taken (a player's own removal: they would
        lock themselves out). `AccountRefused` when it cannot."""

        def remove() -> int:
            db = self._db.connection()
            with db:
                count = db.execute("SELECT COUNT(*) FROM account_keys WHERE name = ?",
                                   (name,)).fetchone()[0]
                found = db.execute("SELECT 1 FROM account_keys WHERE name = ? AND"
                                   " fingerprint = ?", (name, fingerprint)).fetchone()
                if found is None:
                    raise AccountRefused(AccountRefusal.NO_SUCH_KEY, name)
                if keep_one and count <= 1:
                    raise AccountRefused(AccountRefusal.ONLY_KEY, name)
                db.execute("DELETE FROM account_keys WHERE name = ? AND fingerprint = ?",
                           (name, fingerprint))
            return int(count) - 1

        return await self._db.run(remove)

    async def rename(self, old: str, new: str) -> None:
        """`old` becomes `new`: its keys, addresses and bans follow (game records keep
        the names that played them). `AccountRefused` when it cannot."""
        fault = name_fault(new)
        if fault is not None:
            raise AccountRefused(fault, new)

        def rename() -> None:
            db = self._db.connection()
            try:
                with db:
                    if db.execute("SELECT 1 FROM accounts WHERE name = ?",
                                  (old,)).fetchone() is None:
                        raise AccountRefused(AccountRefusal.NO_SUCH_MEMBER, old)
                    db.execute("UPDATE accounts SET name = ? WHERE name = ?", (new, old))
                    db.execute("UPDATE account_keys SET name = ? WHERE name = ?", (new, old))
                    db.execute("UPDATE OR REPLACE seen_addresses SET name = ? WHERE name = ?",
                               (new, old))
                    db.execute("UPDATE bans SET name = ? WHERE name = ?", (new, old))
                    db.execute("UPDATE OR REPLACE bans SET value = ? WHERE kind = 'account'"
                               " AND value = ?", (new, old))
            except sqlite3.IntegrityError as error:
                raise AccountRefused(AccountRefusal.NAME_TAKEN, new) from error

        await self._db.run(rename)

    async def invitations(self, name: str) -> bool:
        """Whether `name` takes invitations to tables (on unless they turned them off)."""

        def query() -> bool:
            row = self._db.connection().execute(
                "SELECT invitations FROM accounts WHERE name = ?", (name,)).fetchone()
            return row is None or bool(row[0])

        return await self._db.run(query)

    async def set_invitations(self, name: str, on: bool) -> None:
        def write() -> None:
            db = self._db.connection()
            with db:
                db.execute("UPDATE accounts SET invitations = ? WHERE name = ?",
                           (int(on), name))

        await self._db.run(write)


class AccountKeys:
    """`moon_tui.services.KeyManager` over the accounts database, for one player."""

    def __init__(self, db: Database, player: Player, codes: LinkCodes, port: int, *,
                 configured: Mapping[str, str] | None = None) -> None:
        self._db = db
        self._members = Members(db)
        self._player = player
        self._codes = codes
        self._port = port
        self._configured = dict(configured or {})
        """An operator's keys named in the server's configuration: fingerprint -> type."""

    async def list_keys(self) -> list[KeyFacts]:
        """The keys in the database, then the configured ones it does not hold (an
        operator's key from the config is not always in the database: it was never
        shown before, and the dialog said "No key yet")."""
        if self._player.guest:
            return []
        current = self._player.fingerprint
        stored = await self._members.keys_of(self._player.name, current)
        held = {key.fingerprint for key in stored}
        return stored + [
            KeyFacts(print_, kind, "", 0.0, None, current=print_ == current, configured=True)
            for print_, kind in self._configured.items() if print_ not in held]

    async def remove_key(self, fingerprint: str) -> None:
        if self._player.guest:
            raise AccountRefused(AccountRefusal.GUEST)
        if fingerprint in self._configured:
            raise AccountRefused(AccountRefusal.CONFIGURED_KEY, self._player.name)
        await self._members.remove_key(self._player.name, fingerprint, keep_one=True)

    async def new_link_code(self) -> LinkCode:
        if self._player.guest:
            raise AccountRefused(AccountRefusal.GUEST)
        code = self._codes.issue(self._player.name)
        port = "" if self._port == 22 else f"-p {self._port} "
        return LinkCode(
            code=grouped(code),
            minutes=self._codes.limits.link_code_minutes,
            command=f"ssh {port}{self._player.name}@this-server",
        )
