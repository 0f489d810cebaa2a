"""Helpers of the engine tests: a manifest, gsm8k-like observations, skills and byte snapshots."""

from __future__ import annotations

from pathlib import Path

from agent_evolve.contract.workspace import AgentWorkspace
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


def add_skill(ws: AgentWorkspace, name: str, description: str, body: str) -> None:
    ws.write_skill(name, skill_text(name, description, body))


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under the workspace except the run records and git."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not {"evolution", ".git"} & set(p.relative_to(root).parts)}


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
    task = Task(task_id, f"{INSTRUCTION}\n\n{question}", {"question": question, "answer_kind": "number"})
    return Observation(task, Trajectory(task_id, output, steps=steps), feedback)
