"""The compiled double-dummy solver (`_dds.c`): the interface of `solver.PySolver`."""

from collections.abc import Callable, Sequence

def configure(tables: Sequence[tuple[object, ...]], timeout: type[Exception],
              table_limit: int) -> None: ...

class Solver:
    trump: int
    n: int
    side: tuple[bool, ...]
    nodes: int
    deadline: float | None
    clock: Callable[[], float]
    def __init__(self, trump: int, players: int, side: Sequence[bool]) -> None: ...
    def solve(self, hands: Sequence[int], leader: int, trick: Sequence[int] = (),
              guess: int | None = None) -> int: ...
    def move_values(self, hands: Sequence[int], leader: int,
                    trick: Sequence[int] = ()) -> dict[int, int]: ...
