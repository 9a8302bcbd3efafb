"""Benchmark: the lobby's wire format (`moon_tui/lobby/codec.py`), JSON against msgpack.

Prints, for the messages of a move (a player's `Act`, and a `TableUpdate` with a seat's
view in the middle of a hand), the microseconds to encode and to decode one, and its size,
with the stdlib's JSON (what the codec uses) and with msgpack (when it is installed:
`pip install msgpack`) over the same plain values, so the choice between them can be
checked again.

    .venv/bin/python bench/codec.py
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from moon_tui.lobby import codec
from moon_tui.lobby.messages import Act, SeatInfo, TableInfo, TableUpdate
from moon_tui.rules import GameState, Rules


def messages() -> dict[str, Any]:
    state = GameState.new_game(Rules.make(), random.Random(1))
    rng = random.Random(2)
    while state.hand_number < 2:
        if state.current_player() < 0:
            state.deal(rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    for _ in range(6):
        state.apply_action(rng.choice(state.legal_actions()))
    seats = (SeatInfo("ann"), SeatInfo("bob"), SeatInfo(None, "easy"))
    info = TableInfo("t1", "Friday", "ann", Rules.make(), seats, "playing", False, True,
                     ("cy",), 30)
    return {"Act": Act("t1", state.legal_actions()[0]),
            "TableUpdate": TableUpdate(info, 0, state.view(0), 40, 12.5, None, (seats,) * 3)}


def per_call(work: Callable[[], object], seconds: float = 0.5) -> float:
    """Microseconds per call of `work`, over about `seconds`."""
    count, began = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        for _ in range(50):
            work()
        count += 50
    return elapsed / count * 1e6


def main() -> None:
    dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
    formats: dict[str, tuple[Callable[[Any], bytes], Callable[[bytes], Any]]] = {
        "json": (lambda plain: dumps(plain).encode(), lambda data: json.loads(data)),
    }
    try:
        import msgpack  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        print("msgpack is not installed: JSON only")
    else:
        formats["msgpack"] = (msgpack.packb, msgpack.unpackb)
    for name, message in messages().items():
        plain = codec.to_plain(message)
        walk_out = per_call(lambda: codec.to_plain(message))  # noqa: B023 (used at once)
        walk_in = per_call(lambda: codec.from_plain(plain))  # noqa: B023
        print(f"{name}: walking the values {walk_out:.1f} us out, {walk_in:.1f} us in")
        for kind, (pack, unpack) in formats.items():
            data = pack(plain)
            assert codec.from_plain(unpack(data)) == message
            out = per_call(lambda: pack(plain))  # noqa: B023
            back = per_call(lambda: unpack(data))  # noqa: B023
            print(f"  {kind:8} {len(data):5} bytes  bytes out {out:6.1f} us  in {back:6.1f} us"
                  f"  whole round trip {walk_out + out + back + walk_in:6.1f} us")


if __name__ == "__main__":
    main()
