"""Curation of experience memory by measurement: which worked examples to keep, how many to show, pure functions.

An example's contribution is measured on the agent's own graded train solves, which record the examples each
task was shown (the ``experience`` ids of its first step): the mean score of the tasks it was shown on minus
the mean score of the tasks it was not. That costs no extra solve, where scoring each example with and
without it would cost two trial solves per task it is retrieved for; it only proposes a pruning, and the pruned
memory is then scored by the trial and the gate like any edit. A task never counts for its own example.
Near-duplicates (inputs whose tf-idf cosine reaches a threshold) keep only the higher-priority one, and a cap
keeps the examples that contributed most, the newest first on ties.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from agent_evolve.contract.experience import Example
from agent_evolve.text import TfIdfIndex
from agent_evolve.types import Observation

DUPLICATE_SIMILARITY = 0.9  # inputs this similar teach the same thing: one of them is enough
MAX_K = 4  # more examples cost each solve ~200 prompt tokens apiece and crowd a 4k context
MIN_SHOWN = 2  # one solve says too little about an example to drop it


def shown_examples(observation: Observation) -> list[str]:
    """The experience example ids the agent showed on this solve (its first step records them)."""
    for step in observation.trajectory.steps[:1]:
        if isinstance(step, dict) and isinstance(step.get("experience"), list):
            return [str(i) for i in step["experience"]]
    return []


def contributions(observations: Iterable[Observation]) -> dict[str, float]:
    """Per shown example: mean score where it was shown minus where it was not (graded, visible solves only).

    An example shown on fewer than ``MIN_SHOWN`` other solves, or on every one, has no fair comparison and is
    left out (unmeasured examples are kept).
    """
    graded = [o for o in observations if not o.feedback.raw.get("hidden")]
    shown = {o.task.id: set(shown_examples(o)) - {o.task.id} for o in graded}
    result: dict[str, float] = {}
    for example_id in sorted(set().union(*shown.values()) if shown else set()):
        others = [o for o in graded if o.task.id != example_id]
        with_it = [o.feedback.score for o in others if example_id in shown[o.task.id]]
        without = [o.feedback.score for o in others if example_id not in shown[o.task.id]]
        if len(with_it) >= MIN_SHOWN and without:
            result[example_id] = sum(with_it) / len(with_it) - sum(without) / len(without)
    return result


def by_priority(examples: Sequence[Example], contribution: Mapping[str, float]) -> list[Example]:
    """Highest contribution first (unmeasured counts as 0), then the newest (later in the file) first."""
    order = {e.task_id: i for i, e in enumerate(examples)}
    return sorted(examples, key=lambda e: (-contribution.get(e.task_id, 0.0), -order[e.task_id]))


def without_near_duplicates(examples: Sequence[Example], threshold: float = DUPLICATE_SIMILARITY) -> list[Example]:
    """The examples in the given (priority) order, each dropped when an earlier kept one is at least this similar."""
    if not examples:
        return []
    index = TfIdfIndex([e.input for e in examples])
    kept: list[int] = []
    for i, e in enumerate(examples):
        scores = index.scores(e.input)
        if all(scores[j] < threshold for j in kept):
            kept.append(i)
    return [examples[i] for i in kept]


def curate(current: Sequence[Example], new: Sequence[Example], contribution: Mapping[str, float], cap: int,
           threshold: float = DUPLICATE_SIMILARITY) -> list[Example]:
    """The memory after adding ``new`` (a task's newest solution replaces its old one): examples that hurt
    (contribution below 0) dropped, near-duplicates removed, at most ``cap`` kept by priority; in file order."""
    fresh = {e.task_id for e in new}
    merged = [e for e in current if e.task_id not in fresh] + list(new)
    helpful = [e for e in merged if contribution.get(e.task_id, 0.0) >= 0.0]
    chosen = without_near_duplicates(by_priority(helpful, contribution), threshold)[: max(cap, 0)]
    ids = {e.task_id for e in chosen}
    return [e for e in merged if e.task_id in ids]


def k_options(current: int, examples: int, max_k: int = MAX_K) -> list[int]:
    """The k values next to ``current`` worth a trial: one fewer and one more, within 1..min(max_k, examples)."""
    top = min(max_k, examples)
    return [k for k in (current - 1, current + 1) if 1 <= k <= top]
