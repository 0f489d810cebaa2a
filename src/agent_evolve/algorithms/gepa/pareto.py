"""GEPA's per-task Pareto front over candidates' validation scores, and the dominance pruning it samples from.

A score table maps candidate id -> task id -> score. A candidate is on a task's front when no candidate scores
higher on that task; a front candidate is dominated when, on every task where it is on the front, another
surviving candidate is too (GEPA's `remove_dominated_programs`, pruned weakest first).
"""

from __future__ import annotations

from collections.abc import Mapping

ScoreTable = Mapping[str, Mapping[str, float]]


def pareto_front(scores: ScoreTable) -> dict[str, set[str]]:
    """For each task any candidate was scored on, the candidates with the best score on it."""
    best: dict[str, float] = {}
    front: dict[str, set[str]] = {}
    for candidate, per_task in scores.items():
        for task, score in per_task.items():
            if score > best.get(task, float("-inf")):
                best[task], front[task] = score, {candidate}
            elif score == best[task]:
                front[task].add(candidate)
    return front


def prune_dominated(front: Mapping[str, set[str]], aggregate: Mapping[str, float]) -> dict[str, set[str]]:
    """The front without candidates whose every front position another kept candidate shares (weakest first)."""
    members = sorted({c for cands in front.values() for c in cands}, key=lambda c: (aggregate.get(c, 0.0), c))
    dominated: set[str] = set()
    # one pass suffices: fewer others only makes domination harder, so a kept candidate stays kept
    for candidate in members:
        others = set(members) - {candidate} - dominated
        if all(cands & others for cands in front.values() if candidate in cands):
            dominated.add(candidate)
    return {task: {c for c in cands if c not in dominated} for task, cands in front.items()}


def front_frequency(scores: ScoreTable, aggregate: Mapping[str, float]) -> dict[str, int]:
    """How many tasks each non-dominated candidate leads: GEPA's sampling weights for parent selection."""
    counts: dict[str, int] = {}
    for cands in prune_dominated(pareto_front(scores), aggregate).values():
        for candidate in cands:
            counts[candidate] = counts.get(candidate, 0) + 1
    return counts
