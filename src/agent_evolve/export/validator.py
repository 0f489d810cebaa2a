"""A strict Agent Skills validator, written from the specification as strict hosts apply it.

Only the spec's six top-level keys; `name` 1-64 characters of lowercase letters, digits and single hyphens, not
starting or ending with one, equal to the skill's folder name; `description` 1-1024 characters; `compatibility`
at most 500; `license` and `allowed-tools` strings; `metadata` a mapping of strings to strings.
"""

from __future__ import annotations

from typing import Any

import yaml

from agent_evolve.contract.skills import (
    ALLOWED_KEYS,
    MAX_COMPATIBILITY_LENGTH,
    MAX_DESCRIPTION_LENGTH,
    MAX_NAME_LENGTH,
    NAME_RE,
    split_frontmatter,
)

SKILL_FILE = "SKILL.md"


def frontmatter_problems(data: Any, folder: str) -> list[str]:
    """Readable violations of the spec by a parsed frontmatter mapping in a folder named `folder`."""
    if not isinstance(data, dict):
        return [f"frontmatter must be a mapping, got {type(data).__name__}"]
    problems = [f"key {key!r} is not one of the spec's keys ({', '.join(ALLOWED_KEYS)})" for key in data if key not in ALLOWED_KEYS]
    name = data.get("name")
    if not isinstance(name, str) or not name:
        problems.append("name is missing or not a non-empty string")
    else:
        if len(name) > MAX_NAME_LENGTH:
            problems.append(f"name is {len(name)} characters; at most {MAX_NAME_LENGTH}")
        if not NAME_RE.match(name):
            problems.append(f"name {name!r} must be lowercase letters, digits and single hyphens, no hyphen at either end")
        if name != folder:
            problems.append(f"name {name!r} differs from its folder name {folder!r}")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append("description is missing or empty")
    elif len(description) > MAX_DESCRIPTION_LENGTH:
        problems.append(f"description is {len(description)} characters; at most {MAX_DESCRIPTION_LENGTH}")
    compatibility = data.get("compatibility")
    if compatibility is not None and (not isinstance(compatibility, str) or not 1 <= len(compatibility) <= MAX_COMPATIBILITY_LENGTH):
        problems.append(f"compatibility must be a string of 1 to {MAX_COMPATIBILITY_LENGTH} characters")
    for key in ("license", "allowed-tools"):
        if key in data and not isinstance(data[key], str):
            problems.append(f"{key} must be a string")
    metadata = data.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            problems.append("metadata must be a mapping")
        else:
            problems += [
                f"metadata {key!r} must map a string to a string"
                for key, value in metadata.items()
                if not isinstance(key, str) or not isinstance(value, str)
            ]
    return problems


def skill_file_problems(text: str, folder: str) -> list[str]:
    """Violations of one `SKILL.md` text in a folder named `folder` (unreadable frontmatter is one problem)."""
    parts = split_frontmatter(text)
    if parts is None:
        return ["no frontmatter block between '---' lines at the top"]
    try:
        data = yaml.safe_load(parts[0])
    except yaml.YAMLError as exc:
        return [f"frontmatter is not valid YAML: {' '.join(str(exc).split())}"]
    return frontmatter_problems(data, folder)
