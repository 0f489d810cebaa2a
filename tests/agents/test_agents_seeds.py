"""Every shipped seed workspace validates, loads a ReferenceAgent and has sensible starter content."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from agent_evolve.agents import ReferenceAgent
from agent_evolve.contract import load_manifest, parse_skill, validate_workspace
from agent_evolve.registry import AGENT_REGISTRY, seed_path
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

SEEDS = ["swe", "terminal", "mcp", "arc", "gsm8k", "humaneval", "jsonl"]


def _seed(name: str) -> Path:
    return Path(str(files("agent_evolve.seed_workspaces").joinpath(name)))


@pytest.mark.parametrize("name", SEEDS)
def test_seed_validates_and_loads(name: str) -> None:
    root = _seed(name)
    assert validate_workspace(root) == []
    manifest = load_manifest(root)
    assert (manifest.version, manifest.contract_version, manifest.agent_type) == ("0.1.0", "1.0", "reference")
    assert manifest.entrypoint == "agent_evolve.agents.reference.ReferenceAgent"
    assert manifest.evolvable_layers[:3] == ["prompts", "skills", "memory"] and manifest.reload_strategy == "hot"
    agent = ReferenceAgent(root, llm=ScriptedLLM([]))
    assert agent.system_prompt.strip()
    assert len(agent.skills) <= 2
    assert (root / "memory" / ".gitkeep").is_file()
    assert (root / "tools" / "registry.yaml").read_text().strip() == "[]"


@pytest.mark.parametrize("name", SEEDS)
def test_seed_skills_use_the_trigger_form(name: str) -> None:
    for folder in sorted((_seed(name) / "skills").iterdir()):
        if folder.is_dir():
            skill = parse_skill((folder / "SKILL.md").read_text(), path=folder / "SKILL.md")
            assert skill.name == folder.name
            assert skill.description.startswith("TRIGGER when: ") and " DO NOT TRIGGER: " in skill.description
            assert 0 < len(skill.body) <= 1500


def test_registry_names_resolve_to_shipped_seeds() -> None:
    for name in AGENT_REGISTRY:
        assert (seed_path(name) / "manifest.yaml").is_file(), name


def test_gsm8k_seed_starts_without_skills_and_routes() -> None:
    agent = ReferenceAgent(_seed("gsm8k"), llm=ScriptedLLM([]))
    assert agent.skills == []
    assert agent.settings.skill_mode == "routed"
    assert "Answer: <number>" in agent.system_prompt


def test_gsm8k_seed_answers_with_one_model_call() -> None:
    llm = ScriptedLLM(["3 + 4 = 7\nAnswer: 7"])
    trajectory = ReferenceAgent(_seed("gsm8k"), llm=llm).solve(Task("t1", "What is 3 + 4?"))
    assert trajectory.output.endswith("Answer: 7")
    assert len(llm.calls) == 1, "an empty skill bank must not cost a router call"


def test_humaneval_seed_asks_for_one_python_block() -> None:
    llm = ScriptedLLM(["```python\ndef f():\n    return 1\n```"])
    ReferenceAgent(_seed("humaneval"), llm=llm).solve(Task("t", "def f():\n    \"\"\"Return 1.\"\"\"\n"))
    system = llm.calls[0].messages[0].content
    assert "```python" in system and "## check-docstring-examples" in system
