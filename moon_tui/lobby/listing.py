"""The list of tables each player sees in the lobby, cheap to hand out to everyone.

Most players see the same list: the public tables, without invite codes. Only a player
involved with a table (seated, owning or watching it) sees it differently: a private table
only shows to them, and its players see the invite code. So the shared list is built once
per change, and a personal one only for the few players involved.
"""

from __future__ import annotations

from dataclasses import replace

from .messages import Place, TableInfo


def _involved(info: TableInfo) -> set[str]:
    """Who the table holds a place for: seated (away or not, or a seat a computer holds
    for them until they take it back), owning or watching."""
    names = {s.name for s in info.seats if s.name is not None}
    names |= {s.held_for for s in info.seats if s.held_for is not None}
    return names | {info.owner} | set(info.spectators)


class Listing:
    """Every table's latest entry, and for each player the tables they are involved with."""

    def __init__(self) -> None:
        self._full: dict[str, TableInfo] = {}
        self._public: dict[str, TableInfo] = {}
        self._involved: dict[str, set[str]] = {}
        self._by_name: dict[str, set[str]] = {}
        self._shared: tuple[TableInfo, ...] | None = None
        self.version = 0
        """Goes up with every change of the tables."""

    def update(self, info: TableInfo) -> frozenset[str]:
        """A table's new entry (with its invite code, as the table reports it); the names
        it holds a place for now and did not before. A table keeps its place in the list:
        it moved to the end at each change, and the rows of a player browsing the list
        jumped under the cursor."""
        table_id = info.table_id
        before = self._involved.get(table_id, set())
        self._forget_involved(table_id)
        self._full[table_id] = info
        self._public[table_id] = replace(info, invite_code=None) \
            if info.invite_code is not None else info
        names = _involved(info)
        self._involved[table_id] = names
        for name in names:
            self._by_name.setdefault(name, set()).add(table_id)
        self._shared = None
        self.version += 1
        return frozenset(names - before)

    def remove(self, table_id: str) -> None:
        if self._full.pop(table_id, None) is None:
            return
        self._public.pop(table_id)
        self._forget_involved(table_id)
        self._shared = None
        self.version += 1

    def _forget_involved(self, table_id: str) -> None:
        for name in self._involved.pop(table_id, ()):
            ids = self._by_name[name]
            ids.discard(table_id)
            if not ids:
                del self._by_name[name]

    def get(self, table_id: str) -> TableInfo | None:
        return self._full.get(table_id)

    def tables(self) -> tuple[TableInfo, ...]:
        return tuple(self._full.values())

    def names(self) -> frozenset[str]:
        """Everyone a table holds a place for: seated (away or not), owning or watching."""
        return frozenset(self._by_name)

    def tables_of(self, name: str) -> frozenset[str]:
        """The tables that hold a place for `name` (seated, owning or watching)."""
        return frozenset(self._by_name.get(name, ()))

    def holds(self, name: str) -> bool:
        """A table holds a place for `name` (see `names`)."""
        return name in self._by_name

    def place_of(self, name: str, *, reveal: bool = False) -> Place:
        """Where `name` is: seated at a table (a game they play first), watching one, or
        idle; a private table's id is not told (unless `reveal`: for the operators)."""
        watching: Place | None = None
        for table_id in self._by_name.get(name, ()):
            info = self._full[table_id]
            shown = None if info.private and not reveal else table_id

            if any(s.name == name for s in info.seats):
                return ("seated", shown)
            if name in info.spectators and watching is None:
                watching = ("watching", shown)
        return watching or ("idle", None)

    def for_player(self, name: str) -> tuple[TableInfo, ...]:
        """The tables `name` may see, in creation order, with codes only where they play."""
        mine = self._by_name.get(name)
        if not mine:
            if self._shared is None:
                self._shared = tuple(i for i in self._public.values() if not i.private)
            return self._shared
        shown = []
        for table_id, public in self._public.items():
            if table_id in mine:
                full = self._full[table_id]
                plays = name == full.owner or any(s.name == name for s in full.seats)
                shown.append(full if plays else public)
            elif not public.private:
                shown.append(public)
        return tuple(shown)
