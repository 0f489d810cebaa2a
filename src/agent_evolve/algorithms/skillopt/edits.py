"""SkillOpt's pure parts: bounded edits to one skill's body, the learning rate that bounds them, the strict gate.

Edits act on the body only and their text is capped, so one edit cannot rewrite the document. The learning rate
follows the `skillopt` package's schedulers (`constant`, `linear`, `cosine` from `max_lr` to `min_lr` over
`total_steps`, 1-indexed); without `total_steps` it stays at `max_lr`. A candidate is kept only on a strict
improvement of its validation score.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from agent_evolve.errors import ConfigError

EditOp = Literal["add", "delete", "replace"]
GateAction = Literal["accept_new_best", "accept", "reject"]
OPS: tuple[str, ...] = ("add", "delete", "replace")
MAX_EDIT_CHARS = 800
MODES: tuple[str, ...] = ("constant", "linear", "cosine")


class SkillEditError(ValueError):
    """A proposed edit is malformed (unknown op, missing target or content, too long)."""


@dataclass(frozen=True)
class SkillEdit:
    """One edit: `add` appends `content` (after `target` when given); `delete`/`replace` need `target`."""

    op: EditOp
    content: str = ""
    target: str = ""

    @classmethod
    def from_dict(cls, data: Any) -> SkillEdit:
        """Parse and check one proposed edit; raise SkillEditError naming the problem."""
        if not isinstance(data, dict):
            raise SkillEditError(f"an edit must be an object, got {type(data).__name__}")
        op, content, target = data.get("op"), str(data.get("content", "")).strip(), str(data.get("target", ""))
        if op not in OPS:
            raise SkillEditError(f"edit op must be one of {list(OPS)}, got {op!r}")
        if op in ("delete", "replace") and not target.strip():
            raise SkillEditError(f"a {op} edit needs a target (text of the skill to {op})")
        if op in ("add", "replace") and not content:
            raise SkillEditError(f"an {op} edit needs content")
        if len(content) > MAX_EDIT_CHARS:
            raise SkillEditError(f"edit content is {len(content)} characters; at most {MAX_EDIT_CHARS}")
        return cls(op, content, target)

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class AppliedEdits:
    """The new body, the edits that changed it, and the ones skipped with their reason."""

    body: str
    applied: tuple[SkillEdit, ...]
    skipped: tuple[tuple[SkillEdit, str], ...]


def bound(edits: list[SkillEdit], learning_rate: int) -> list[SkillEdit]:
    """The first `learning_rate` distinct edits, in the proposer's priority order."""
    return list(dict.fromkeys(edits))[: max(0, learning_rate)]


def apply_one(body: str, edit: SkillEdit) -> tuple[str, str]:
    """Apply one edit; return the new body and '' or the reason it was not applied."""
    if edit.op == "add":
        if edit.target and edit.target in body:
            at = body.find("\n", body.index(edit.target) + len(edit.target)) + 1 or len(body)  # after its line
            return body[:at] + edit.content + "\n" + body[at:], ""
        return body.rstrip() + "\n\n" + edit.content + "\n", ""
    if edit.target not in body:
        return body, f"target not found: {edit.target[:60]!r}"
    return body.replace(edit.target, edit.content if edit.op == "replace" else "", 1), ""


def apply_edits(body: str, edits: list[SkillEdit], learning_rate: int) -> AppliedEdits:
    """Apply at most `learning_rate` edits in order; edits past the cap are neither applied nor reported."""
    applied: list[SkillEdit] = []
    skipped: list[tuple[SkillEdit, str]] = []
    for edit in bound(edits, learning_rate):
        new_body, reason = apply_one(body, edit)
        if reason or new_body == body:
            skipped.append((edit, reason or "no change"))
        else:
            body = new_body
            applied.append(edit)
    return AppliedEdits(body, tuple(applied), tuple(skipped))


@dataclass(frozen=True)
class LearningRate:
    """Edits per step: `max_lr` at the start, `min_lr` at `total_steps` (when known)."""

    max_lr: int = 4
    min_lr: int = 2
    total_steps: int | None = None
    mode: str = "cosine"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"skillopt: unknown lr_schedule {self.mode!r}; known: {list(MODES)}")
        if not 1 <= self.min_lr <= self.max_lr:
            raise ConfigError(f"skillopt: need 1 <= min_lr <= max_lr, got {self.min_lr} and {self.max_lr}")

    def at(self, step: int) -> int:
        """The edit cap of 1-indexed `step`."""
        if self.mode == "constant" or not self.total_steps or self.total_steps <= 1:
            return self.max_lr
        t = min(step, self.total_steps) / self.total_steps
        if self.mode == "linear":
            rate = self.max_lr + (self.min_lr - self.max_lr) * t
        else:
            rate = self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (1 + math.cos(math.pi * t))
        return max(self.min_lr, round(rate))


@dataclass(frozen=True)
class ValidationDecision:
    """The action and the scores after it: what the engine keeps as current and best."""

    action: GateAction
    candidate_score: float
    current_score: float
    best_score: float
    best_step: int

    @property
    def accepted(self) -> bool:
        return self.action != "reject"


def validation_gate(candidate: float, current: float, best: float, best_step: int, step: int) -> ValidationDecision:
    """Accept when `candidate > current` (strictly); a new best when it also beats `best`."""
    if candidate > current:
        if candidate > best:
            return ValidationDecision("accept_new_best", candidate, candidate, candidate, step)
        return ValidationDecision("accept", candidate, candidate, best, best_step)
    return ValidationDecision("reject", candidate, current, best, best_step)
