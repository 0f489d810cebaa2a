"""A user's own tasks file (one JSON object per line, docs/benchmarks.md) with a grader: exact, regex, numeric, or a
Python function; answers never reach the agent, a Python grader gets them in the task's metadata."""

from __future__ import annotations

import importlib
import json
import math
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.answer_kinds import ANSWER_KIND_KEY, AnswerKind, check_kind, short_answers
from agent_evolve.benchmarks.support.answers import extract_number, grade_number, parse_number
from agent_evolve.benchmarks.base import SPLITS
from agent_evolve.benchmarks.support.splits import (PathLike, ServedBenchmark, TaskSplits, apply_subset, lookup,
                                                     split_ids)
from agent_evolve.errors import AgentEvolveError, ConfigError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.types import Feedback, Task, Trajectory

GraderFunction = Callable[[Task, str], "bool | float | Feedback"]
BUILTIN_GRADERS = ("exact", "regex", "numeric")
KEYS = frozenset({"id", "input", "answer", "expected", "split", ANSWER_KIND_KEY, "metadata"})


@dataclass
class JsonlRow:
    """One validated line of a tasks file."""

    task: Task
    answer: Any
    split: str | None
    pattern: re.Pattern[str] | None = field(default=None, repr=False)


def load_grader(spec: str | GraderFunction) -> GraderFunction | str:
    """A callable as given, a built-in grader's name, or the function named by "python:module:function"."""
    if callable(spec) or spec in BUILTIN_GRADERS:
        return spec
    if not isinstance(spec, str) or not spec.startswith("python:") or spec.count(":") != 2:
        raise ConfigError(f"unknown grader {spec!r}; use one of {BUILTIN_GRADERS}, 'python:module:function' or a "
                          "callable")
    _, module_name, function_name = spec.split(":")
    try:
        function = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"grader {spec!r}: cannot load {function_name!r} from module {module_name!r}: "
                          f"{exc}") from exc
    if not callable(function):
        raise ConfigError(f"grader {spec!r}: {module_name}.{function_name} is not callable")
    return function


def parse_row(data: Any, where: str, number: int | str, grader: GraderFunction | str | None = None,
              flags: int = 0) -> JsonlRow:
    """Validate one task mapping (a line of a file, an item of a list; `number` is its default id); every problem
    is a ConfigError starting with `where`. Only a built-in grader (a name) needs a reference answer."""

    def fail(what: str) -> ConfigError:
        return ConfigError(f"{where}: {what}")

    if not isinstance(data, dict):
        raise fail(f"expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise fail(f"unknown keys {unknown}; allowed: {sorted(KEYS)}")
    task_id = data.get("id", number)
    if isinstance(task_id, bool) or not isinstance(task_id, str | int) or str(task_id).strip() == "":
        raise fail(f"'id' must be a non-empty string or an integer, got {task_id!r}")
    if not isinstance(data.get("input"), str) or not data["input"].strip():
        raise fail("missing 'input' (a non-empty string)")
    if "answer" in data and "expected" in data:
        raise fail("give either 'answer' or 'expected', not both")
    answer = data.get("answer", data.get("expected"))
    if answer is None and isinstance(grader, str):
        raise fail(f"missing 'answer' (or 'expected'), which the {grader!r} grader needs")
    if isinstance(grader, str) and (isinstance(answer, bool) or not isinstance(answer, str | int | float)):
        raise fail(f"'answer' must be a string or a number for the {grader!r} grader, got {_short(json.dumps(answer))}"
                   "; write a list as one string of its items, e.g. \"apple, fig, pear\"")
    if isinstance(grader, str) and isinstance(answer, float) and not math.isfinite(answer):
        raise fail(f"'answer' must be a finite number for the {grader!r} grader, got {answer!r}")
    split = data.get("split")
    if split is not None and split not in SPLITS:
        raise fail(f"'split' must be one of {SPLITS}, got {split!r}")
    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict):
        raise fail("'metadata' must be a JSON object")
    kind = data.get(ANSWER_KIND_KEY, metadata.get(ANSWER_KIND_KEY))
    if kind is not None:
        metadata = {**metadata, ANSWER_KIND_KEY: check_kind(kind, where)}
    pattern = None
    if grader == "regex":
        try:
            pattern = re.compile(str(answer), flags)
        except re.error as exc:
            raise fail(f"'answer' is not a valid regular expression: {exc}") from None
    if grader == "numeric" and extract_number(str(answer)) is None:
        raise fail(f"'answer' {answer!r} is not a number, which the 'numeric' grader needs")
    task = Task(id=str(task_id), input=data["input"], metadata=metadata)
    return JsonlRow(task=task, answer=answer, split=split, pattern=pattern)


