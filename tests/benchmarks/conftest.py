"""Fixtures of the benchmark tests: a seed's reference agent driven by a scripted model that calls tools."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_evolve.agents import ReferenceAgent
from agent_evolve.llm.base import Completion, ToolCall
from agent_evolve.registry import seed_path
from agent_evolve.testing import ScriptedLLM

ScriptedAgent = Callable[[str, list[tuple[str, dict[str, Any]]]], tuple[ReferenceAgent, ScriptedLLM]]


@pytest.fixture
def scripted_agent(tmp_path: Path) -> ScriptedAgent:
    """`scripted_agent(seed, [(tool, arguments), ...])`: the seed's agent and the model that makes those calls.

    The seed is copied with its skills injected without a routing call (the script holds the acting turns only)
    and slow commands allowed (a loaded test machine).
    """
    ids = itertools.count()

    def make(seed: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[ReferenceAgent, ScriptedLLM]:
        root = Path(shutil.copytree(seed_path(seed), tmp_path / f"{seed}-{next(ids)}"))
        manifest = yaml.safe_load((root / "manifest.yaml").read_text())
        manifest["agent"]["config"].update(skill_mode="all", tool_timeout_s=300)
        (root / "manifest.yaml").write_text(yaml.safe_dump(manifest))
        llm = ScriptedLLM([Completion(text="", tool_calls=[ToolCall(f"c{next(ids)}", name, arguments)],
                                      finish_reason="tool_calls") for name, arguments in calls])
        return ReferenceAgent(root, llm=llm), llm

    return make
