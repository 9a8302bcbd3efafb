"""Settings the tests share."""

from moon_tui.lobby import LobbyConfig

FAST = LobbyConfig(bot_delay=0.0, trick_pause=0, hand_result_seconds=0, hand_pause=0.0,
                   bot_time_budget=0.05)
"""A lobby that plays as fast as it can: no computer pauses, tiny search budgets."""
