"""Fixtures of the engine tests: a small workspace, a failing gsm8k-like batch, an engine context."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from engine_fakes import MANIFEST, PROMPT, gsm_obs

from agent_evolve.config import EvolveConfig
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EngineContext
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.types import Observation


@pytest.fixture
def ws(tmp_path: Path) -> AgentWorkspace:
    root = tmp_path / "ws"
    (root / "prompts").mkdir(parents=True)
    (root / "prompts" / "system.md").write_text(PROMPT)
    (root / "skills").mkdir()
    (root / "memory").mkdir()
    (root / "memory" / "episodic.jsonl").write_text(json.dumps({"content": "carry the one"}) + "\n")
    (root / "manifest.yaml").write_text(MANIFEST)
    return AgentWorkspace(root)


@pytest.fixture
def failing_batch() -> list[Observation]:
    """Two answer-format failures, one wrong answer, one success."""
    return [
        gsm_obs("g1", "Janet's ducks lay 16 eggs per day. She eats three. How many eggs remain?", "I think so."),
        gsm_obs("g2", "A robe takes 2 bolts of blue fiber and half that much white fiber. Total bolts?", "hmm"),
        gsm_obs("g3", "Josh buys a house for 80000 dollars and repairs it. Profit?", "Answer: 7000",
                expected="70000", extracted="7000"),
        gsm_obs("g4", "James runs 3 sprints 3 times a week. Meters per week?", "Answer: 18", extracted="18"),
    ]


@pytest.fixture
def make_context(tmp_path: Path) -> Callable[..., EngineContext]:
    """An EngineContext like the loop's, with a state folder that persists between calls."""

    def build(ws: AgentWorkspace, config: EvolveConfig | None = None, cycle: int = 1) -> EngineContext:
        folders = [tmp_path / "engine" / name for name in ("state", "scratch", "output")]
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
        return EngineContext(config or EvolveConfig(), ws, EvolutionHistory(ws.path), *folders, cycle=cycle)

    return build
