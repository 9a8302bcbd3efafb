"""The private parts of Textual and asyncssh the server replaces (server/internals.py).

Each replaced or overridden original is recorded here by a hash of its source: after an
upgrade of textual or asyncssh, the test names every adjustment whose original changed.
Revisit that adjustment against the new code, then record the new hash (and the pins).

The lists only get shorter (`RATCHET`), and no private use goes unlisted: every private
name of Textual or asyncssh the code reads, overrides or imports is named in a list.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import re
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from moon_tui import app
from moon_tui.ui import frames, panel
from server import channel, cli, driver, internals, keyboard, patches, teardown, terminal
from server.internals import Internal, UnsupportedVersion

ORIGINALS = {
    "textual: textual.app.redirect_stdout": "7934609529be85be",
    "textual: textual.app.redirect_stderr": "7934609529be85be",
    "textual: Strip.render": "2ba7a4913a72125d",
    "textual: Strip.render_style": "749d890bb5c43510",
    "textual: Strip.join": "49cd3104a078d503",
    "textual: Stylesheet._parse_rules": "2f1c2d220b672d1b",
    "textual: Stylesheet._process_component_classes": "852b5e4b93c6fc25",
    "textual: StylesCache.get_inner_outer": "d2509f3e796680df",
    "textual: Strip.crop_extend": "5e83b1f823fcb361",
    "textual: Strip.divide": "f6764f25c39e144b",
    "textual: DOMNode.update_node_styles": "0904d7aadd0bdaf5",
    "textual: Screen._screen_resized": "9ac8cd9df5630782",
    "textual: MessagePump._get_message": "5c8f2e35f9c74837",
    "textual: Timer._tick": "131880e700f4ae71",
    "asyncssh: SSHServerConnection.reload_config": "d78b0be8399d5491",
    "asyncssh: SSHConnection.send_packet": "fb9da7bec6dd395a",
    "textual: App._register": "8b2138af0f6bb490",
    "textual: Worker._run": "f6d25246c9cd2663",
    "textual: Widget._message_loop_exit": "f11bec54df4efd84",
    "asyncssh: SSHServerChannel._process_env_request": "c6847fe6051100fa",
    "asyncssh: SSHServerChannel._process_pty_req_request": "60cb230a9c49dd29",
    "asyncssh: SSHServerChannel._process_window_change_request": "aa936b4f230df49e",
    "asyncssh: SSHServerChannel.__init__": "00e69c3de18ffa1d",
    "asyncssh: SSHServerStreamSession.terminal_size_changed": "93d86ebda429eac0",
    "asyncssh: SSHStreamSession.read": "595142239a785afb",
    "textual: XTermParser._parse_extended_key": "65eeaadaf41a7aa9",
    "textual: XTermParser.feed": "a2ae8e648629c0a1",
    "textual: Parser.tick": "44606084ad3bf7c1",
    "textual: App._build_driver": "2838e509bae08877",
    "textual: Driver.__init__": "045ee24b9ab0f865",
    "textual: textual.app._NullFile": "51e12a10290de743",
    "textual: App.__init__": "252ebc810445207d",
    "textual: App._handle_exception": "baea2e7f88e7ac52",
    "textual: Strip.__init__": "ce1d8154dca8cfd7",
    "textual: Strip._divide_cache": "ce1d8154dca8cfd7",
    "textual: Strip._crop_cache": "ce1d8154dca8cfd7",
    "textual: Strip._style_cache": "ce1d8154dca8cfd7",
    "textual: Strip._filter_cache": "ce1d8154dca8cfd7",
    "textual: Strip._line_length_cache": "ce1d8154dca8cfd7",
    "textual: Strip._crop_extend_cache": "ce1d8154dca8cfd7",
    "textual: Strip._offsets_cache": "ce1d8154dca8cfd7",
    "textual: Static.update": "088d35524e5ef63b",
    "textual: Widget._exchange_repaint_regions": "a2d797888f08a6a7",
    "textual: Widget.render_lines": "1f2a11f3d51846d9",
    "textual: Widget._render_content": "50c545576ca20403",
    "textual: Widget.refresh": "b1ce3392c9c00870",
    "textual: Compositor.render_partial_update": "8d10ebb0ea6fe4f9",
    "textual: Visual.to_strips": "237262d432caa6c4",
    "textual: Widget._get_style": "c070a87f85df1396",
    "textual: MessagePump.check_idle": "2b83fc5ea1cca676",
    "textual: textual.screen.UPDATE_PERIOD": "3f1676d329ec9336",
    "textual: Widget._forward_event": "953f13dc082b17fc",
    "textual: ANSIToTruecolor.apply": "5ae9658a499a9978",
    "textual: Content.render_strips": "5595f673f3a2e010",
    "textual: Content._wrap_and_format": "6bf904d927f5bf29",
    "textual: _FormattedLine.to_strip": "5393b649ee150522",
    "textual: StylesCache.render_widget": "6a66574895d4d253",
    "textual: Screen._on_idle": "05781131b10da971",
    "textual: Screen._on_timer_update": "421401660de142c5",
    "textual: Timer.resume": "b933857b2ebafb49",
    "textual: Timer.pause": "cdad007f69a895f3",
    "textual: App._begin_batch": "d3e5faaf577ddb81",
    "textual: App._background_screens": "d925a6b094052092",
    "textual: App.is_headless": "9e01b7211ef76f8a",
}
"""What each original's source hashed to when its adjustment was written (textual 8.2.8,
asyncssh 2.24.1)."""

PATCH_SETS = (patches.PATCHES, teardown.PATCHES)
OVERRIDES = {"server/channel.py": channel.OVERRIDDEN, "server/keyboard.py": keyboard.OVERRIDDEN,
             "server/driver.py": driver.OVERRIDDEN, "server/terminal.py": terminal.OVERRIDDEN,
             # The interface may not import the server: its list is turned into Internals here.
             "moon_tui/ui/panel.py": tuple(Internal("textual", owner, name, why)
                                           for owner, name, why in panel.RELIES_ON),
             "moon_tui/ui/frames.py": tuple(Internal("textual", owner, name, why)
                                            for owner, name, why in frames.RELIES_ON),
             "moon_tui/app.py": tuple(Internal("textual", owner, name, why)
                                      for owner, name, why in app.RELIES_ON)}


def _source_hash(code: list[Any]) -> str:
    # (A method's function, a property's getter, or the code itself.)
    text = "".join(inspect.getsource(getattr(item, "__func__", getattr(item, "fget", item)))
                   for item in code)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _watched() -> Iterator[tuple[str, Internal, str]]:
    """(where, internal, hash of what it depends on) for every replacement and override."""
    for patch_set in PATCH_SETS:
        for patch in patch_set.patches:
            internal = patch.internal
            code = internal.watched() if internal.watched else [patch_set.original(patch)]
            yield patch_set.where, internal, _source_hash(code)
    for where, internals_used in OVERRIDES.items():
        for internal in internals_used:
            yield where, internal, _source_hash([vars(internal.owner)[internal.name]])


def test_every_replaced_original_is_the_code_its_adjustment_was_written_for() -> None:
    changed = [
        f"{where} ({internal.why}): {internal.label} changed (hash {found}), revisit it"
        for where, internal, found in _watched()
        if ORIGINALS.get(internal.label) != found
    ]
    assert not changed, "\n".join(changed)
    assert {internal.label for _, internal, _ in _watched()} == set(ORIGINALS)


def test_the_pins_in_pyproject_are_the_versions_the_adjustments_know() -> None:
    project = tomllib.loads(
        (Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    pins = dict(line.split("==") for line in project["project"]["dependencies"]
                if line.split("==")[0] in internals.PINNED)
    assert pins == internals.PINNED


def test_install_refuses_another_version_and_replaces_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(internals.PINNED, "textual", "0.0.1")
    before = {p.internal.name: vars(p.internal.owner)[p.internal.name]
              for p in patches.PATCHES.patches}
    with pytest.raises(UnsupportedVersion) as refused:
        patches.install()
    message = str(refused.value)
    assert "textual 8.2.8 is installed" in message and "textual 0.0.1" in message
    assert "server/patches.py" in message
    assert not patches.PATCHES.installed
    assert before == {p.internal.name: vars(p.internal.owner)[p.internal.name]
                      for p in patches.PATCHES.patches}


def test_uninstall_puts_every_original_back() -> None:
    for patch_set in PATCH_SETS:
        before = [vars(p.internal.owner)[p.internal.name] for p in patch_set.patches]
        patch_set.install()
        patch_set.install()  # a second user (two servers in one process)
        assert all(vars(p.internal.owner)[p.internal.name] is p.replacement
                   for p in patch_set.patches)
        patch_set.uninstall()
        assert patch_set.installed  # the other user still needs them
        patch_set.uninstall()
        assert not patch_set.installed
        assert before == [vars(p.internal.owner)[p.internal.name] for p in patch_set.patches]


def test_importing_the_server_installs_nothing() -> None:
    # Only a running server (or the `server_patches` fixture) installs the adjustments.
    assert not patches.PATCHES.installed and not teardown.PATCHES.installed


def test_moon_server_refuses_to_start_on_another_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(internals.PINNED, "asyncssh", "1.0")
    monkeypatch.setattr(cli, "_install_uvloop", lambda: False)  # a process-wide policy
    monkeypatch.setenv("MOON_DATA", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    assert cli.main(["--port", "0", "--host", "127.0.0.1"]) == 1
    error = capsys.readouterr().err.strip()
    assert error.startswith("moon-server: cannot start: asyncssh 2.24.1 is installed")
    assert "asyncssh 1.0" in error and "pip install 'asyncssh==1.0'" in error
    assert len(error.splitlines()) == 1  # one paragraph
    assert not (tmp_path / "data" / "moon.sqlite3").exists()  # nothing touched



# -- the ratchet -------------------------------------------------------------------------

RATCHET = {"entries": 64, "names": 35}
"""(Issue 32 began at 65 entries, 35 + 14 + 16, and 40 names, 13 of them in no list.)
How many private internals the lists name (`entries`: replaced, overridden or relied
on), and how many private names of Textual and asyncssh the code outside the patch
modules uses (`names`, found by `private_uses`). They may only go down: a change that
removes one lowers the figure here; one that would add one needs a better way instead."""

ROOT = Path(__file__).parent.parent
THIRD_PARTY = ("textual", "asyncssh")
PATCH_MODULES = {"server/patches.py", "server/teardown.py"}
"""Modules made of replacements: every private use in them serves one of their listed
`PATCHES`, whose originals are hashed above."""


def _entries() -> list[Internal]:
    return [patch.internal for patch_set in PATCH_SETS for patch in patch_set.patches] + [
        internal for internals_used in OVERRIDES.values() for internal in internals_used]


def _named() -> set[str]:
    """Every name the lists give: what is replaced, its owner, and the private names
    its reason says the adjustment reads through it."""
    names: set[str] = set()
    for internal in _entries():
        names |= {internal.name, getattr(internal.owner, "__name__", ""),
                  *re.findall(r"\w+", internal.why)}
    return names


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache
def _third_party_names() -> frozenset[str]:
    """Private names defined anywhere in textual or asyncssh (methods, attributes)."""
    found: set[str] = set()
    for package in THIRD_PARTY:
        for path in Path(importlib.import_module(package).__file__ or "").parent.rglob("*.py"):
            text = path.read_text(encoding="utf-8", errors="replace")
            found.update(re.findall(r"\bdef (_[a-z]\w*)", text))
            found.update(re.findall(r"\.(_[a-z]\w*)\s*(?::[^=\n]*)?=", text))
            found.update(re.findall(r"^\s+(_[a-z]\w*)\s*[:=]", text, re.M))
    return frozenset(found)


@cache
def _privates_of(cls: type) -> frozenset[str]:
    """The private names a Textual or asyncssh class defines or sets on its instances."""
    names = {name for name in vars(cls) if _is_private(name)}
    try:
        names.update(re.findall(r"self\.(_[a-z]\w*)\s*(?::[^=\n]*)?=", inspect.getsource(cls)))
    except (OSError, TypeError):
        pass
    return frozenset(names)


def _third_party_bases(cls: type) -> list[type]:
    """The Textual and asyncssh classes `cls` or any of its subclasses derives from (a
    mixin's methods run as part of the Textual classes it is mixed into)."""
    classes, bases = [cls], []
    while classes:
        current = classes.pop()
        bases += [base for base in current.__mro__
                  if base.__module__.split(".")[0] in THIRD_PARTY]
        classes += current.__subclasses__()
    return bases


def _source_files() -> list[Path]:
    return [path for folder in ("moon_tui", "server")
            for path in sorted((ROOT / folder).rglob("*.py"))
            if str(path.relative_to(ROOT)) not in PATCH_MODULES]


def private_uses() -> list[tuple[str, int, str]]:
    """(file, line, name) for each use of a private name of Textual or asyncssh in the
    code: an import of a private module or name, a method overriding a private one, a
    private attribute read through `self`/`super()` in a class built on theirs, or
    through anything else when only they define that name."""
    ours: set[str] = set()
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in _source_files()}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                ours.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                ours.add(node.attr)
    uses: list[tuple[str, int, str]] = []
    for path, tree in trees.items():
        where = str(path.relative_to(ROOT))
        module = importlib.import_module(where[:-3].replace("/", ".").removesuffix(".__init__"))

        def visit(node: ast.AST, owner: Any, where: str = where, module: Any = module) -> None:
            for child in ast.iter_child_nodes(node):
                inner = owner
                if isinstance(child, ast.ClassDef):
                    found = getattr(owner if owner is not None else module, child.name, None)
                    inner = found if isinstance(found, type) else None
                elif isinstance(child, ast.ImportFrom) and child.module and \
                        child.module.split(".")[0] in THIRD_PARTY:
                    private_module = any(_is_private(part) for part in child.module.split("."))
                    uses.extend((where, child.lineno, alias.name) for alias in child.names
                                if private_module or _is_private(alias.name))
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and \
                        isinstance(owner, type) and _is_private(child.name) and any(
                            child.name in vars(base) for base in _third_party_bases(owner)):
                    uses.append((where, child.lineno, child.name))
                elif isinstance(child, ast.Attribute) and _is_private(child.attr):
                    value = child.value
                    through_self = (isinstance(value, ast.Name) and value.id in ("self", "cls")) \
                        or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                            and value.func.id == "super")
                    if through_self:
                        if isinstance(owner, type) and any(
                                child.attr in _privates_of(base)
                                for base in _third_party_bases(owner)):
                            uses.append((where, child.lineno, child.attr))
                    elif child.attr in _third_party_names() and child.attr not in ours:
                        uses.append((where, child.lineno, child.attr))
                if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    visit(child, inner)
                else:
                    visit(child, owner)

        visit(tree, None)
    return uses


