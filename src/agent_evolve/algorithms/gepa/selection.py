"""GEPA's pure decisions on validation scores: the per-task Pareto front, parent selection, minibatch acceptance.

A score table maps candidate id -> task id -> score; a candidate on a task's front is dominated when another
surviving candidate shares its every front position (GEPA's `remove_dominated_programs`, weakest first).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from agent_evolve.errors import ConfigError

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
    return dict(Counter(c for cands in prune_dominated(pareto_front(scores), aggregate).values() for c in cands))


def mean_scores(scores: ScoreTable) -> dict[str, float]:
    """Each candidate's mean validation score (0 for one not scored yet)."""
    return {c: (sum(s.values()) / len(s) if s else 0.0) for c, s in scores.items()}


def best_candidate(scores: ScoreTable) -> str:
    """The candidate with the best mean validation score; the earliest one wins a tie (GEPA's idxmax)."""
    if not scores:
        raise ValueError("no candidates to choose from")
    return max(scores, key=mean_scores(scores).__getitem__)


class CandidateSelector(Protocol):
    """Picks the parent of the next proposal from the candidates' validation scores, using `rng` for any draw."""

    def select(self, scores: ScoreTable, rng: random.Random) -> str: ...


class ParetoSelector:
    """Sample a candidate in proportion to how many tasks it leads, after pruning dominated ones."""

    def select(self, scores: ScoreTable, rng: random.Random) -> str:
        counts = front_frequency(scores, mean_scores(scores))
        if not counts:
            return best_candidate(scores)
        pool = [c for c in scores if c in counts for _ in range(counts[c])]
        return rng.choice(pool)


class CurrentBestSelector:
    """Always the best mean validation score."""

    def select(self, scores: ScoreTable, rng: random.Random) -> str:
        return best_candidate(scores)


@dataclass(frozen=True)
class EpsilonGreedySelector:
    """With probability `epsilon` a uniformly random candidate, else the best."""

    epsilon: float = 0.1

    def select(self, scores: ScoreTable, rng: random.Random) -> str:
        return rng.choice(list(scores)) if rng.random() < self.epsilon else best_candidate(scores)


def make_selector(name: str, epsilon: float = 0.1) -> CandidateSelector:
    """The selector named by the `candidate_selection` param."""
    selectors: dict[str, CandidateSelector] = {"pareto": ParetoSelector(), "current_best": CurrentBestSelector(),
                                               "epsilon_greedy": EpsilonGreedySelector(epsilon)}
    if name not in selectors:
        raise ConfigError(f"gepa: unknown candidate_selection {name!r}; known: {sorted(selectors)}")
    return selectors[name]


@dataclass(frozen=True)
class MinibatchDecision:
    """The decision and the sums that made it."""

    accept: bool
    parent_sum: float
    child_sum: float
    reason: str


class MinibatchImprovement:
    """GEPA's default: the child's score sum over the parent's minibatch tasks must be strictly greater."""

    def decide(self, parent: Mapping[str, float], child: Mapping[str, float]) -> MinibatchDecision:
        missing = sorted(set(parent) - set(child))
        if missing:
            raise ValueError(f"child was not scored on the parent's minibatch tasks {missing[:5]}")
        parent_sum = sum(parent.values())
        child_sum = sum(child[t] for t in parent)
        accept = child_sum > parent_sum
        verdict = "beats" if accept else "does not beat"
        return MinibatchDecision(accept, parent_sum, child_sum, f"child {child_sum:g} {verdict} parent {parent_sum:g}")


def is_perfect(scores: Mapping[str, float], perfect: float = 1.0) -> bool:
    """True when every minibatch task already scores `perfect` (GEPA's skip_perfect_score: nothing to learn)."""
    return bool(scores) and all(s >= perfect for s in scores.values())
