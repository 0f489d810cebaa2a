"""Our skills as strictly valid Agent Skills and back: non-string metadata and stray top-level keys are kept
inside `metadata` as strings (JSON), with the keys listed, so that an import restores them exactly."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from agent_evolve.contract.skills import Skill

JSON_KEYS = "agent-evolve-json"  # metadata keys whose string value is JSON of the original value
TOP_KEYS = "agent-evolve-top"  # metadata keys that were top-level frontmatter keys outside the spec


def _encode(value: Any) -> tuple[str, bool]:
    return (value, False) if isinstance(value, str) else (json.dumps(value, sort_keys=True, default=str), True)


def to_portable(skill: Skill) -> Skill:
    """`skill` with metadata of strings only and no keys outside the spec; raises ValueError on a key clash."""
    metadata: dict[str, str] = {}
    encoded: list[str] = []
    moved: list[str] = []
    for source, keys in ((skill.metadata, None), (skill.extra, moved)):
        for key, value in source.items():
            name = str(key)
            if name in metadata or name in (JSON_KEYS, TOP_KEYS):
                raise ValueError(f"metadata key {name!r} is used twice (as a top-level key and in metadata)")
            metadata[name], as_json = _encode(value)
            if as_json:
                encoded.append(name)
            if keys is not None:
                keys.append(name)
    if encoded:
        metadata[JSON_KEYS] = ",".join(encoded)
    if moved:
        metadata[TOP_KEYS] = ",".join(moved)
    return replace(skill, metadata=metadata, extra={}, path=None)


def from_portable(skill: Skill) -> Skill:
    """The skill `to_portable` was given (its metadata decoded, moved keys back at the top level)."""
    metadata = dict(skill.metadata)
    encoded = set(filter(None, str(metadata.pop(JSON_KEYS, "")).split(",")))
    moved = set(filter(None, str(metadata.pop(TOP_KEYS, "")).split(",")))
    decoded = {k: json.loads(v) if k in encoded else v for k, v in metadata.items()}
    return replace(
        skill,
        metadata={k: v for k, v in decoded.items() if k not in moved},
        extra={k: v for k, v in decoded.items() if k in moved},
        path=None,
    )
