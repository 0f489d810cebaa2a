"""reasoning-mini: short-answer reasoning tasks generated from ``data_seed``, graded offline by the family's mode
(BBH style, see `grade`); ``reasoning-mini:date,weekday`` serves only the families named (docs/answer-kinds.md)."""

from __future__ import annotations

import datetime
import random
import re

from agent_evolve.benchmarks.support.answers import extract_number, numbers_equal
from agent_evolve.benchmarks.support.splits import (PathLike, ServedBenchmark, TaskSplits, apply_subset, lookup,
                                                     split_ids)
from agent_evolve.benchmarks.suites.reasoning_families import FAMILIES, Puzzle
from agent_evolve.errors import ConfigError
from agent_evolve.types import Feedback, Task, Trajectory

INSTRUCTION = "Answer the question. Think briefly, then end with a last line of the form `Answer: <answer>`."
ATTEMPTS_PER_TASK = 50
"""Draws allowed per task before a family is judged too small for the count asked (duplicates are redrawn)."""
_ANSWER_LINE = re.compile(r"^[\s*#>_`]*(?:final\s+)?answer(?:\s+is)?\s*\**\s*[:=]\s*(.*)$",
                          re.IGNORECASE | re.MULTILINE)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_MONTHS = {name.lower(): index for index, name in enumerate(
    ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
     "December"), start=1)}
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_WRITTEN = re.compile(r"\b([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_WRITTEN_DAY_FIRST = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z]+),?\s+(\d{4})\b")
_SLASHED = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_DATE_FORMS = ((_ISO, 1, 2, 3), (_WRITTEN, 3, 1, 2), (_WRITTEN_DAY_FIRST, 3, 2, 1), (_SLASHED, 3, 1, 2))
"""Each date pattern, tried in order, with the groups of its year, month (a number or a name) and day."""


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


def final_answer(output: str) -> str:
    """The text after the last ``Answer:`` line, else the last non-empty line; a \\boxed{} answer unwrapped."""
    found = _ANSWER_LINE.findall(output)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    text = found[-1].strip() if found else (lines[-1] if lines else "")
    boxed = _BOXED.findall(text)
    return boxed[-1] if boxed else text


def normalise(text: str) -> str:
    """Lower case, surrounding quotes, stars and backticks, a trailing period and a leading "the" dropped."""
    text = " ".join(text.strip().strip("*`'\"").strip().rstrip(".").split()).casefold()
    return text.removeprefix("the ").strip("*`'\" ")


def list_items(text: str) -> list[str]:
    """The items of a list answer: split at commas (or at spaces when there is no comma), normalised."""
    text = text.strip().strip("[]")
    parts = text.split(",") if "," in text else text.split()
    return [normalise(part) for part in parts if normalise(part)]


def parse_date(text: str) -> datetime.date | None:
    """The first date in ``text``: 2021-03-05, March 5, 2021, 5 March 2021 or 03/05/2021 (month first)."""
    for pattern, year, month, day in _DATE_FORMS:
        if match := pattern.search(text):
            name = match[month]
            try:
                return datetime.date(int(match[year]), int(name) if name.isdigit() else _MONTHS.get(name.lower(), 0),
                                     int(match[day]))
            except ValueError:
                continue
    return None


def grade(puzzle: Puzzle, output: str) -> tuple[bool, str]:
    """Whether the reply's final answer (after its last ``Answer:`` line) is the puzzle's answer by the family's mode
    (numbers as values, text and lists normalised, dates as calendar days), and the answer as read (for feedback)."""
    given = final_answer(output)
    if puzzle.grading == "number":
        number = extract_number(given if _ANSWER_LINE.search(output) else output)
        return numbers_equal(number, puzzle.answer), number or ""
    if puzzle.grading == "list":
        return list_items(given) == list_items(puzzle.answer), given
    if puzzle.grading == "date":
        day = parse_date(given)
        return day is not None and day.isoformat() == puzzle.answer, given
    accepted = {normalise(puzzle.answer), *(normalise(alias) for alias in puzzle.aliases)}
    return normalise(given) in accepted, given


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
        return lookup(self._puzzles, task_id, "a reasoning-mini task")[1]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Success when the reply's final answer is the puzzle's answer under its family's grading."""
        family, puzzle = lookup(self._puzzles, task.id, "a reasoning-mini task")
        success, given = grade(puzzle, trajectory.output)
        raw = {"expected": puzzle.answer, "extracted": given, "family": family, "grading": puzzle.grading}
        detail = f"correct: {puzzle.answer}" if success else (
            f"expected {puzzle.answer!r}, got {given!r}" if given else "no answer found in output")
        return Feedback(success, 1.0 if success else 0.0, detail, raw)
