"""The experience candidate kind: worked-example memory that the demos engine proposes, curated by measurement.

Verified train solutions (for acting agents, compact trajectories) become ``memory/experience.jsonl``; how it is
shown (``prompts/experience.yaml``) is a candidate too. An example's contribution, measured free from the graded
solves that record what they were shown, only proposes a pruning: the trial and the gate measure it like any edit.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_evolve.algorithms.common.candidate_search import CandidateEdit
from agent_evolve.algorithms.common.demos import Demo, verified_demos
from agent_evolve.contract.experience import (EXPERIENCE_FILE, EXPERIENCE_SETTINGS, Example, ExperienceSettings,
    example, experience_text, read_experience, read_experience_settings)
from agent_evolve.text import TfIdfIndex
from agent_evolve.types import Observation

if TYPE_CHECKING:
    from agent_evolve.contract.workspace import AgentWorkspace
    from agent_evolve.engine.base import EngineContext

KIND = "experience"
CAP = 24  # examples kept: enough for a task to find a near neighbour, few enough to curate by measurement
STEP_CHARS = 160  # one action of a compact trajectory
TRAJECTORY_CHARS = 900
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
    """Per shown example: mean score where it was shown minus where it was not (graded, visible solves only); one
    shown on fewer than ``MIN_SHOWN`` other solves, or on every one, has no fair comparison and is left out."""
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


def curate(current: Sequence[Example], new: Sequence[Example], contribution: Mapping[str, float],
           cap: int) -> list[Example]:
    """The memory after adding ``new`` (a task's newest solution replaces its old one): examples that hurt
    (contribution below 0) dropped, near-duplicates removed, at most ``cap`` kept by priority; in file order."""
    fresh = {e.task_id for e in new}
    merged = [e for e in current if e.task_id not in fresh] + list(new)
    helpful = [e for e in merged if contribution.get(e.task_id, 0.0) >= 0.0]
    chosen = without_near_duplicates(by_priority(helpful, contribution))[: max(cap, 0)]
    ids = {e.task_id for e in chosen}
    return [e for e in merged if e.task_id in ids]


def k_options(current: int, examples: int, max_k: int = MAX_K) -> list[int]:
    """The k values next to ``current`` worth a trial: one fewer and one more, within 1..min(max_k, examples)."""
    top = min(max_k, examples)
    return [k for k in (current - 1, current + 1) if 1 <= k <= top]


def compact_trajectory(observation: Observation) -> str | None:
    """An acting solve's actions (tool and arguments, one line each) and its result; None for a plain reply."""
    actions = [s for s in observation.trajectory.steps if isinstance(s, dict) and s.get("type") == "tool_call"]
    if not actions:
        return None
    lines = []
    for number, step in enumerate(actions, 1):
        arguments = json.dumps(step.get("arguments", {}), ensure_ascii=False, sort_keys=True)
        line = f"{number}. {step.get('name', '?')} {arguments}"
        lines.append(line if len(line) <= STEP_CHARS else line[: STEP_CHARS - 3] + "...")
    text = "\n".join(lines) + f"\nResult: {observation.trajectory.output.strip()}"
    return text if len(text) <= TRAJECTORY_CHARS else text[: TRAJECTORY_CHARS - 3] + "..."


def new_examples(observations: Sequence[Observation], pool: Sequence[Demo]) -> list[Example]:
    """The pool's verified solutions as examples; a verified acting solve of this batch as its compact trajectory. A
    task without input text gives none: nothing can retrieve it, and the file needs the text."""
    verified = {d.task_id for d in verified_demos(observations, TRAJECTORY_CHARS)}
    acted = {o.task.id: (o, text) for o in observations
             if o.task.id in verified and (text := compact_trajectory(o)) is not None}
    examples = [example(d.task_id, d.question, d.solution) for d in pool if d.task_id not in acted]
    examples += [example(i, o.task.question, text) for i, (o, text) in acted.items()]
    return [e for e in examples if e.input]


def memory_candidate(current: Sequence[Example], curated: Sequence[Example], settings: ExperienceSettings,
                     train_ids: Collection[str], write_settings: bool) -> CandidateEdit | None:
    """The curated memory as a candidate, or None when it is the current memory. Only train tasks may be added;
    examples the workspace already held (a seed's own, or another run's split) may stay."""
    if [e.to_dict() for e in curated] == [e.to_dict() for e in current] or not curated:
        return None
    files = {EXPERIENCE_FILE: experience_text(curated, {*train_ids, *(e.task_id for e in current)})}
    if write_settings:
        files[EXPERIENCE_SETTINGS] = settings.to_yaml()
    kept, before = {e.task_id for e in curated}, {e.task_id for e in current}
    added, dropped = sorted(kept - before), sorted(before - kept)
    change = f"added {', '.join(added)}" + (f"; dropped {', '.join(dropped)}" if dropped else "")
    return CandidateEdit(KIND, files, f"experience memory: {len(curated)} worked examples from verified train solutions "
                                  f"({change}), the {settings.k} nearest shown per task ({settings.form})")


def settings_candidate(settings: ExperienceSettings, examples: int, turn: int) -> CandidateEdit | None:
    """One other way to show the memory (a neighbouring k or the other form), chosen by ``turn`` in rotation."""
    options = [replace(settings, k=k) for k in k_options(settings.k, examples)]
    options.append(replace(settings, form="short" if settings.form == "full" else "full"))
    chosen = options[turn % len(options)]
    label = f"k{chosen.k}" if chosen.k != settings.k else chosen.form
    return CandidateEdit(f"{KIND}-{label}", {EXPERIENCE_SETTINGS: chosen.to_yaml()},
                     f"experience memory shown as the {chosen.k} nearest examples ({chosen.form})")


def experience_candidates(workspace: AgentWorkspace, observations: Sequence[Observation], pool: Sequence[Demo],
                          context: EngineContext | None, layers: Collection[str]) -> list[CandidateEdit]:
    """The memory curated with this batch's evidence, then one change of how it is shown (see the module)."""
    if context is None or context.trial is None or "memory" not in layers:
        return []
    train_ids = set(context.trial.train_tasks)
    root = workspace.path
    current, settings = read_experience(root), read_experience_settings(root)
    fresh = [e for e in new_examples(observations, pool) if e.task_id in train_ids]
    curated = curate(current, fresh, contributions(observations), CAP)
    can_set = "prompts" in layers
    found = [memory_candidate(current, curated, settings, train_ids,
                              can_set and not (root / EXPERIENCE_SETTINGS).is_file())]
    if current and can_set:
        found.append(settings_candidate(settings, len(current), context.cycle))
    return [c for c in found if c is not None]
