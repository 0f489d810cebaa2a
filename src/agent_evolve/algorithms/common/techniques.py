"""The techniques the demos engine can turn on, each with the answer kinds it applies to and its cost per task.

A technique is proposed only for a batch holding tasks of a kind it applies to, and its trigger counts only the
failures of those tasks (``applicable``): an exact-match text task file never gets numeric cross-checks or a
numeric answer form, whatever its graders' feedback says. Costs are per task against one plain answer, at the
engine's defaults: ``solves`` the most model answers a task can take, ``tokens`` the usual token multiple.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from agent_evolve.agents.answering import CHECK_KINDS, CROSS_CHECK_KINDS, PROGRAM_KINDS
from agent_evolve.benchmarks.answer_kinds import AnswerKind, kind_of
from agent_evolve.types import Observation

PLAIN_KINDS: tuple[AnswerKind, ...] = ("number", "text", "choice", "code", "free")
"""Kinds answered in one reply (every kind but actions in an environment)."""
ALL_KINDS: tuple[AnswerKind, ...] = get_args(AnswerKind)


@dataclass(frozen=True)
class Technique:
    """One technique: the candidate kind that turns it on, the answer kinds it applies to, and its cost."""

    name: str
    kinds: tuple[AnswerKind, ...]
    solves: float
    tokens: float
    what: str


TECHNIQUES: dict[str, Technique] = {t.name: t for t in (
    Technique("program", PROGRAM_KINDS, 1.0, 1.0,
              "answer with a Python program; what it prints, in the task's kind, is the answer"),
    Technique("cross-check", CROSS_CHECK_KINDS, 4.0, 3.0,
              "a program answer checked by a text answer; 2 sampled programs vote when the numbers differ"),
    Technique("check", CHECK_KINDS, 5.0, 1.2,
              "draw again (up to 4 times) when code fails its docstring's examples or a number breaks the form "
              "of right answers"),
    Technique("demos", PLAIN_KINDS, 1.0, 1.5, "the agent's own verified train solutions as worked examples"),
    Technique("rule", PLAIN_KINDS, 1.0, 1.0, "one short rule per recurring failure kind"),
    Technique("experience", ALL_KINDS, 1.0, 1.3,
              "the nearest of the agent's verified train solutions (for acting agents, compact successful "
              "trajectories) shown per task; measured: +283 prompt tokens per solve on GSM8K"),
    Technique("notes", PLAIN_KINDS, 1.0, 1.1,
              "one short note per cluster of train failures, naming the mistake and its correction on one task"),
)}
NUMERIC_RULES = frozenset({"reported_intermediate", "unit_scale", "rounding"})
"""Rules about numbers (an intermediate value, a unit or percent scale, rounding): for number tasks only."""


def applicable(technique: str, observations: list[Observation]) -> list[Observation]:
    """The observations of tasks whose answer kind the technique applies to."""
    return [obs for obs in observations if kind_of(obs.task) in TECHNIQUES[technique].kinds]
