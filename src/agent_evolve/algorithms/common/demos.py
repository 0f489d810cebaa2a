"""Demonstrations bootstrapped from the agent's own graded-correct train solutions (DSPy's bootstrapped few-shot).

Only fully correct, visible, untruncated solutions become demos; candidate sets are drawn deterministically and
rendered as `prompts/fragments/demos.md`; which set (if any) is kept is measured, not assumed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from agent_evolve.agents.answering.program import worked_solution
from agent_evolve.algorithms.common.evidence import cut_at_limit
from agent_evolve.types import Observation

DEMO_FRAGMENT = "demos.md"  # prompts/fragments/demos.md
DEMO_CHARS = 900  # a longer solution is not used as a demo (a 1.5B model has a 4k context)
DEMO_HEADING = "# Worked examples\nThese problems were solved correctly. Solve the new problem the same way."


@dataclass(frozen=True)
class Demo:
    """One train task the agent solved correctly: the question and the agent's own solution."""

    task_id: str
    question: str
    solution: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> Demo:
        return cls(str(data["task_id"]), str(data["question"]), str(data["solution"]))


def verified_demos(observations: Sequence[Observation], max_chars: int = DEMO_CHARS) -> list[Demo]:
    """Demos from the observations graded fully correct (hidden feedback, truncated or long answers never)."""
    demos = []
    for obs in observations:
        feedback = obs.feedback
        graded_right = feedback.success and feedback.score >= 1.0 and not feedback.raw.get("hidden")
        if not graded_right or cut_at_limit(obs.trajectory.steps):
            continue
        run = obs.trajectory
        solution = worked_solution(run.output or "", run.steps, run.conversation).strip()
        if solution and len(solution) <= max_chars:
            demos.append(Demo(obs.task.id, obs.task.question.strip(), solution))
    return demos


def merge_pool(pool: Sequence[Demo], new: Sequence[Demo], limit: int) -> list[Demo]:
    """The pool with `new` demos added (a task id once, its newest solution), the newest `limit` kept."""
    fresh = {d.task_id for d in new}
    merged = [d for d in pool if d.task_id not in fresh] + list(new)
    return merged[-limit:] if limit > 0 else []


def demo_sets(pool: Sequence[Demo], size: int, count: int, seed: str, current: Sequence[str] = ()) -> list[list[Demo]]:
    """Up to `count` distinct candidate sets of `size` demos, deterministic for a seed: the shortest solutions
    first, then random draws; the workspace's set (`current`, task ids) is never proposed again, and a question
    asked twice in the pool (tasks with the same text) is shown once, with its newest solution."""
    pool = list({d.question: d for d in pool}.values())
    if size < 1 or count < 1 or not pool:
        return []
    size = min(size, len(pool))
    seen = {frozenset(current)} if current else set()
    sets: list[list[Demo]] = []
    proposals = [sorted(pool, key=lambda d: (len(d.solution), d.task_id))[:size]]
    rng = random.Random(seed)
    proposals += [rng.sample(list(pool), size) for _ in range(4 * count)]
    for demos in proposals:
        key = frozenset(d.task_id for d in demos)
        if key not in seen:
            seen.add(key)
            sets.append(sorted(demos, key=lambda d: d.task_id))
        if len(sets) == count:
            break
    return sets


def render_demos(demos: Sequence[Demo]) -> str:
    """The fragment text: a heading, then each demo's question and solution."""
    blocks = [f"## Example {i}\nQuestion: {d.question}\nSolution:\n{d.solution}" for i, d in enumerate(demos, 1)]
    return DEMO_HEADING + "\n\n" + "\n\n".join(blocks) + "\n"


def demos_in(fragment: str, pool: Sequence[Demo]) -> list[str]:
    """Task ids of the pool's demos whose question and solution the fragment shows (the workspace's current set)."""
    return [d.task_id for d in pool if f"Question: {d.question}\nSolution:\n{d.solution}" in fragment]