def test_every_private_use_is_named_in_a_list() -> None:
    named = _named()
    unlisted = [f"{where}:{line}: {name}" for where, line, name in private_uses()
                if name not in named]
    assert not unlisted, (
        "private parts of Textual or asyncssh used without being listed (find a public "
        "way, or add them to the module's OVERRIDDEN / RELIES_ON and to ORIGINALS):\n"
        + "\n".join(unlisted))


def test_the_private_internals_only_get_fewer() -> None:
    found = {"entries": len(_entries()),
             "names": len({name for _, _, name in private_uses()})}
    more = {key: value for key, value in found.items() if value > RATCHET[key]}
    assert not more, (f"more private internals than before: {more}, at most {RATCHET}; "
                      "use Textual's and asyncssh's public API instead")
    assert found == RATCHET, (f"fewer private internals: {found}; lower RATCHET in "
                              f"{Path(__file__).name} to that (it may only go down)")


def test_the_scan_finds_a_private_use() -> None:
    # What the ratchet stands on: a private name read, overridden or imported is seen.
    uses = {(where, name) for where, _, name in private_uses()}
    assert ("server/game_session.py", "_exception") in uses  # through another object
    assert ("server/driver.py", "_app") in uses  # through self, set by Driver
    assert ("server/keyboard.py", "_parse_extended_key") in uses  # an override
    assert ("server/keyboard.py", "XTermParser") in uses  # from a private module
    assert not any(name in ("_decoder", "_pending") for _, name in uses)  # the driver's own
