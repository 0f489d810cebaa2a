"""reasoning-mini: short-answer reasoning tasks generated from a seed, graded by Python, offline (BBH style).

``per_family`` tasks of each of nine families (``reasoning_families``) come from ``data_seed`` and split by
``seed``; ``reasoning-mini:date,weekday`` serves only the families named (docs/answer-kinds.md).
"""

from __future__ import annotations

import random

from agent_evolve.benchmarks.support.splits import (PathLike, ServedBenchmark, TaskSplits, apply_subset, lookup,
                                                     split_ids)
from agent_evolve.benchmarks.suites.reasoning_families import FAMILIES, Puzzle
from agent_evolve.benchmarks.suites.reasoning_grading import grade
from agent_evolve.errors import ConfigError
from agent_evolve.types import Feedback, Task, Trajectory

INSTRUCTION = "Answer the question. Think briefly, then end with a last line of the form `Answer: <answer>`."
ATTEMPTS_PER_TASK = 50
"""Draws allowed per task before a family is judged too small for the count asked (duplicates are redrawn)."""


def generate(family: str, count: int, data_seed: int = 0) -> list[Puzzle]:
    """``count`` distinct puzzles of ``family``, the same for the same seed; a ConfigError when it has fewer."""
    make = FAMILIES[family]
    rng = random.Random(f"reasoning-mini:{data_seed}:{family}")
    puzzles: dict[str, Puzzle] = {}
    for _ in range(count * ATTEMPTS_PER_TASK):
        if len(puzzles) == count:
            break
        puzzle = make(rng)
        puzzles.setdefault(puzzle.question, puzzle)
    if len(puzzles) < count:
        raise ConfigError(f"reasoning-mini: family {family!r} has fewer than {count} distinct tasks")
    return list(puzzles.values())


def parse_families(value: str | list[str] | None) -> list[str]:
    """Family names from a comma-separated string or a list (None: all); a ConfigError names unknown ones."""
    names = list(FAMILIES) if value is None else value.split(",") if isinstance(value, str) else list(value)
    names = [name.strip() for name in names if name.strip()]
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown or not names:
        raise ConfigError(f"reasoning-mini: unknown families {unknown}; known: {', '.join(FAMILIES)}")
    return names


class ReasoningMiniBenchmark(ServedBenchmark):
    """Generated short-answer reasoning tasks; ``evaluate`` grades the final answer by the family's mode."""

    name = "reasoning-mini"

    def __init__(self, families: str | list[str] | None = None, seed: int = 0, test_fraction: float = 0.5,
                 per_family: int = 60, data_seed: int = 0, subset: PathLike | None = None) -> None:
        if per_family < 1:
            raise ConfigError(f"reasoning-mini: per_family must be at least 1, got {per_family}")
        self._puzzles: dict[str, tuple[str, Puzzle]] = {}
        for family in parse_families(families):
            for index, puzzle in enumerate(generate(family, per_family, data_seed)):
                self._puzzles[f"reasoning/{family}/{index}"] = (family, puzzle)
        self._tasks = {task_id: Task(task_id, f"{INSTRUCTION}\n\n{puzzle.question}", {
            "question": puzzle.question, "family": family,
            "answer_kind": "number" if puzzle.grading == "number" else "text"})
            for task_id, (family, puzzle) in self._puzzles.items()}
        self.splits: TaskSplits = apply_subset(split_ids(list(self._puzzles), seed, test_fraction), subset)

    def puzzle(self, task_id: str) -> Puzzle:
        """The puzzle behind ``task_id`` (its answer included), for the grader and tests."""
        return self._entry(task_id)[1]

    def _entry(self, task_id: str) -> tuple[str, Puzzle]:
        """The family and puzzle of ``task_id``, or a ConfigError naming the id."""
        return lookup(self._puzzles, task_id, "a reasoning-mini task")

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Success when the reply's final answer is the puzzle's answer under its family's grading."""
        family, puzzle = self._entry(task.id)
        success, given = grade(puzzle, trajectory.output)
        raw = {"expected": puzzle.answer, "extracted": given, "family": family, "grading": puzzle.grading}
        detail = f"correct: {puzzle.answer}" if success else (
            f"expected {puzzle.answer!r}, got {given!r}" if given else "no answer found in output")
        return Feedback(success, 1.0 if success else 0.0, detail, raw)
