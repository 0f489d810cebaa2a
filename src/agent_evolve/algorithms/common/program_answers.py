"""Targeted edits for wrong answers: answer with a program (``prompts/program.md``), then cross-check it.

When a batch's failures are wrong answers to tasks a program can answer (a wrong value, an intermediate value
reported, a unit or rounding slip, a wrong date or ordering), some may be slips that code does not make. The
first candidate turns on program-of-thought answers (``agents.answering.program``): the agent writes Python, runs it
confined and answers with what it prints, in the task's kind. The caller passes only the evidence of tasks each
technique applies to (``techniques.applicable``): the cross-check, for numbers only, answers in text too and
settles a disagreement of the two by a vote with
sampled programs (``agents.answering.cross_check``): on GSM8K train tasks, 62 of 90 with 2 samples against 55 for
programs alone and 49 for text (`experiments/probes`), at about three times the solves. Like every candidate
each is only kept when it wins on trial tasks and then at the gate.
"""

from __future__ import annotations

from dataclasses import replace

from agent_evolve.algorithms.common.candidate_search import CandidateEdit
from agent_evolve.algorithms.common.evidence import Evidence
from agent_evolve.benchmarks.answer_kinds import AnswerKind
from agent_evolve.contract.check_settings import CHECK_SETTINGS, AnswerForm, CheckSettings
from agent_evolve.contract.workspace import PROGRAM_PROMPT

WRONG_ANSWER_KINDS = ("wrong_answer", "reported_intermediate", "unit_scale", "rounding")
PROGRAM_INSTRUCTION = (
    "Solve the problem by writing one Python program in a ```python block that computes the answer. Give each "
    "quantity a named variable, compute the result step by step, and print only the final number.\n"
)
ANY_KIND_PROGRAM_INSTRUCTION = (
    "Solve the problem by writing one Python program in a ```python block that computes the answer. Give each "
    "fact of the problem a named variable, compute the result step by step, and print only the final answer.\n"
)
"""For tasks that are not all numbers; the agent adds the line its task's kind needs (``agents.answering.program``)."""


def program_instruction(kinds: set[AnswerKind]) -> str:
    """The program prompt for tasks of ``kinds``: "print only the final number" when they are all numbers."""
    return PROGRAM_INSTRUCTION if kinds <= {"number"} else ANY_KIND_PROGRAM_INSTRUCTION


def wrong_answers(evidence: Evidence) -> int:
    """Failures whose kind says the answer was wrong (a wrong value, an intermediate one, a scale or rounding)."""
    return sum(f.kind in WRONG_ANSWER_KINDS for f in evidence.failures)


def program_candidate(evidence: Evidence, current_program: str | None, min_failures: int,
                      instruction: str = PROGRAM_INSTRUCTION) -> CandidateEdit | None:
    """The program-answer candidate (``instruction`` as the program prompt) when at least ``min_failures``
    answers were wrong and the workspace does not answer with programs yet; else None."""
    count = wrong_answers(evidence)
    if current_program is not None or min_failures < 1 or count < min_failures:
        return None
    return CandidateEdit("program", {PROGRAM_PROMPT: instruction}, f"answer with a Python program (x{count} wrong answers)")


def cross_check_candidate(evidence: Evidence, current_program: str | None, current_check: CheckSettings | None,
                          form: AnswerForm | None, samples: int, min_failures: int,
                          instruction: str = PROGRAM_INSTRUCTION) -> CandidateEdit | None:
    """The cross-check candidate (program answers, whose disagreement with a text answer ``samples`` sampled
    programs settle; answers breaking ``form``, when known, do not vote; ``instruction`` as the program prompt
    when there is none) when at least ``min_failures`` answers were wrong numbers and the workspace does not
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
