"""Shared test settings.

Hypothesis runs derandomized: the same examples on every machine, so a CI run checks what
a developer ran. `HYPOTHESIS_PROFILE=explore` searches fresh examples instead.
"""

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
