"""The scripted SSH player's screen (tools/probe.py) reads as pyte shows it."""

from __future__ import annotations

from tools.probe import ScreenClient


def test_the_screen_drawn_again_by_changed_lines_matches_pyte() -> None:
    client = ScreenClient(None, width=20, height=4)  # type: ignore[arg-type]  # no connection
    frames = [
        b"\x1b[2J\x1b[Hhello\r\nworld",
        b"\x1b[2;1Hw\xe4\xb8\xadrld \xe2\x96\xb6",  # a wide character, a narrow symbol
        b"\x1b[4;1Hlast line\r\nscrolled",  # scrolls the whole screen up
        b"\x1b[1;3H\x1b[K",  # the end of the first line erased
    ]
    for frame in frames:
        client._unparsed.append(frame)
        assert client.text() == "\n".join(line.rstrip() for line in client.screen.display)
    client.screen.resize(6, 30)
    client._unparsed.append(b"\x1b[6;1Hbottom")
    assert client.text() == "\n".join(line.rstrip() for line in client.screen.display)
    assert client.row(-1) == client.screen.display[-1]
