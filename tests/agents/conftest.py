"""Fixtures of the reference-agent tests: a workspace factory with prompts, fragments, skills and memories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

SKILLS = {
    "check-units": ("a word problem mixes units such as hours and minutes", "pure arithmetic",
                    "Convert every quantity to one unit before computing."),
    "percent-change": ("a problem asks for a percentage increase, decrease or discount", "no percentages",
                       "Percent change = (new - old) / old * 100."),
    "sort-lists": ("a function must sort or order a list of items", "lists that keep their order",
                   "Use sorted() with a key; remember reverse=True for descending."),
}


def skill_text(name: str, trigger: str, avoid: str, body: str) -> str:
    """A valid SKILL.md."""
    return f'---\nname: {name}\ndescription: "TRIGGER when: {trigger}. DO NOT TRIGGER: {avoid}."\n---\n\n{body}\n'


WorkspaceFactory = Callable[..., Path]


@pytest.fixture
def make_ws(tmp_path: Path) -> WorkspaceFactory:
    """Build a workspace: ``make_ws(config={...}, skills=SKILLS, fragments={...}, memories=[...], tools=[...])``."""
    counter = iter(range(1000))

    def build(
        config: dict[str, Any] | None = None,
        skills: dict[str, tuple[str, str, str]] | None = None,
        fragments: dict[str, str] | None = None,
        memories: list[dict[str, Any]] | None = None,
        tools: dict[str, tuple[dict[str, Any], str]] | None = None,
        prompt: str = "You are a careful solver.\n",
    ) -> Path:
        root = tmp_path / f"ws{next(counter)}"
        (root / "prompts" / "fragments").mkdir(parents=True)
        (root / "prompts" / "system.md").write_text(prompt, encoding="utf-8")
        for name, text in (fragments or {}).items():
            (root / "prompts" / "fragments" / name).write_text(text, encoding="utf-8")
        for name, parts in (SKILLS if skills is None else skills).items():
            (root / "skills" / name).mkdir(parents=True)
            (root / "skills" / name / "SKILL.md").write_text(skill_text(name, *parts), encoding="utf-8")
        (root / "memory").mkdir()
        for entry in memories or []:
            category = entry.get("category", "episodic")
            line = json.dumps({k: v for k, v in entry.items() if k != "category"}) + "\n"
            with open(root / "memory" / f"{category}.jsonl", "a", encoding="utf-8") as handle:
                handle.write(line)
        (root / "tools").mkdir()
        registry = []
        for name, (entry, source) in (tools or {}).items():
            (root / "tools" / f"{name}.py").write_text(source, encoding="utf-8")
            registry.append({"name": name, "file": f"{name}.py", **entry})
        (root / "tools" / "registry.yaml").write_text(yaml.safe_dump(registry), encoding="utf-8")
        manifest = {
            "name": "test-agent",
            "version": "0.1.0",
            "contract_version": "1.0",
            "agent": {"type": "reference", "entrypoint": "agent_evolve.agents.reference.ReferenceAgent",
                      "config": {"skill_mode": "all", **(config or {})}},
            "evolvable_layers": ["prompts", "skills", "memory"],
            "reload_strategy": "hot",
        }
        (root / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
        return root

    return build
