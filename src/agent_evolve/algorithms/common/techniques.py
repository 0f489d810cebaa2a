"""The techniques the demos engine can turn on: the answer kinds each applies to, its cost, and its candidates.

A technique sees only tasks of its kinds (``applicable``): a text task never gets numeric cross-checks. Costs are
per task against one plain answer. On the embedded model (`experiments/probes`) the cross-check solved 62 of 90
GSM8K train tasks (programs alone 55, text 49); redrawing checked failures gained 3 of 60 HumanEval, none lost.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import get_args

from agent_evolve.agents.answering import CHECK_KINDS, CROSS_CHECK_KINDS, PROGRAM_KINDS
from agent_evolve.agents.answering.checks import answer_form, answer_value, code_task, reply_check
from agent_evolve.algorithms.common.candidate_search import CandidateEdit
from agent_evolve.algorithms.common.evidence import Evidence
from agent_evolve.benchmarks.answer_kinds import AnswerKind, kind_of
from agent_evolve.contract.check_settings import CHECK_SETTINGS, AnswerForm, CheckSettings
from agent_evolve.contract.workspace import PROGRAM_PROMPT
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
WRONG_ANSWER_KINDS = ("wrong_answer", "reported_intermediate", "unit_scale", "rounding")
_PROGRAM = ("Solve the problem by writing one Python program in a ```python block that computes the answer. "
            "Give each {} a named variable, compute the result step by step, and print only the final {}.\n")
PROGRAM_INSTRUCTION = _PROGRAM.format("quantity", "number")
ANY_KIND_PROGRAM_INSTRUCTION = _PROGRAM.format("fact of the problem", "answer")
"""For tasks that are not all numbers; the agent adds the line its task's kind needs (``agents.answering.program``)."""


def applicable(technique: str, observations: list[Observation]) -> list[Observation]:
    """The observations of tasks whose answer kind the technique applies to."""
    return [obs for obs in observations if kind_of(obs.task) in TECHNIQUES[technique].kinds]


def program_instruction(kinds: set[AnswerKind]) -> str:
    """The program prompt for tasks of ``kinds``: "print only the final number" when they are all numbers."""
    return PROGRAM_INSTRUCTION if kinds <= {"number"} else ANY_KIND_PROGRAM_INSTRUCTION


def wrong_answers(evidence: Evidence) -> int:
    """Failures whose kind says the answer was wrong (a wrong value, an intermediate one, a scale or rounding)."""
    return sum(f.kind in WRONG_ANSWER_KINDS for f in evidence.failures)


def program_candidate(evidence: Evidence, current_program: str | None, min_failures: int,
                      instruction: str = PROGRAM_INSTRUCTION) -> CandidateEdit | None:
    """Program-of-thought answers (``prompts/program.md``) when at least ``min_failures`` answers were wrong and the
    workspace does not answer with programs yet; else None."""
    count = wrong_answers(evidence)
    if current_program is not None or min_failures < 1 or count < min_failures:
        return None
    return CandidateEdit("program", {PROGRAM_PROMPT: instruction}, f"answer with a Python program (x{count} wrong answers)")


def cross_check_candidate(evidence: Evidence, current_program: str | None, current_check: CheckSettings | None,
                          form: AnswerForm | None, samples: int, min_failures: int,
                          instruction: str = PROGRAM_INSTRUCTION) -> CandidateEdit | None:
    """Program answers checked by a text answer, ``samples`` sampled programs settling a disagreement (answers
    breaking ``form`` do not vote), when at least ``min_failures`` answers were wrong and the workspace does not
    cross-check yet; else None."""
    count = wrong_answers(evidence)
    if samples < 1 or min_failures < 1 or count < min_failures:
        return None
    if current_check is not None and current_check.cross_check:
        return None
    base = current_check or CheckSettings()
    files = {CHECK_SETTINGS: replace(base, cross_check=samples, answer=base.answer or form).to_yaml()}
    if current_program is None:
        files[PROGRAM_PROMPT] = instruction
    return CandidateEdit("cross-check", files, f"answer with a Python program cross-checked by a text answer, "
                         f"{samples} sampled programs settling a disagreement (x{count} wrong numeric answers)")


def learned_form(observations: list[Observation]) -> AnswerForm | None:
    """The form shared by the answers of the batch's solved number tasks (their declared kind); None when there
    are too few, or when one of them gives no number."""
    right = [answer_value(obs.trajectory.output) for obs in observations
             if obs.feedback.success and kind_of(obs.task) == "number" and code_task(obs.task) is None]
    return None if None in right else answer_form(value for value in right if value is not None)


def caught_failures(observations: list[Observation], form: AnswerForm | None = None) -> list[str]:
    """Ids of the failed tasks whose reply fails the agent's own check: code its docstring's examples, a numeric
    answer ``form`` (when given)."""
    settings = CheckSettings(answer=form)
    checks = [(obs, None if obs.feedback.success else reply_check(obs.task, settings)) for obs in observations]
    return [obs.task.id for obs, check in checks
            if check is not None and check.failure(obs.trajectory.output) is not None]


def check_candidate(caught: list[str], current: CheckSettings | None, min_failures: int,
                    form: AnswerForm | None = None) -> CandidateEdit | None:
    """Drawing again on a failed check (``prompts/check.yaml``) when at least ``min_failures`` failures were caught
    and the workspace does not run that check yet (no check.yaml, or one without the answer ``form``); else None."""
    if min_failures < 1 or len(caught) < min_failures:
        return None
    if current is not None and (form is None or current.answer is not None):
        return None
    settings = replace(current or CheckSettings(), answer=form)
    what = "code fails its docstring's examples" if form is None else "an answer breaks the form of right ones"
    return CandidateEdit("check", {CHECK_SETTINGS: settings.to_yaml()},
                         f"draw again when {what} (x{len(caught)} caught: {', '.join(caught[:3])})")
