"""Build hook: compile the double-dummy solver (`moon_tui/bots/_dds.c`) when a C compiler
is there, else go on without it (`solver.py` then uses its pure-Python solver).

`pip install -e .` compiles it next to `solver.py`; a wheel carries it (and is then tagged
for this platform). Run this file to compile it in place in a checkout:

    python hatch_build.py
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script or imported by a test, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]

MODULE = "moon_tui.bots._dds"
PACKAGE_DIR = Path("moon_tui", "bots")
SOURCE = PACKAGE_DIR / "_dds.c"


def c_compiler() -> str | None:
    """The C compiler a build would call ($CC, else the one Python was built with), or None
    when it is not installed (and on Windows, where the pure-Python solver is used)."""
    if sys.platform == "win32":
        return None
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(command)
    return shutil.which(words[0]) if words else None


def compile_solver(root: Path, into: Path) -> Path:
    """Compile the extension into the directory `into`; the file's path. Raises on failure."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    with tempfile.TemporaryDirectory() as work:
        dist = Distribution({"name": "moon-dds", "ext_modules": [
            Extension(MODULE, [str(root / SOURCE)])]})
        command = build_ext(dist)
        command.build_lib = os.path.join(work, "lib")
        command.build_temp = os.path.join(work, "temp")
        command.ensure_finalized()
        command.run()
        built = Path(command.get_ext_fullpath(MODULE))
        into.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(built, into / built.name))


def stale_builds(root: Path) -> list[Path]:
    """Compiled solvers left in the source tree by an earlier in-place build."""
    return [p for p in (root / PACKAGE_DIR).glob("_dds.*") if p.suffix in (".so", ".pyd")]


def build_in_place(root: Path) -> Path | None:
    """Replace the in-place build; None (and one line on stderr) when it cannot be built."""
    for old in stale_builds(root):
        old.unlink()
    if c_compiler() is None:
        print("moon: no C compiler found, the expert uses the pure-Python solver (slower)",
              file=sys.stderr)
        return None
    try:
        return compile_solver(root, root / PACKAGE_DIR)
    except Exception as error:  # any compiler or setuptools failure: go on without it
        print(f"moon: compiling {SOURCE} failed ({error}), the expert uses the pure-Python "
              "solver (slower)", file=sys.stderr)
        return None


class CompiledSolverHook(BuildHookInterface):  # type: ignore[misc]
    """Adds the compiled solver to the wheel (or, editable, to the source tree)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        if version == "editable":
            build_in_place(root)
            return
        self._work = tempfile.mkdtemp(prefix="moon-dds-")
        if c_compiler() is None:
            print("moon: no C compiler found, the wheel has the pure-Python solver only",
                  file=sys.stderr)
            return
        try:
            built = compile_solver(root, Path(self._work))
        except Exception as error:
            print(f"moon: compiling {SOURCE} failed ({error}), the wheel has the pure-Python "
                  "solver only", file=sys.stderr)
            return
        build_data["force_include"][str(built)] = str(PACKAGE_DIR / built.name)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    built = build_in_place(Path(__file__).resolve().parent)
    print(built or "not built: the pure-Python solver is used")
