"""Agent Skills (``SKILL.md``): model, parser, validator and renderer, in the manner of skills-ref.

A skill file is YAML frontmatter between ``---`` lines, then a Markdown body::

    ---
    name: check-units
    description: "TRIGGER when: a word problem mixes units. DO NOT TRIGGER: pure arithmetic."
    metadata:
      intent: convert before computing
    ---

    Body text...

:func:`parse_skill` rejects what cannot be read as a skill at all with :class:`SkillFormatError`;
:func:`validate_skill` lists the rules a parsed skill breaks. Richer fields (Ratchet's intent, evidence...) belong
under ``metadata`` so that every host that reads Agent Skills can still load the file.
"""

from __future__ import annotations

import copy
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.errors import SkillFormatError
from agent_evolve.io.safe_yaml import load_yaml

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500
ALLOWED_KEYS: tuple[str, ...] = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

_OPEN_RE = re.compile(r"---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^---[ \t]*(?:\r?\n|\Z)(?:\r?\n)?", re.MULTILINE)  # one blank line after it is separator
_STRING_KEYS = ("name", "description", "license", "compatibility", "allowed-tools")


@dataclass
class Skill:
    """One Agent Skill. ``extra`` keeps unknown top-level keys so that the validator can report them."""

    name: str
    description: str
    body: str = ""
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    allowed_tools: str | None = None
    path: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def split_frontmatter(text: str) -> tuple[str, str] | None:
    """``(yaml_text, body)``, or None when ``text`` does not start with a closed frontmatter block."""
    opening = _OPEN_RE.match(text)
    if not opening:
        return None
    closing = _CLOSE_RE.search(text, opening.end())
    if not closing:
        return None
    return text[opening.end():closing.start()], text[closing.end():]


def strip_frontmatter(text: str) -> str:
    """The body of a skill document; text without a frontmatter block comes back unchanged."""
    parts = split_frontmatter(text)
    return text if parts is None else parts[1]


def parse_skill(text: str, path: str | Path | None = None) -> Skill:
    """Parse a ``SKILL.md`` text. Raises :class:`SkillFormatError` naming ``path`` and the problem."""
    where = str(path) if path is not None else "<SKILL.md>"
    parts = split_frontmatter(text)
    if parts is None:
        if _OPEN_RE.match(text):
            raise SkillFormatError(f"{where}: frontmatter is not closed by a '---' line")
        raise SkillFormatError(f"{where}: no YAML frontmatter; the file must start with a '---' line")
    yaml_text, body = parts
    data = load_yaml(yaml_text, f"{where} (frontmatter)", SkillFormatError)
    if data is None:
        raise SkillFormatError(f"{where}: frontmatter is empty; it needs at least 'name' and 'description'")
    if not isinstance(data, dict):
        raise SkillFormatError(f"{where}: frontmatter must be a YAML mapping, got {type(data).__name__}")
    for key in ("name", "description"):
        if key not in data or data[key] is None:
            raise SkillFormatError(f"{where}: frontmatter is missing required key '{key}'")
    for key in _STRING_KEYS:
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise SkillFormatError(
                f"{where}: frontmatter key '{key}' must be a string, got {type(data[key]).__name__} "
                f"{_short_repr(data[key])}"
            )
    metadata = {} if data.get("metadata") is None else data["metadata"]
    if not isinstance(metadata, dict):
        raise SkillFormatError(f"{where}: frontmatter key 'metadata' must be a mapping, got {type(metadata).__name__}")
    return Skill(name=data["name"], description=data["description"], body=body, license=data.get("license"),
                 compatibility=data.get("compatibility"), metadata=metadata, allowed_tools=data.get("allowed-tools"),
                 path=str(path) if path is not None else None,
                 extra={k: v for k, v in data.items() if k not in ALLOWED_KEYS})


def validate_name(name: Any) -> list[str]:
    """Problems with a skill name (empty list when valid)."""
    if not isinstance(name, str):
        return [f"name must be a string, got {type(name).__name__}"]
    if not name:
        return ["name is empty"]
    problems = []
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name {name!r} is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}")
    if not NAME_RE.match(name):
        problems.append(
            f"name {name!r} must be lowercase letters, digits and single hyphens, "
            "not starting or ending with a hyphen"
        )
    return problems


