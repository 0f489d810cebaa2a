"""A targeted edit for replies the agent could tell were wrong itself: draw again (``prompts/check.yaml``).

Two checks need no grader: code against the examples of its task's docstring, and a numeric answer against the
form the batch's right answers share (all whole, none negative: ``agents.answering.checks``). When a batch's failed
replies fail such a check, a fresh sample often gets them right (the embedded model: 3 more of 60 HumanEval
train tasks with 4 draws, none lost; program answers on GSM8K train tasks, 2 more of 90, none lost;
`experiments/probes`). The candidate turns the check on (``agents.answering.redraw``). Like every candidate it is kept
only when it wins on trial tasks, then at the gate; the tasks whose failures the check caught join the trial,
since only there can the candidate differ.
"""

from __future__ import annotations

from dataclasses import replace

from agent_evolve.agents.answering.checks import answer_form, answer_value, code_task, reply_check
from agent_evolve.algorithms.common.candidate_search import CandidateEdit
from agent_evolve.benchmarks.answer_kinds import kind_of
from agent_evolve.contract.check_settings import CHECK_SETTINGS, AnswerForm, CheckSettings
from agent_evolve.types import Observation


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
    """The check candidate when at least ``min_failures`` failures were caught and the workspace does not run
    that check yet (no check.yaml, or one without the answer ``form``); else None."""
    if min_failures < 1 or len(caught) < min_failures:
        return None
    if current is not None and (form is None or current.answer is not None):
        return None
    settings = replace(current or CheckSettings(), answer=form)
    what = "code fails its docstring's examples" if form is None else "an answer breaks the form of right ones"
    return CandidateEdit("check", {CHECK_SETTINGS: settings.to_yaml()},
                     f"draw again when {what} (x{len(caught)} caught: {', '.join(caught[:3])})")
