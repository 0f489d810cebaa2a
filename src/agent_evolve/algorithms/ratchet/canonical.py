"""Failure-pattern canonicalisation and clustering (pure): patterns at cosine >= the threshold are joined
transitively (union-find), so a chain of paraphrases is one pattern, named by its most frequent member.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agent_evolve.agents.routing.embedder import Vector
from agent_evolve.agents.routing.embeddings import cosine
from agent_evolve.algorithms.ratchet.curator import EPSILON
from agent_evolve.text.grouping import union_find_groups


def nearest(vector: Vector, named: Mapping[str, Vector], threshold: float) -> tuple[str, float] | None:
    """The named vector most similar to ``vector`` when its cosine is >= ``threshold`` (ties: name), else None."""
    scored = [(name, cosine(vector, named[name])) for name in sorted(named)]
    return max((s for s in scored if s[1] >= threshold - EPSILON), key=lambda s: s[1], default=None)


def normalise(pattern: str) -> str:
    """A pattern's comparable form: lower case, single spaces, no trailing full stop."""
    return " ".join(pattern.lower().split()).rstrip(".")


def canonical_map(patterns: Sequence[str], vectors: Sequence[Vector] | None, threshold: float) -> dict[str, str]:
    """Each distinct normalised pattern -> its group's name (ties: first seen); without vectors (canonicalisation
    off) itself. ``vectors`` embed `distinct_patterns(patterns)`, in that order."""
    counts = Counter(normalise(p) for p in patterns if p.strip())
    distinct = list(counts)
    if vectors is None:
        return {p: p for p in distinct}
    if len(vectors) != len(distinct):
        raise ValueError(f"{len(vectors)} vectors for {len(distinct)} distinct patterns")
    groups = union_find_groups(len(vectors), lambda i, j: cosine(vectors[i], vectors[j]) >= threshold - EPSILON)
    members: dict[int, list[str]] = {}
    for pattern, group in zip(distinct, groups):
        members.setdefault(group, []).append(pattern)
    name = {g: max(ms, key=counts.__getitem__) for g, ms in members.items()}  # max keeps the first seen of a tie
    return {p: name[g] for p, g in zip(distinct, groups)}


def distinct_patterns(patterns: Sequence[str]) -> list[str]:
    """The distinct normalised non-empty patterns, first-seen order (what `canonical_map` wants vectors for)."""
    return list(dict.fromkeys(normalise(p) for p in patterns if p.strip()))


@dataclass(frozen=True)
class Failure:
    """One failed train attempt the critic named a pattern for."""

    capsule_id: int
    task_id: str
    round: int
    pattern: str


@dataclass
class PatternCluster:
    """Failures that share one canonical pattern."""

    pattern: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.failures)


def clusters(failures: Sequence[Failure], canonical: dict[str, str], min_size: int) -> list[PatternCluster]:
    """Failures grouped by canonical pattern; groups of >= ``min_size``, largest first (ties: pattern)."""
    found: dict[str, PatternCluster] = {}
    for failure in failures:
        key = normalise(failure.pattern)
        if not key:
            continue
        name = canonical.get(key, key)
        found.setdefault(name, PatternCluster(name)).failures.append(failure)
    kept = [c for c in found.values() if c.size >= min_size]
    return sorted(kept, key=lambda c: (-c.size, c.pattern))
