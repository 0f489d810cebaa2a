"""Core data types shared by every layer: tasks, trajectories, feedback and evolution records."""

from __future__ import annotations

import math
import operator
from dataclasses import asdict, astuple, dataclass, field
from typing import Any, Literal, get_args

StepStatus = Literal["done", "failed", "out_of_budget", "stop"]
STEP_STATUSES: tuple[str, ...] = get_args(StepStatus)


@dataclass
class Task:
    id: str
    input: str
    metadata: dict = field(default_factory=dict)

    @property
    def question(self) -> str:
        """The task's own text without the instruction a benchmark wraps it in (``metadata["question"]``), else
        its input: what worked examples store and retrieval compares."""
        return str(self.metadata.get("question") or self.input)


@dataclass
class Trajectory:
    task_id: str
    output: str
    steps: list[dict] = field(default_factory=list)
    conversation: list[dict] = field(default_factory=list)


@dataclass
class Feedback:
    """The grader's verdict on one attempt. Hidden feedback (``trajectory_only``) is marked, not faked as a failure:
    ``hidden`` is True and ``score`` NaN (``success`` False only because a bool must be something)."""

    success: bool
    score: float
    detail: str = ""
    raw: dict = field(default_factory=dict)

    @classmethod
    def hidden_marker(cls) -> Feedback:
        """Feedback that carries no grade at all: what an engine sees under ``trajectory_only``."""
        return cls(success=False, score=math.nan, detail="", raw={"hidden": True})

    @property
    def hidden(self) -> bool:
        """True when the grade is withheld: neither ``success`` nor ``score`` means anything."""
        return self.raw.get("hidden") is True


@dataclass
class Observation:
    task: Task
    trajectory: Trajectory
    feedback: Feedback

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of `asdict(self)`, built directly: nested lists and dicts are shared, not deep-copied
        (the loop writes every observation of a batch; copying each trajectory dominated large batches)."""
        task, trajectory, feedback = self.task, self.trajectory, self.feedback
        return {
            "task": {"id": task.id, "input": task.input, "metadata": task.metadata},
            "trajectory": {"task_id": trajectory.task_id, "output": trajectory.output, "steps": trajectory.steps,
                           "conversation": trajectory.conversation},
            "feedback": {"success": feedback.success, "score": feedback.score, "detail": feedback.detail,
                         "raw": feedback.raw},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Observation:
        return cls(Task(**data["task"]), Trajectory(**data["trajectory"]), Feedback(**data["feedback"]))


@dataclass
class SkillMeta:
    name: str
    description: str
    path: str


@dataclass
class Usage:
    """Model usage of one call, step or run: calls, tokens and cost in US dollars."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(*map(operator.add, astuple(self), astuple(other)))

    def __sub__(self, other: Usage) -> Usage:
        return Usage(*map(operator.sub, astuple(self), astuple(other)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StepResult:
    """What one engine step did; `usage`: its spending outside the run's metered clients, charged to the budgets (not
    twice); `session`: a host-session handle the next call gets back as `context.session` when resume is enabled."""

    mutated: bool
    summary: str
    metadata: dict = field(default_factory=dict)
    status: StepStatus = "done"
    usage: Usage = field(default_factory=Usage)
    session: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STEP_STATUSES:
            raise ValueError(f"StepResult.status must be one of {STEP_STATUSES}, got {self.status!r}")


@dataclass
class CycleRecord:
    cycle: int
    score: float
    mutated: bool
    engine_name: str = ""
    summary: str = ""
    observation_batch: str = ""
    metadata: dict = field(default_factory=dict)


@dataclass
class EvolutionResult:
    cycles_completed: int
    final_score: float
    score_history: list[float] = field(default_factory=list)
    converged: bool = False
    details: dict = field(default_factory=dict)
