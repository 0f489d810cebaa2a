"""Worked examples from experience memory: the k whose inputs are nearest a task (tf-idf cosine, indexed once per
memory version), shown as demonstrations; a task is never shown its own example."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent_evolve.contract.experience import (EXPERIENCE_CATEGORY, Example, ExperienceSettings, read_experience,
                                              read_experience_settings)
from agent_evolve.text import TfIdfIndex

EXPERIENCE_HEADING = "# Solved examples\nSimilar problems you solved correctly. Solve the new problem the same way."


@lru_cache(maxsize=16)
def experience_index(inputs: tuple[str, ...]) -> TfIdfIndex:
    """The tf-idf index over one memory version's example inputs, built once and shared."""
    return TfIdfIndex(list(inputs))


@dataclass(frozen=True)
class Experience:
    """One memory version: its examples and how they are shown; :meth:`nearest` answers a task."""

    examples: list[Example] = field(default_factory=list)
    settings: ExperienceSettings = field(default_factory=ExperienceSettings)

    def nearest(self, task_input: str, k: int | None = None) -> list[tuple[Example, float]]:
        """Up to ``k`` (default: the settings' k) examples most similar to the task, best first, score > 0."""
        if not self.examples:
            return []
        count = self.settings.k if k is None else k
        index = experience_index(tuple(e.input for e in self.examples))
        return [(self.examples[i], score) for i, score in index.top(task_input, count)]

    def demonstrations(self, task_input: str, task_id: str = "") -> tuple[str, list[str]]:
        """The prompt section for a task and the ids of its examples ("" and [] when none is near); a task is never
        shown its own example (a train task solved again must not read its verified answer)."""
        nearest = [e for e, _ in self.nearest(task_input, self.settings.k + 1) if e.task_id != task_id]
        return render_examples(nearest[: self.settings.k], self.settings)


def load_experience(root: Path) -> Experience:
    """The workspace's experience memory and its settings (no examples when ``memory/experience.jsonl`` is absent)."""
    return Experience(read_experience(root), read_experience_settings(root))


def without_experience(memories: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The memory entries other than worked examples (those are shown by similarity, not as memory lines)."""
    return [m for m in memories if m.get("category") != EXPERIENCE_CATEGORY]


def render_examples(examples: Sequence[Example], settings: ExperienceSettings) -> tuple[str, list[str]]:
    """The examples in the settings' form, nearest first, as many as fit ``max_chars``; and their ids."""
    blocks: list[str] = []
    shown: list[str] = []
    used = len(EXPERIENCE_HEADING)
    for example in examples:
        block = f"## Example {len(blocks) + 1}\nProblem: {example.input}\nSolution:\n{example.shown(settings.form)}"
        if used + len(block) + 2 > settings.max_chars:
            break
        blocks.append(block)
        shown.append(example.task_id)
        used += len(block) + 2
    if not blocks:
        return "", []
    return EXPERIENCE_HEADING + "\n\n" + "\n\n".join(blocks), shown


def with_demonstrations(base: str, section: str) -> str:
    """The base prompt followed by the retrieved examples' section (the base alone when there is none)."""
    return f"{base.rstrip()}\n\n{section}\n" if section else base
