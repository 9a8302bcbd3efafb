"""Computer players. They see one seat's view only; no textual, no asyncssh.

Levels (`make_bot`): `random`, `easy`, `normal` (alias `heuristic`), `expert` (PIMC over a
double-dummy solver, `time_budget` seconds per decision). The arena is `moon-arena`;
`hint.hint(view)` ranks a seat's legal actions; `pool.BotPool` decides in worker processes.
"""

from .base import Bot, RandomBot
from .easy import EasyBot
from .expert import ExpertBot
from .heuristic import HeuristicBot
from .registry import LEVELS, make_bot

__all__ = ["LEVELS", "Bot", "EasyBot", "ExpertBot", "HeuristicBot", "RandomBot", "make_bot"]