def validate_skill(skill: Skill, dir_name: str | None = None) -> list[str]:
    """Readable problems of ``skill`` (empty list when valid); ``dir_name`` must then equal the name."""
    problems = validate_name(skill.name)
    if dir_name is not None and skill.name != dir_name:
        problems.append(f"name {skill.name!r} does not match its directory name {dir_name!r}")
    if not isinstance(skill.description, str):
        problems.append(f"description must be a string, got {type(skill.description).__name__}")
    elif not skill.description.strip():
        problems.append("description is empty")
    elif len(skill.description) > MAX_DESCRIPTION_LENGTH:
        problems.append(
            f"description is {len(skill.description)} characters long; the limit is {MAX_DESCRIPTION_LENGTH}"
        )
    if skill.compatibility is not None:
        if not isinstance(skill.compatibility, str) or not skill.compatibility.strip():
            problems.append("compatibility must be a non-empty string when present")
        elif len(skill.compatibility) > MAX_COMPATIBILITY_LENGTH:
            problems.append(
                f"compatibility is {len(skill.compatibility)} characters long; the limit is {MAX_COMPATIBILITY_LENGTH}"
            )
    if skill.license is not None and not isinstance(skill.license, str):
        problems.append(f"license must be a string, got {type(skill.license).__name__}")
    if skill.allowed_tools is not None and not isinstance(skill.allowed_tools, str):
        problems.append(f"allowed-tools must be a space-separated string, got {type(skill.allowed_tools).__name__}")
    if not isinstance(skill.metadata, dict):
        problems.append(f"metadata must be a mapping, got {type(skill.metadata).__name__}")
    elif any(not isinstance(k, str) for k in skill.metadata):
        problems.append("metadata keys must be strings")
    if skill.extra:
        unknown = ", ".join(sorted(map(str, skill.extra)))
        problems.append(f"unknown frontmatter keys: {unknown} (allowed: {', '.join(ALLOWED_KEYS)}; put others under metadata)")
    return problems


def render_skill(skill: Skill) -> str:
    """Render ``skill`` as ``---\\n<yaml>---\\n\\n<body>``; :func:`parse_skill` gives the same skill back."""
    data: dict[str, Any] = {"name": skill.name, "description": skill.description}
    for key, value in (("license", skill.license), ("compatibility", skill.compatibility),
                       ("allowed-tools", skill.allowed_tools)):
        if value is not None:
            data[key] = value
    if skill.metadata:
        data["metadata"] = skill.metadata
    data.update(skill.extra)
    frontmatter = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10**9)
    return f"---\n{frontmatter}---\n\n{skill.body}"


def _short_repr(value: Any, limit: int = 80) -> str:
    text = repr(value) if isinstance(value, (int, float, bool, str)) else f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def read_skill_file(path: str | Path) -> Skill:
    """Parse the ``SKILL.md`` at ``path`` (read several times per cycle) from a cache keyed by the file's stamp;
    callers get their own copy. Raises :class:`SkillFormatError` naming the file."""
    file = Path(path)
    try:
        info = file.stat()
    except OSError as exc:
        raise SkillFormatError(f"{file}: cannot read: {exc.strerror or exc}") from None
    return copy.deepcopy(cached_skill(str(file), info))


def cached_skill(file: str, info: os.stat_result) -> Skill:
    """The skill parsed from ``file`` whose stat is ``info``, parsed only for a new stamp; shared: never change it."""
    return _parse_version(file, (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))


@functools.lru_cache(maxsize=16_384)  # parsed versions kept: a 10,000-skill bank stays cached
def _parse_version(file: str, stamp: tuple[int, int, int, int]) -> Skill:
    """The skill of one version of ``file``, named by its stamp (inode, size, mtime, ctime: known unread)."""
    try:
        text = read_regular_text(file)
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillFormatError(f"{file}: cannot read: {exc}") from None
    return parse_skill(text, path=file)
