"""The instructions file a learner CLI reads first: what it may edit, the skill format, how to check its work."""

from __future__ import annotations

INSTRUCTIONS_NAME = "LEARNER.md"
MATERIAL_NAME = "learning_material"
LAYER_HINTS = {
    "prompts": "prompts/system.md (the agent's system prompt) and prompts/fragments/*",
    "skills": "skills/<name>/SKILL.md (Agent Skills the agent can load)",
    "memory": "memory/<category>.jsonl (one JSON object per line, with a `content` field)",
    "tools": "tools/registry.yaml and tools/* (tools the agent may call)",
}


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
