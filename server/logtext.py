"""Client text made safe for a log line (the one implementation is `moon_tui.shown`, which
the command-line tools below the server use too)."""

from moon_tui.shown import ELLIPSIS, shown

__all__ = ["ELLIPSIS", "shown"]
