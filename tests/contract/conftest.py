"""Fixtures of the workspace-contract tests: a small valid workspace and a byte-level snapshot helper."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

MANIFEST = """\
name: gsm8k-solver
version: 0.1.0
contract_version: "1.0"
agent:
  type: reference
  entrypoint: agent_evolve.agents.reference.ReferenceAgent
  config: {temperature: 0}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""

SKILL = """\
---
name: check-units
description: "TRIGGER when: a word problem mixes units. DO NOT TRIGGER: pure arithmetic."
---

Convert every quantity to one unit before computing.
"""


@pytest.fixture
def ws_dir(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "prompts").mkdir(parents=True)
    (root / "prompts" / "system.md").write_text("You solve math problems.\n", encoding="utf-8")
    (root / "skills" / "check-units").mkdir(parents=True)
    (root / "skills" / "check-units" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (root / "memory").mkdir()
    (root / "memory" / "episodic.jsonl").write_text('{"content": "carry the one"}\n', encoding="utf-8")
    (root / "manifest.yaml").write_text(MANIFEST, encoding="utf-8")
    return root


@pytest.fixture
def manifest_text() -> str:
    return MANIFEST


@pytest.fixture
def skill_text() -> str:
    return SKILL


@pytest.fixture
def snap():
    """The :func:`snapshot` function (test modules take helpers as fixtures, never by importing conftest)."""
    return snapshot


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` with its bytes and mtime, and every directory, for "nothing was written"."""
    state: dict[str, tuple[bytes, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            state[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = (b"", 0)
        for f in filenames:
            full = os.path.join(dirpath, f)
            state[os.path.relpath(full, root)] = (Path(full).read_bytes(), os.stat(full).st_mtime_ns)
    return state