def read_rows(path: Path, grader: GraderFunction | str, flags: int) -> list[JsonlRow]:
    """All rows of a tasks file, blank lines skipped; duplicate ids and empty files rejected."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read tasks file {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"tasks file {path} is not UTF-8 text: {exc}") from exc
    rows: list[JsonlRow] = []
    first_line: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        where = f"{path}, line {number}"
        try:
            data = parse_json(text, where, ConfigError)
        except ConfigError as exc:
            if text.strip() not in ("[", "{"):
                raise
            raise ConfigError(f"{exc}; a tasks file holds one whole JSON object per line (JSONL), not one JSON "
                              "value spread over several lines") from None
        row = parse_row(data, where, number, grader, flags)
        if row.task.id in first_line:
            raise ConfigError(f"{where}: duplicate id {row.task.id!r} (first on line {first_line[row.task.id]})")
        first_line[row.task.id] = number
        rows.append(row)
    if not rows:
        raise ConfigError(f"tasks file {path} holds no tasks")
    return rows


def default_kind(grader: GraderFunction | str, answers: list[Any]) -> AnswerKind:
    """The kind of a file's tasks that declare none: `text` with the exact grader (a program answer never matches a
    whole reply), `number` with the numeric one or when every reference answer is a number, `text` when every one
    is a short line, else `free`."""
    if grader == "exact":
        return "text"
    if grader == "numeric" or (answers and all(parse_number(str(a).strip()) is not None for a in answers)):
        return "number"
    return "text" if short_answers(answers) else "free"


def to_feedback(result: object, grader_name: str, task_id: str) -> Feedback:
    """A Python grader's bool, number in [0, 1] (success only at 1), (score, feedback text) pair or Feedback,
    as Feedback."""
    if isinstance(result, Feedback):
        return result
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], str):
        graded = to_feedback(result[0], grader_name, task_id)
        return Feedback(graded.success, graded.score, result[1])
    if isinstance(result, bool):
        return Feedback(result, float(result), "correct" if result else "incorrect")
    if isinstance(result, int | float) and 0.0 <= result <= 1.0:
        return Feedback(result >= 1.0, float(result), f"score {result:g}")
    raise AgentEvolveError(f"grader {grader_name} returned {result!r} for task {task_id!r}; expected a bool, a number "
                           "in [0, 1], a (score, feedback text) pair or Feedback")


def _short(text: str, limit: int = 80) -> str:
    """`text` cut to `limit` characters, for feedback details."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class JsonlBenchmark(ServedBenchmark):
    """Tasks from a JSONL file; rows with a 'split' keep it, the rest are split by seed and test_fraction."""

    name = "jsonl"

    def __init__(self, path: PathLike, grader: str | GraderFunction = "exact", seed: int = 0,
                 test_fraction: float = 0.2, answer_kind: str | None = None, subset: PathLike | None = None,
                 ignore_case: bool = False, strip_punctuation: bool = False) -> None:
        self.path = Path(path)
        self.grader = load_grader(grader)
        self.ignore_case = ignore_case
        self.strip_punctuation = strip_punctuation
        self._grader_name = self.grader if isinstance(self.grader, str) else getattr(grader, "__name__", str(grader))
        rows = read_rows(self.path, self.grader, re.IGNORECASE if ignore_case else 0)
        self.answer_kind = (default_kind(self.grader, [row.answer for row in rows]) if answer_kind is None
                            else check_kind(answer_kind, f"tasks file {self.path}"))
        self._rows = {row.task.id: row for row in rows}
        self._tasks = {row.task.id: row.task for row in rows}
        fixed = {row.task.id: row.split for row in rows if row.split is not None}
        self.splits: TaskSplits = apply_subset(split_ids(list(self._rows), seed, test_fraction, fixed), subset)

    def answer(self, task_id: str) -> Any:
        """The reference answer of `task_id`, for graders and tests."""
        return lookup(self._rows, task_id, f"a task of {self.path}").answer

    def _exact_key(self, text: str) -> str:
        """What the exact grader compares: `text`, case-folded with ignore_case, without the punctuation at its
        ends with strip_punctuation (`Paris.` then matches `Paris`)."""
        if self.strip_punctuation:
            text = text.strip(string.punctuation + string.whitespace)
        return text.casefold() if self.ignore_case else text

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Grade the output with the configured grader."""
        row = lookup(self._rows, task.id, f"a task of {self.path}")
        output = trajectory.output
        if callable(self.grader):
            graded = Task(id=row.task.id, input=row.task.input, metadata={**row.task.metadata, "answer": row.answer})
            try:
                result = self.grader(graded, output)
            except Exception as exc:
                raise AgentEvolveError(f"grader {self._grader_name} failed on task {task.id!r}: {exc!r}") from exc
            return to_feedback(result, self._grader_name, task.id)
        expected = str(row.answer)
        if self.grader == "exact":
            got, want = output.strip(), expected.strip()
            success = self._exact_key(got) == self._exact_key(want)
            detail = "exact match" if success else f"expected {_short(want)!r}, got {_short(got)!r}"
        elif self.grader == "regex":
            success = row.pattern is not None and row.pattern.search(output) is not None
            detail = f"output {'matches' if success else 'does not match'} /{_short(expected)}/"
        else:
            success, _, detail = grade_number(output, expected)
        return Feedback(success, 1.0 if success else 0.0, detail, {"grader": self.grader, "expected": expected})
