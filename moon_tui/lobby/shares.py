"""What the club's other workers share, read: a pure function of their shares and what
this worker runs (`Lobby` then lists, links and attaches accordingly)."""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass

from .internal import ClubShare
from .messages import TableInfo


@dataclass(frozen=True, slots=True)
class SharesRead:
    theirs: dict[str, TableInfo]
    """The tables other workers list and this one does not run, by id (a table run here
    wins over an entry of a worker that ran it before)."""
    runners: dict[str, str]
    """Who runs each of `theirs` ("": nobody, for now)."""
    moved: frozenset[str]
    """Those run from somewhere new since the last read: their people here are attached
    anew."""
    coming_back: frozenset[str]
    """Those nobody runs now that somebody ran before (their worker stopped; another
    will take them over)."""
    codes: dict[str, str]
    """Their invite codes, to the table each opens."""
    online: tuple[str, ...]
    """Who is connected to the other workers, sorted."""
    operators: frozenset[str]
    """Which of them are operators."""


def read_shares(shares: tuple[ClubShare, ...], runs: Container[str],
                runners_before: Mapping[str, str]) -> SharesRead:
    """The other workers' `shares`, against the tables this worker `runs` and who ran
    theirs at the last read (`runners_before`)."""
    theirs = {t.table_id: t for share in shares for t in share.tables
              if t.table_id not in runs}
    runners = {t.table_id: share.runner for share in shares for t in share.tables
               if t.table_id not in runs}
    moved = frozenset(t for t, runner in runners.items()
                      if runner and runners_before.get(t, runner) != runner)
    coming_back = frozenset(t for t, runner in runners.items()
                            if not runner and runners_before.get(t) != runner)
    return SharesRead(
        theirs=theirs, runners=runners, moved=moved, coming_back=coming_back,
        codes={t.invite_code: t.table_id for t in theirs.values() if t.invite_code},
        online=tuple(sorted({n for share in shares for n in share.online})),
        operators=frozenset(n for share in shares for n in share.operators))
