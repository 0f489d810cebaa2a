"""A targeted edit for code that fails its own docstring's examples: draw again (``prompts/check.yaml``).

When a batch's failed code replies fail an example shown in their task's docstring, the agent can tell such a
reply is wrong without the grader; a fresh sample often gets the function right (the embedded model: 3 more of
60 HumanEval train tasks with 4 draws, none lost; `experiments/probes`). The candidate turns that on
(``agents.redraw``). Like every candidate it is kept only when it wins on trial tasks, then at the gate; the
tasks whose failures the examples caught join the trial, since only there can the candidate differ.
"""

from __future__ import annotations

from agent_evolve.agents.example_check import code_task, first_failure
from agent_evolve.algorithms.common.candidate_search import Candidate
from agent_evolve.contract.check_settings import CHECK_SETTINGS, CheckSettings
from agent_evolve.types import Observation


def caught_failures(observations: list[Observation]) -> list[str]:
    """Ids of the failed code tasks whose reply fails an example of the task's own docstring."""
    caught = []
    for obs in observations:
        code = code_task(obs.task)
        if obs.feedback.success or code is None:
            continue
        if first_failure(code, obs.trajectory.output) is not None:
            caught.append(obs.task.id)
    return caught


def check_candidate(caught: list[str], current: CheckSettings | None, min_failures: int) -> Candidate | None:
    """The example-check candidate when at least ``min_failures`` failures were caught by examples and the
    workspace does not check yet; else None."""
    if current is not None or min_failures < 1 or len(caught) < min_failures:
        return None
    return Candidate("check", {CHECK_SETTINGS: CheckSettings().to_yaml()},
                     f"draw again when code fails its docstring's examples (x{len(caught)} caught: "
                     f"{', '.join(caught[:3])})")
