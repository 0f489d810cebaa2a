"""What the report shows, computed from a run's records without side effects: the lineage of versions, each
gate's wins and losses, the skill bank's use and contribution, and the per-task result matrix."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_evolve.algorithms.common.evidence import skills_used
from agent_evolve.engine.journal import ACCEPTED_PHASES, Phase
from agent_evolve.engine.versioning import BASELINE_TAG, accepted_tag, candidate_tag
from agent_evolve.types import Observation
from agent_evolve.userview.run import CycleRow

GATED_OUTCOMES = ("accepted", "rejected")


@dataclass
class VersionNode:
    """A version in the lineage: the baseline, or the candidate of a cycle (tagged `evo-N` when accepted)."""

    tag: str
    cycle: int
    parent: str | None
    outcome: str
    gate: dict[str, Any] | None = None
    summary: str = ""
    children: list[VersionNode] = field(default_factory=list)


def parents_by_cycle(journal: Sequence[dict[str, Any]]) -> dict[int, str]:
    """The accepted version each cycle started from (rollbacks included), read in journal order."""
    current, parents = BASELINE_TAG, {}
    for entry in journal:
        if entry.get("phase") in ACCEPTED_PHASES and entry.get("accepted_tag"):
            current = str(entry["accepted_tag"])
        elif entry.get("phase") == Phase.SOLVED:
            parents[int(entry["cycle"])] = current
    return parents


def version_tag(row: CycleRow) -> str:
    """The tag of a gated cycle's candidate: `evo-N` when accepted, else `cand-N`."""
    return accepted_tag(row.cycle) if row.outcome == "accepted" else candidate_tag(row.cycle)


def lineage(rows: Sequence[CycleRow], journal: Sequence[dict[str, Any]]) -> VersionNode:
    """The tree of every gated candidate under the version it was made from, rooted at the baseline."""
    root = VersionNode(BASELINE_TAG, 0, None, "baseline")
    nodes = {root.tag: root}
    parents = parents_by_cycle(journal)
    for row in rows:
        if row.outcome not in GATED_OUTCOMES:
            continue
        tag = version_tag(row)
        node = VersionNode(tag, row.cycle, parents.get(row.cycle, BASELINE_TAG), row.outcome, row.gate, row.summary)
        nodes[tag] = node
        nodes[candidate_tag(row.cycle)] = node
        nodes.get(node.parent or BASELINE_TAG, root).children.append(node)
    return root


CURTAILMENT_OFF = "curtailment off"


@dataclass(frozen=True)
class GateTally:
    """A gate's task-by-task holdout comparison (wins, losses, ties against the incumbent), tasks scored before
    curtailment stopped it, and why; None where the record does not carry a number."""

    cycle: int
    tag: str
    outcome: str
    wins: int | None
    losses: int | None
    ties: int | None
    scored: int | None
    tasks: int | None
    stopped: str
    reason: str


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def gate_tally(row: CycleRow) -> GateTally:
    """The tally of the gate record of `row` (its decision: `statistic` and, when on, `curtailment`)."""
    gate = row.gate or {}
    statistic = gate.get("statistic") if isinstance(gate.get("statistic"), dict) else {}
    curtailment = gate.get("curtailment") if isinstance(gate.get("curtailment"), dict) else {}
    compared = _count(statistic.get("n"))
    if curtailment:
        candidate = curtailment.get("candidate") if isinstance(curtailment.get("candidate"), dict) else {}
        scored, tasks = _count(candidate.get("scored")), _count(curtailment.get("tasks"))
        stopped = str(curtailment.get("stopped", ""))
    else:
        scored, tasks, stopped = compared, compared, CURTAILMENT_OFF if gate else ""
    return GateTally(row.cycle, version_tag(row), row.outcome, _count(statistic.get("wins")),
                     _count(statistic.get("losses")), _count(statistic.get("ties")), scored, tasks, stopped,
                     str(gate.get("reason", "")))


@dataclass(frozen=True)
class SkillUse:
    """A skill's injections into train tasks and the mean score with it minus without it (None if unknown)."""

    name: str
    description: str
    uses: int
    contribution: float | None


def skill_bank(skills: Sequence[tuple[str, str]], observations: Sequence[Observation]) -> list[SkillUse]:
    """Use count and contribution of each (name, description) skill over the train observations."""
    bank = []
    for name, description in skills:
        used = [o.feedback.score for o in observations if name in skills_used(o.trajectory.steps)]
        unused = [o.feedback.score for o in observations if name not in skills_used(o.trajectory.steps)]
        contribution = sum(used) / len(used) - sum(unused) / len(unused) if used and unused else None
        bank.append(SkillUse(name, description, len(used), contribution))
    return bank


@dataclass(frozen=True)
class TaskMatrix:
    """Scores by task (rows) and cycle (columns); `split` says whether a row is a holdout or a train task."""

    cycles: list[int]
    tasks: list[str]
    split: dict[str, str]
    cells: dict[tuple[str, int], float]


def _natural(task_id: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", task_id)]


def task_matrix(gates: dict[int, dict[str, float]], batches: dict[int, list[Observation]]) -> TaskMatrix:
    """Holdout scores of each gated candidate ({cycle: {task: score}}) and train scores of each batch, as one matrix."""
    cells: dict[tuple[str, int], float] = {}
    split: dict[str, str] = {}
    for cycle, scores in gates.items():
        for task, score in scores.items():
            cells[(task, cycle)] = score
            split[task] = "holdout"
    for cycle, observations in batches.items():
        for obs in observations:
            cells[(obs.task.id, cycle)] = float(obs.feedback.score)
            split.setdefault(obs.task.id, "train")
    cycles = sorted({c for _, c in cells})
    tasks = sorted(split, key=lambda t: (split[t] != "holdout", _natural(t)))
    return TaskMatrix(cycles, tasks, split, cells)
