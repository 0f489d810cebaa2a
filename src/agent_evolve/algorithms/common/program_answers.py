"""A targeted edit for wrong numbers: answer with a program (``prompts/program.md``), proposed from the evidence.

When a batch's failures are wrong numeric answers (a wrong value, an intermediate value reported, a unit or
rounding slip), some may be arithmetic slips that code does not make. The candidate turns on
program-of-thought answers (``agents.program``): the agent writes Python, runs it confined and answers with
what it prints. Like every candidate it is only kept when it wins on trial tasks and then at the gate.
"""

from __future__ import annotations

from agent_evolve.algorithms.common.candidate_search import Candidate
from agent_evolve.algorithms.common.evidence import Evidence
from agent_evolve.contract.workspace import PROGRAM_PROMPT

NUMERIC_KINDS = ("wrong_answer", "reported_intermediate", "unit_scale", "rounding")
PROGRAM_INSTRUCTION = (
    "Solve the problem by writing one Python program in a ```python block that computes the answer. Give each "
    "quantity a named variable, compute the result step by step, and print only the final number.\n"
)


def numeric_failures(evidence: Evidence) -> int:
    """Failures whose kind says the answer was a wrong number."""
    return sum(f.kind in NUMERIC_KINDS for f in evidence.failures)


def program_candidate(evidence: Evidence, current_program: str | None, min_failures: int) -> Candidate | None:
    """The program-answer candidate when at least ``min_failures`` answers were wrong numbers and the workspace
    does not answer with programs yet; else None."""
    count = numeric_failures(evidence)
    if current_program is not None or min_failures < 1 or count < min_failures:
        return None
    return Candidate("program", {PROGRAM_PROMPT: PROGRAM_INSTRUCTION},
                     f"answer with a Python program (x{count} wrong numeric answers)")
