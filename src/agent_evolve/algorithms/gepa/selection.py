"""Parent selection for GEPA: the `CandidateSelector` protocol and its three strategies, all seeded."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from agent_evolve.algorithms.gepa.pareto import ScoreTable, front_frequency
from agent_evolve.errors import ConfigError


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


SELECTORS: Mapping[str, type] = {
    "pareto": ParetoSelector,
    "current_best": CurrentBestSelector,
    "epsilon_greedy": EpsilonGreedySelector,
}


def make_selector(name: str, epsilon: float = 0.1) -> CandidateSelector:
    """The selector named by the `candidate_selection` param."""
    if name not in SELECTORS:
        raise ConfigError(f"gepa: unknown candidate_selection {name!r}; known: {sorted(SELECTORS)}")
    return EpsilonGreedySelector(epsilon) if name == "epsilon_greedy" else SELECTORS[name]()
