"""What an answer to a task is, declared by its benchmark so that techniques apply only where they can help: a
task's ``metadata["answer_kind"]`` overrides its benchmark's `answer_kind` (docs/answer-kinds.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

from agent_evolve.errors import ConfigError
from agent_evolve.types import Task

AnswerKind = Literal["number", "text", "choice", "code", "free", "actions"]
ANSWER_KINDS: tuple[str, ...] = get_args(AnswerKind)
ANSWER_KIND_KEY = "answer_kind"
UNDECLARED: AnswerKind = "free"
"""The kind of a task that declares none: judged by its grader, no kind-specific technique applies."""
SHORT_ANSWER_CHARS = 80
"""The longest reference answer that still reads as `text` (a word, a name, a date, a list) when nothing declares a
kind: a program can print it."""


def check_kind(value: object, where: str) -> AnswerKind:
    """``value`` as an answer kind; a ConfigError naming ``where`` and the known kinds otherwise."""
    if value not in ANSWER_KINDS:
        raise ConfigError(f"{where}: answer kind {value!r} is unknown; known kinds: {', '.join(ANSWER_KINDS)}")
    return value  # type: ignore[return-value]


def declared_kind(task: Task) -> AnswerKind | None:
    """The kind the task's metadata declares; None when it declares none (an unknown value is an error)."""
    value = task.metadata.get(ANSWER_KIND_KEY)
    return None if value is None else check_kind(value, f"task {task.id!r}: metadata['{ANSWER_KIND_KEY}']")


def kind_of(task: Task, default: AnswerKind | None = None) -> AnswerKind:
    """The task's own kind, else ``default`` (its benchmark's declaration), else ``UNDECLARED``."""
    return declared_kind(task) or default or UNDECLARED


def with_kind(metadata: dict, kind: AnswerKind | None) -> dict:
    """``metadata`` with ``kind`` as its answer kind unless it declares one already (or ``kind`` is None)."""
    if kind is None or ANSWER_KIND_KEY in metadata:
        return metadata
    return {**metadata, ANSWER_KIND_KEY: kind}


def short_answers(answers: Iterable[object]) -> bool:
    """Whether there are answers and every one is a single non-empty line of at most `SHORT_ANSWER_CHARS`."""
    lines = [None if answer is None else str(answer).strip() for answer in answers]
    return bool(lines) and all(line and "\n" not in line and len(line) <= SHORT_ANSWER_CHARS for line in lines)
