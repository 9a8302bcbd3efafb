"""The lobby's list of tables (moon_tui/ui/rows.py), driven by keys and clicks."""

from __future__ import annotations

from textual.app import App, ComposeResult

from moon_tui.ui.rows import RowList

COLUMNS = (("Name", 8), ("Seats", 6))


class ListApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[str] = []

    def compose(self) -> ComposeResult:
        yield RowList(COLUMNS, id="rows")

    def on_mount(self) -> None:
        self.query_one(RowList).focus()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        self.chosen.append(event.key)


def rows(count: int) -> list[tuple[str, tuple[str, ...]]]:
    return [(f"t{i}", (f"table {i}", f"{i}/3")) for i in range(count)]


def screen_lines(app: App[None]) -> list[str]:
    widget = app.query_one(RowList)
    return [widget.render_line(y).text for y in range(widget.size.height)]


async def test_arrows_move_the_cursor_and_enter_or_a_click_selects() -> None:
    app = ListApp()
    async with app.run_test(size=(30, 6)) as pilot:
        listing = app.query_one(RowList)
        assert listing.selected is None
        await pilot.press("enter")
        assert app.chosen == []  # nothing to choose yet
        listing.set_rows(rows(3))
        await pilot.pause()
        assert screen_lines(app)[:2] == [" Name      Seats " + " " * 13,
                                         " table 0   0/3   " + " " * 13]
        await pilot.press("down", "down", "down")  # stops at the last row
        assert listing.selected == "t2"
        await pilot.press("enter")
        await pilot.click(RowList, offset=(2, 1))  # row t0: moves there
        assert listing.selected == "t0"
        await pilot.click(RowList, offset=(2, 1))  # the highlighted row: chosen
        await pilot.pause()
        assert app.chosen == ["t2", "t0"]


async def test_the_cursor_follows_its_row_and_the_view_scrolls_to_it() -> None:
    app = ListApp()
    async with app.run_test(size=(30, 4)) as pilot:  # a header and three rows visible
        listing = app.query_one(RowList)
        listing.set_rows(rows(10))
        await pilot.press("end")
        await pilot.pause()
        assert listing.selected == "t9"
        assert screen_lines(app)[-1].startswith(" table 9")
        listing.set_rows([row for row in rows(10) if row[0] != "t3"])  # t9 is still there
        assert listing.selected == "t9"
        listing.set_rows(rows(2))  # it is gone: the cursor stays in range
        await pilot.pause()
        assert listing.selected == "t1"
        assert screen_lines(app)[1].startswith(" table 0")
        await pilot.press("pageup")
        assert listing.selected == "t0"


async def test_a_tile_picked_just_before_the_hand_changes_is_the_tile_the_player_saw() -> None:
    # Found by the 30-session SSH test: the pick carried an index, and when the hand
    # shrank before the message was handled, the game screen crashed looking it up.
    from moon_tui.rules import Tile
    from moon_tui.ui.dominoes import HandTile, Mark
    from moon_tui.ui.hand import HandView

    picked: list[Tile] = []

    class HandApp(App[None]):
        def compose(self) -> ComposeResult:
            yield HandView()

        def on_hand_view_picked(self, event: HandView.Picked) -> None:
            picked.append(event.tile)

    hand = tuple(HandTile(Tile.ALL[i], Mark.PLAIN, str(i + 1)) for i in range(3))
    app = HandApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(HandView)
        view.set_tiles(hand)
        view.pick(2)
        view.set_tiles(hand[:1])  # the trick moved on before the pick was handled
        await pilot.pause()
    assert picked == [Tile.ALL[2]]


async def test_a_changed_row_draws_again_only_where_it_is_on_screen() -> None:
    # A club lists a hundred tables, one changes at a time and most are out of sight:
    # every change redrew the whole list (and every lobby on the server redrew it).
    app = ListApp()
    async with app.run_test(size=(30, 4)) as pilot:  # a header and three rows visible
        listing = app.query_one(RowList)
        listing.set_rows(rows(10))
        await pilot.pause()
        drawn: list[int] = []
        draw = listing.render_line

        def counted(y: int) -> object:
            drawn.append(y)
            return draw(y)

        listing.render_line = counted  # type: ignore[method-assign,assignment]
        listing.set_rows([*rows(9), ("t9", ("changed", "3/3"))])  # out of sight
        await pilot.pause()
        assert drawn == []
        listing.set_rows([("t0", ("changed", "3/3")), *rows(10)[1:]])  # the first row
        await pilot.pause()
        assert drawn == [1]
        assert screen_lines(app)[1].startswith(" changed   3/3")
        assert screen_lines(app)[2].startswith(" table 1")
        drawn.clear()
        listing.set_rows([row for row in rows(10) if row[0] != "t1"])  # rows move up
        await pilot.pause()
        assert sorted(drawn) == [1, 2, 3]
        assert [line[:9] for line in screen_lines(app)[1:]] == \
            [" table 0 ", " table 2 ", " table 3 "]
