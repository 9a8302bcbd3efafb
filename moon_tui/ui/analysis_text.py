"""Words of the replay viewer's analysis: a decision's choices with what each was worth,
the one made and what it cost, and the hand's biggest swings. Pure functions of
`bots.analysis` results."""

from __future__ import annotations

from rich.text import Text

from ..bots.analysis import Decision, HandAnalysis
from ..rules import Action
from ..rules.timeline import Timeline
from .base import heading
from .dominoes import small_tile
from .words import bid_words, fit, trump_words


def choice_words(action: Action) -> str:
    """`[6|4]`, `bid 5`, `pass`, `4s`."""
    if action.kind in ("pass", "bid"):
        return bid_words(action) if action.kind == "pass" else f"bid {bid_words(action)}"
    if action.kind == "trump" and action.trump is not None:
        return trump_words(action.trump)
    assert action.tile is not None
    return small_tile(action.tile)


def _figure(value: float | None, width: int, points: bool = False) -> str:
    if value is None:
        return " " * (width - 1) + "–"
    if points:
        return f"{value:+{width}.1f}"
    return f"{value:{width}.1f}" if value != round(value) else f"{value:{width}.0f}"


def _cost(value: float | None) -> str:
    return "" if value is None or value < 0.05 else f"−{value:.1f}".replace(".0", "")


def decision_lines(decision: Decision, seats: tuple[str, ...], names: int,
                   width: int, rows: int = 99) -> Text:
    """The choices of one decision, best first, the one made marked with what it cost;
    in `rows` lines at most (the best ones and the one made)."""
    bid = decision.chosen.kind in ("pass", "bid")
    shown_dd = any(o.dd is not None for o in decision.options)
    text = heading(f"{fit(seats[decision.seat], names)}'s choice")
    if len(decision.options) == 1:
        text.append("\nthe only legal one")
        return text
    unit = "points" if bid else "tricks"
    cols = ("best " if shown_dd else "") + " fair"
    text.append(f"\n{unit:<8}{cols:>{10 if shown_dd else 5}}", style="dim")
    options = list(decision.options)
    room = max(2, rows - 2 - (1 if shown_dd else 0))
    if len(options) > room:
        best = options[:room - 1]
        chosen = [o for o in options[room - 1:] if o.action == decision.chosen]
        options = best + (chosen or options[room - 1:room])
    for option in options:
        made = option.action == decision.chosen
        line = f"{choice_words(option.action):<8}"
        if shown_dd:
            line += _figure(option.dd, 4) + " "
        line += _figure(option.fair, 5, points=bid)
        text.append("\n")
        text.append(line, style="bold" if made else "")
        if made:
            cost = _cost(decision.dd_cost if shown_dd else decision.fair_cost)
            text.append(f" ◀{cost}"[: max(0, width - len(line))], style="bold")
    if shown_dd:
        fair_cost = _cost(decision.fair_cost)
        if fair_cost and not bid:
            text.append(f"\nfair cost {fair_cost}", style="dim")
    return text


def swing_line(analysis: HandAnalysis, timeline: Timeline) -> Text:
    """`swings (n): move 14 −2 · move 6 −1`: the hand's costliest decisions."""
    swings = analysis.swings()
    if not swings:
        return Text("no choice cost a trick", style="dim")
    start = timeline.index_of((analysis.hand, 0))
    text = Text("swings (n): ", style="dim")
    text.append(" · ".join(f"{start + d.index} {_cost(d.cost)}" for d in swings))
    return text


def progress_line(hand: int, done: int, total: int) -> Text:
    return Text(f"weighing hand {hand + 1}: {done} of {total}…", style="italic")
