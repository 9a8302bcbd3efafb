"""Harnesses only the tests use (never imported by the packages or by `bench/`; what
both need is in `tools/`).

Imported as `tests.support...`: pytest puts the repository root on the path
(`pythonpath` in pyproject.toml).
"""
