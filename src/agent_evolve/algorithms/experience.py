"""The experience candidate kind: learned worked-example memory that the demos engine proposes and measures.

From the engine's pool of grader-verified train solutions (and, for acting agents, this batch's compact
successful trajectories) it proposes ``memory/experience.jsonl`` curated by measurement (contribution,
near-duplicates, a cap: ``common.experience_curation``), and, once a memory exists, one change of how it is
shown (``k`` or the form, ``prompts/experience.yaml``). Each is an ordinary candidate: the trial scores it on
train tasks that are none of the examples' sources, and the gate decides on the holdout. Only train tasks may
become examples: the ids are checked against the trial runner's train split, and without one nothing is
proposed. Nothing here looks at what an answer is, so numbers, text, code and actions are treated alike.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_evolve.algorithms.common.candidate_search import CandidateEdit
from agent_evolve.algorithms.common.demos import Demo, verified_demos
from agent_evolve.algorithms.common.experience_curation import contributions, curate, k_options
from agent_evolve.contract.experience import (
    EXPERIENCE_FILE,
    EXPERIENCE_SETTINGS,
    Example,
    ExperienceSettings,
    example,
    experience_text,
    read_experience,
    read_experience_settings,
)
from agent_evolve.types import Observation

if TYPE_CHECKING:
    from agent_evolve.contract.workspace import AgentWorkspace
    from agent_evolve.engine.base import EngineContext

KIND = "experience"
CAP = 24  # examples kept: enough for a task to find a near neighbour, few enough to curate by measurement
STEP_CHARS = 160  # one action of a compact trajectory
TRAJECTORY_CHARS = 900


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
    """The pool's verified solutions as examples; a verified acting solve of this batch as its compact trajectory."""
    verified = {d.task_id for d in verified_demos(observations, TRAJECTORY_CHARS)}
    acted = {o.task.id: (o, text) for o in observations
             if o.task.id in verified and (text := compact_trajectory(o)) is not None}
    examples = [example(d.task_id, d.question, d.solution) for d in pool if d.task_id not in acted]
    return examples + [example(i, str(o.task.metadata.get("question") or o.task.input), text)
                       for i, (o, text) in acted.items()]


def memory_candidate(current: Sequence[Example], curated: Sequence[Example], settings: ExperienceSettings,
                     train_ids: Collection[str], write_settings: bool) -> CandidateEdit | None:
    """The curated memory as a candidate, or None when it is the current memory."""
    if [e.to_dict() for e in curated] == [e.to_dict() for e in current] or not curated:
        return None
    files = {EXPERIENCE_FILE: experience_text(curated, train_ids)}
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
                          context: EngineContext | None, layers: Collection[str], cap: int = CAP) -> list[CandidateEdit]:
    """The memory curated with this batch's evidence, then one change of how it is shown (see the module)."""
    if context is None or context.trial is None or "memory" not in layers:
        return []
    train_ids = set(context.trial.train_tasks)
    root = workspace.path
    current, settings = read_experience(root), read_experience_settings(root)
    fresh = [e for e in new_examples(observations, pool) if e.task_id in train_ids]
    curated = curate(current, fresh, contributions(observations), cap)
    can_set = "prompts" in layers
    found = [memory_candidate(current, curated, settings, train_ids,
                              can_set and not (root / EXPERIENCE_SETTINGS).is_file())]
    if current and can_set:
        found.append(settings_candidate(settings, len(current), context.cycle))
    return [c for c in found if c is not None]
