"""Harnesses shared by the tests and the benchmarks: never imported by the packages.

`probe` drives the real server as players do (an SSH client with a terminal read through
pyte, from the test extras). It lives here, not under `tests/`, so that `bench/` needs
nothing from the tests, and not in `server/` or `moon_tui/`, which do not ship pyte.
Imported as `tools...`: pytest puts the repository root on the path (`pythonpath` in
pyproject.toml) and the bench scripts add it themselves.
"""
