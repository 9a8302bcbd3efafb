"""Test harnesses shared by the tests and the benchmarks (never imported by the packages).

Imported as `tests.support...`: pytest puts the repository root on the path
(`pythonpath` in pyproject.toml) and the bench scripts add it themselves.
"""
