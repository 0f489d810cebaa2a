"""What a learner CLI reads: Hermit's learning material and LEARNER.md (what it may edit, the skill format, checks).

The material is `current/summary.json` and `current/tasks/<id>.json`, earlier steps archived as `step_NNNN/`; only
the cycle's train observations are written, holdout and validation never.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import atomic_write
from agent_evolve.types import Observation

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
INSTRUCTIONS_NAME = "LEARNER.md"
MATERIAL_NAME = "learning_material"
LAYER_HINTS = {
    "prompts": "prompts/system.md (the agent's system prompt) and prompts/fragments/*",
    "skills": "skills/<name>/SKILL.md (Agent Skills the agent can load)",
    "memory": "memory/<category>.jsonl (one JSON object per line, with a `content` field)",
    "tools": "tools/registry.yaml and tools/* (tools the agent may call)",
}


def task_record(observation: Observation, hidden: bool) -> dict[str, Any]:
    """One task's file: input, output, score, feedback and trajectory (no score or feedback when hidden)."""
    o = observation
    record: dict[str, Any] = {"task_id": o.task.id, "input": o.task.input, "output": o.trajectory.output,
                              "trajectory": {"steps": o.trajectory.steps, "conversation": o.trajectory.conversation}}
    if not hidden:
        record["judge"] = {"score": o.feedback.score, "success": o.feedback.success, "feedback": o.feedback.detail}
    return record


def summary(step: int, observations: list[Observation], hidden: bool) -> dict[str, Any]:
    """The step's summary: its number, the task count and, unless hidden, the mean score and solved count."""
    data: dict[str, Any] = {"step": step, "tasks": len(observations)}
    if not hidden:
        data["mean_score"] = sum(o.feedback.score for o in observations) / len(observations) if observations else 0.0
        data["solved"] = sum(o.feedback.success for o in observations)
    return data


def write_material(folder: Path, step: int, observations: list[Observation], hidden: bool) -> Path:
    """Archive the previous `current/` (unless it is this step's, from an interrupted try) and write this step's."""
    current = folder / "current"
    previous = current / "summary.json"
    if previous.is_file():
        earlier = int(json.loads(previous.read_text(encoding="utf-8")).get("step", 0))
        archive = folder / f"step_{earlier:04d}"
        if earlier != step and not archive.exists():
            current.rename(archive)
    shutil.rmtree(current, ignore_errors=True)
    for o in observations:
        atomic_write(current / "tasks" / f"{_UNSAFE.sub('_', o.task.id)}.json",
                     json.dumps(task_record(o, hidden), indent=1, default=str))
    atomic_write(previous, json.dumps(summary(step, observations, hidden), indent=1))
    return current


def instructions(layers: list[str], step: int, hidden: bool) -> str:
    """The text of LEARNER.md for this step."""
    editable = "\n".join(f"- {LAYER_HINTS[layer]}" for layer in layers if layer in LAYER_HINTS)
    scores = ("Scores and feedback are hidden in this run: judge from the inputs and outputs." if hidden else
              "Each task file has `judge.score` (0 to 1), `judge.success` and `judge.feedback`.")
    return f"""# You are improving an agent (step {step})

An agent solved a batch of tasks with the files in this folder. Change those files so that it solves more tasks
of this kind next time. Your change is then scored on tasks you cannot see; it is kept only if it helps.

## What you may edit (nothing else is kept)
{editable}

## The evidence
- `{MATERIAL_NAME}/current/summary.json`: this step's batch (task count, mean score).
- `{MATERIAL_NAME}/current/tasks/<id>.json`: per task the `input`, the agent's `output`, its `trajectory`.
  {scores}
- `{MATERIAL_NAME}/step_NNNN/`: earlier steps, the same layout (read-only).

## The skill format (Agent Skills)
`skills/<name>/SKILL.md` starts with YAML frontmatter, then markdown instructions:

    ---
    name: <name: 1-64 lowercase letters, digits and single hyphens, equal to the folder name>
    description: "TRIGGER when: <when to use it>. DO NOT TRIGGER: <when not to>."
    ---

    <short, general instructions>

## Before you finish
Run `check_spec` (no arguments): it validates the workspace as the trainer will and lists every problem.
Fix what it reports. Prefer a few general lessons over rules for single tasks; keep the prompt short.
"""
