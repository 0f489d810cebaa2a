"""Screen an agent's diff before grading: its changes to anything pytest reads (conftest, configuration, plugins,
start-up hooks, the task's tests) are dropped and named; the rebuilt diff is exactly what `git apply` sees."""

from __future__ import annotations

import configparser
import posixpath
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from agent_evolve.benchmarks.support.patch import DEV_NULL, FilePatch, parse_file_patches
from agent_evolve.types import Feedback

ALWAYS_DROPPED_NAMES = frozenset({"conftest.py", "pytest.ini", ".pytest.ini", "sitecustomize.py",
                                  "usercustomize.py", "setup.py"})
"""Files pytest or Python's start-up read as code or settings; `setup.py` can register a plugin in ways no static
check sees (an install at grading time, as SWE-bench's harness does for some repositories, would load it)."""
SECTIONED_CONFIG = frozenset({"setup.cfg", "tox.ini", "pyproject.toml"})
"""Files whose pytest sections are dropped (the whole file change when those sections change or the base is unknown)."""
METADATA_SUFFIXES = (".egg-info", ".dist-info")
VERSION_CONTROL = frozenset({".git", ".hg", ".svn"})
"""Folders whose files are a repository's own machinery (git configuration can name programs to run)."""
SYMLINK_MODE = "120000"
BaseText = Callable[[str], "str | None"]
"""Repository path -> its text at the base commit, None when the base has no such file."""


@dataclass(frozen=True)
class ScreenedPatch:
    """The diff that will be applied, and the paths whose changes were dropped with why."""

    patch: str
    dropped: dict[str, str]

    def note(self) -> str:
        """A sentence for the feedback, or "" when nothing was dropped."""
        if not self.dropped:
            return ""
        items = "; ".join(f"{path} ({why})" for path, why in sorted(self.dropped.items()))
        return f"changes to test infrastructure were dropped before grading: {items}"

    def annotate(self, feedback: Feedback) -> Feedback:
        """`feedback` with the dropped paths in its raw record and, when there are any, `note()` in its detail."""
        feedback.raw = {**feedback.raw, "dropped": self.dropped}
        if self.dropped:
            feedback.detail = f"{feedback.detail}; {self.note()}"
        return feedback


def screen_patch(patch: str, protected: Collection[str], base_text: BaseText | None = None) -> ScreenedPatch:
    """The diff without its changes to test infrastructure and `protected` test files; with `base_text` (the base's
    text of a file), a change to `setup.cfg` etc. outside their pytest sections is kept."""
    by_file = {file_patch.key: file_patch for file_patch in parse_file_patches(patch)}
    kept: list[str] = []
    dropped: dict[str, str] = {}
    for file_patch in by_file.values():
        why = _reason_to_drop(file_patch, set(protected), base_text)
        if why is None:
            kept.append(file_patch.text())
        else:
            dropped[file_patch.key] = why
    return ScreenedPatch("".join(kept), dropped)


def paths_of(file_patch: FilePatch) -> list[str]:
    """Every repository path a file section names: old, new, and rename or copy sources and targets."""
    return ([p[2:] for p in (file_patch.old_path, file_patch.new_path) if p != DEV_NULL]
            + [line[len(head):] for line in file_patch.mode_lines
               for head in ("rename from ", "rename to ", "copy from ", "copy to ") if line.startswith(head)])


def _reason_to_drop(file_patch: FilePatch, protected: set[str], base_text: BaseText | None) -> str | None:
    """Why this file section must not be applied, or None when it may."""
    if any(line.endswith(SYMLINK_MODE) for line in file_patch.mode_lines):
        return "a symbolic link"
    for path in paths_of(file_patch):
        why = infrastructure_reason(path, protected)
        if why is not None:
            return why
    name = posixpath.basename(file_patch.key)
    if name in SECTIONED_CONFIG:
        if base_text is None:
            return "pytest configuration file, base unknown"
        if _pytest_settings_change(file_patch, name, base_text):
            return "pytest configuration section or plugin entry point"
    return None


def infrastructure_reason(path: str, protected: set[str]) -> str | None:
    """Why a change at `path` is test infrastructure by its name alone, or None."""
    normal = posixpath.normpath(path)
    parts = normal.split("/")
    if path.startswith("/") or ".." in parts or any(c in path for c in "\"\\\n\t"):
        return "a path outside the repository or with quoting"
    if any(part in VERSION_CONTROL for part in parts):
        return "version-control metadata"
    if normal in protected:
        return "a test file of the task"
    if any(test.startswith(normal + "/") for test in protected):
        return "replaces a folder of the task's tests"
    name = parts[-1]
    if name in ALWAYS_DROPPED_NAMES:
        return f"{name} is read by pytest or Python at start-up"
    if name.endswith(".pth"):
        return ".pth files run code at start-up"
    if any(part.endswith(METADATA_SUFFIXES) for part in parts[:-1]):
        return "installed package metadata (entry points)"
    return None


def _pytest_settings_change(file_patch: FilePatch, name: str, base_text: BaseText) -> bool:
    """Whether applying this section changes what pytest reads from the file; True when that cannot be told."""
    before = "" if file_patch.old_path == DEV_NULL else base_text(file_patch.old_path[2:])
    if before is None and file_patch.old_path != DEV_NULL:
        return True
    after = "" if file_patch.new_path == DEV_NULL else apply_file_patch(before or "", file_patch)
    if after is None:
        return True
    return pytest_settings(name, before or "") != pytest_settings(name, after)


def apply_file_patch(text: str, file_patch: FilePatch) -> str | None:
    """`text` with the section's hunks applied exactly at their positions; None when a hunk does not match."""
    lines = text.splitlines()
    result: list[str] = []
    position = 0
    for hunk in file_patch.hunks:
        start = max(hunk.old_start - 1, 0) if any(line[:1] in (" ", "-") for line in hunk.lines) else hunk.old_start
        if start < position:
            return None
        result += lines[position:start]
        position = start
        for line in hunk.lines:
            kind, body = line[:1], line[1:]
            if kind in (" ", "-"):
                if position >= len(lines) or lines[position] != body:
                    return None
                position += 1
            if kind in (" ", "+"):
                result.append(body)
    result += lines[position:]
    return "\n".join(result) + "\n"


def pytest_settings(name: str, text: str) -> Any:
    """What pytest (or a plugin entry point) would take from a configuration file; the text when it cannot parse."""
    if name == "pyproject.toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return ("unparsable", text)
        return (_dig(data, "tool", "pytest"), _dig(data, "project", "entry-points", "pytest11"),
                _dig(data, "tool", "poetry", "plugins", "pytest11"))
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return ("unparsable", text)
    sections = {s: dict(parser.items(s)) for s in parser.sections() if s in ("pytest", "tool:pytest")}
    entry_points = dict(parser.items("options.entry_points")) if parser.has_section("options.entry_points") else {}
    return (sections, {k: v for k, v in entry_points.items() if "pytest" in k})


def _dig(data: Any, *keys: str) -> Any:
    """data[k1][k2]... or None where a level is missing."""
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data
