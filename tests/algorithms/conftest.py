"""Fixtures of the engine tests: small workspaces, gsm8k-like observations, byte snapshots."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evolve.config import EvolveConfig
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EngineContext
from agent_evolve.types import Feedback, Observation, Task, Trajectory

MANIFEST = """\
name: t
version: 0.1.0
contract_version: "1.0"
agent: {type: reference, entrypoint: agent_evolve.agents.reference.ReferenceAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""
INSTRUCTION = "Solve the following math problem step by step. End with a last line of the form `Answer: <number>`."
PROMPT = "You solve grade-school math problems carefully.\n"


def skill_text(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: \"{description}\"\n---\n\n{body}\n"


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


def add_skill(ws: AgentWorkspace, name: str, description: str, body: str) -> None:
    ws.write_skill(name, skill_text(name, description, body))


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under the workspace except the run records."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "evolution" not in p.relative_to(root).parts}


def gsm_obs(task_id: str, question: str, output: str, *, expected: str = "18", extracted: str | None = None,
            skills: list[str] | None = None) -> Observation:
    """An observation graded the way GSM8KBenchmark grades it."""
    steps = [{"type": "skills", "injected": skills}] if skills else []
    raw = {"expected": expected, "extracted": extracted}
    if extracted is None:
        feedback = Feedback(False, 0.0, "no number found in output", raw)
    elif extracted == expected:
        feedback = Feedback(True, 1.0, f"correct: {expected}", raw)
    else:
        feedback = Feedback(False, 0.0, f"expected {expected}, got {extracted}", raw)
    task = Task(task_id, f"{INSTRUCTION}\n\n{question}", {"question": question})
    return Observation(task, Trajectory(task_id, output, steps=steps), feedback)


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
        return EngineContext(config or EvolveConfig(), ws, None, *folders, cycle=cycle)  # type: ignore[arg-type]

    return build
