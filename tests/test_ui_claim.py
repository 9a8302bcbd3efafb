"""A player claims the rest at the table (issue 30, item 6): `C` is offered only at their
lead; a claim the table cannot prove is refused in place of the prompt, and a proven one
plays the rest out at once (the proof runs in the bots' worker pool) and says so."""

from __future__ import annotations

from test_ui_support import FAST, current_view, screen_text, take_turn, wait_for
from test_ui_table import notes

from moon_tui.local import LocalMoonApp
from moon_tui.rules import Phase, Rules
from moon_tui.ui.game import GameScreen


async def test_a_player_claims_the_rest_with_c_at_their_lead() -> None:
    app = LocalMoonApp("ann", Rules.make(), level="easy", config=FAST, seed=5)
    refused = 0
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the table")
        for _ in range(300):
            await wait_for(pilot, lambda: (v := current_view(app)) is not None
                           and (v.my_turn or v.phase is Phase.DEAL), "ann's turn")
            view = current_view(app)
            assert view is not None
            if not view.my_turn:
                await pilot.press("enter")  # the hand's result is read: deal the next
                await wait_for(pilot, lambda v=view: current_view(app) is not v, "the next hand")
                continue
            trick = view.current_trick
            leading = view.phase is Phase.PLAY and trick is not None and not trick.plays
            assert ("C claim the rest" in screen_text(app)) == leading, screen_text(app)
            if not leading:
                await take_turn(pilot, app, bid=6)
                continue
            tricks = len(view.hand)
            await pilot.press("C")
            await wait_for(pilot, lambda v=view: current_view(app) is not v
                           or "Not claimed" in screen_text(app), "the table's answer")
            after = current_view(app)
            if after is view:
                refused += 1
                assert f"✗ Not claimed: the others could still take one of the {tricks} tricks " \
                       "left. Play on" in screen_text(app), "in one line of 80 columns"
                await take_turn(pilot, app, bid=6)
                continue
            assert after is not None and after.phase is not Phase.PLAY, "the rest is played"
            result = after.results[-1]
            assert result.tricks_won[0] >= tricks
            await wait_for(pilot, lambda: "ann claimed" in notes(app), "the notice")
            what = f"the {tricks} tricks left" if tricks > 1 else "the last trick"
            assert f"ann claimed {what}, played out at once: [" in notes(app)
            assert "ann claimed" in " ".join(screen_text(app).split()), "shown as a toast"
            break
        else:
            raise AssertionError("ann never claimed")
    assert refused > 0, "the refusal was seen on the way"
