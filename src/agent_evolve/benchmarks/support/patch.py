"""Pull a unified diff out of model output and normalise it so `git apply` accepts it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent_evolve.benchmarks.support.common import fenced_blocks

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_PATCH_TAG = re.compile(r"<patch>\s*\n(.*?)</patch>", re.DOTALL)
_EXTENDED = ("index ", "new file mode", "deleted file mode", "old mode", "new mode", "similarity index",
             "dissimilarity index", "rename from", "rename to", "copy from", "copy to")
DEV_NULL = "/dev/null"


@dataclass
class Hunk:
    """One @@ block; its header counts are recomputed from its lines."""

    old_start: int
    new_start: int
    section: str
    lines: list[str]

    def text(self) -> str:
        """The hunk with a correct header."""
        old = sum(1 for line in self.lines if line[:1] in (" ", "-"))
        new = sum(1 for line in self.lines if line[:1] in (" ", "+"))
        return "\n".join([f"@@ -{self.old_start},{old} +{self.new_start},{new} @@{self.section}", *self.lines])


@dataclass
class FilePatch:
    """The changes to one file: its old and new paths (a/..., b/... or /dev/null) and its hunks."""

    old_path: str
    new_path: str
    mode_lines: list[str] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def key(self) -> str:
        """The file this patch is about."""
        return self.new_path[2:] if self.new_path != DEV_NULL else self.old_path[2:]

    def text(self) -> str:
        """The file's section of a git-style diff."""
        a = self.old_path if self.old_path != DEV_NULL else "a/" + self.key
        b = self.new_path if self.new_path != DEV_NULL else "b/" + self.key
        head = [f"diff --git {a} {b}", *self.mode_lines, f"--- {self.old_path}", f"+++ {self.new_path}"]
        return "\n".join(head + [hunk.text() for hunk in self.hunks]) + "\n"


def extract_patch(output: str) -> str | None:
    """The unified diff in model output (<patch> tags, ``` blocks, or raw text), normalised; None if none."""
    candidates = [m.group(1) for m in _PATCH_TAG.finditer(output)] + [body for _, body in fenced_blocks(output)]
    patches = [fp for text in candidates for fp in parse_file_patches(text)]
    if not patches:
        patches = parse_file_patches(output)
    if not patches:
        return None
    by_file = {fp.key: fp for fp in patches}  # a later section for the same file replaces an earlier one
    return "".join(fp.text() for fp in by_file.values())


def parse_file_patches(text: str) -> list[FilePatch]:
    """Every file section with at least one valid hunk; text around the diff is ignored."""
    lines = [line.rstrip("\r") for line in text.splitlines()]
    found: list[FilePatch] = []
    i = 0
    while i < len(lines):
        mode_lines: list[str] = []
        start = i
        if lines[i].startswith("diff --git "):
            start = i + 1
            while start < len(lines) and lines[start].startswith(_EXTENDED):
                if not lines[start].startswith(("index ", "similarity", "dissimilarity")):
                    mode_lines.append(lines[start])
                start += 1
        if _is_file_header(lines, start):
            patch, i = _parse_file(lines, start, mode_lines)
            if patch is not None:
                found.append(patch)
        else:
            i = max(start, i + 1)
    return found


def _is_file_header(lines: list[str], i: int) -> bool:
    """A '--- old' line directly followed by '+++ new'."""
    return i + 1 < len(lines) and lines[i].startswith("--- ") and lines[i + 1].startswith("+++ ")


def _path(raw: str, prefix: str) -> str:
    """A header path without timestamp, with the a/ or b/ prefix git apply expects."""
    path = raw.split("\t")[0].strip()
    if path == DEV_NULL or path.startswith(prefix):
        return path
    return prefix + path.lstrip("/")


def _parse_file(lines: list[str], i: int, mode_lines: list[str]) -> tuple[FilePatch | None, int]:
    """Parse the ---/+++ headers at i and the hunks after them."""
    patch = FilePatch(_path(lines[i][4:], "a/"), _path(lines[i + 1][4:], "b/"), mode_lines)
    j = i + 2
    while j < len(lines) and _HUNK.match(lines[j]):
        hunk, j = _parse_hunk(lines, j)
        if hunk is not None:
            patch.hunks.append(hunk)
    return (patch if patch.hunks else None), j


def _is_body_line(lines: list[str], k: int) -> bool:
    """A line that can belong to a hunk and does not start the next hunk or file."""
    line = lines[k]
    if line.startswith("diff --git ") or _HUNK.match(line) or _is_file_header(lines, k):
        return False
    return line == "" or line[0] in " +-\\"


def _parse_hunk(lines: list[str], i: int) -> tuple[Hunk | None, int]:
    """Take the hunk's lines by its declared counts when they fit, else every body-like line."""
    m = _HUNK.match(lines[i])
    assert m is not None
    old_want = int(m.group(2)) if m.group(2) is not None else 1
    new_want = int(m.group(4)) if m.group(4) is not None else 1
    body: list[str] = []
    j = i + 1
    while j < len(lines) and _is_body_line(lines, j):
        body.append(lines[j])
        j += 1
    taken = _by_declared_counts(body, old_want, new_want)
    if taken is None:
        while body and body[-1] == "":
            body.pop()
        taken = body
    normal = [" " if line == "" else line for line in taken]
    if not any(line[0] in "+-" for line in normal):
        return None, j
    return Hunk(int(m.group(1)), int(m.group(3)), m.group(5), normal), j


def _by_declared_counts(body: list[str], old_want: int, new_want: int) -> list[str] | None:
    """The prefix of body that matches the header counts exactly, unless more changes follow it."""
    old = new = 0
    for n, line in enumerate(body):
        if line[:1] in ("", " ", "-"):
            old += 1
        if line[:1] in ("", " ", "+"):
            new += 1
        if old > old_want or new > new_want:
            return None
        if old == old_want and new == new_want:
            end = n + 1
            if end < len(body) and body[end].startswith("\\"):
                end += 1
            if end < len(body) and body[end][:1] in ("+", "-"):
                return None
            return body[:end]
    return None
