"""GEPA's merge of two Pareto parents, as pure functions (after `gepa.proposer.merge`, gepa 0.1.4, MIT).

Per component, a change one parent made to the common ancestor's text is taken; where both changed it, the better
parent's text (a seeded coin on a tie). `order`, the pool's order, stands for GEPA's program index, so the same
inputs give the library's answer.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from agent_evolve.algorithms.gepa.selection import MinibatchDecision

Lineage = Mapping[str, Sequence[str]]          # candidate id -> its parents' ids (two for a merged child)
Files = Mapping[str, Mapping[str, str]]        # candidate id -> component path -> text
Triplet = tuple[str, str, str]                 # (parent a, parent b, common ancestor)


@dataclass(frozen=True)
class MergePlan:
    """A merged child's texts, its two parents and their ancestor, and which parent gave each component."""

    a: str
    b: str
    ancestor: str
    files: dict[str, str]
    sources: tuple[str, ...]


def ancestors(lineage: Lineage, node: str) -> set[str]:
    """Every candidate `node` descends from (parents, their parents, ...)."""
    found: set[str] = set()
    stack = list(lineage.get(node, ()))
    while stack:
        parent = stack.pop()
        if parent not in found:
            found.add(parent)
            stack.extend(lineage.get(parent, ()))
    return found


def has_desirable_components(files: Files, ancestor: str, a: str, b: str) -> bool:
    """True when some component is the ancestor's text in one parent and changed in the other."""
    return any(files[ancestor][c] in (files[a][c], files[b][c]) and files[a][c] != files[b][c]
               for c in files[ancestor])


def find_merge_triplet(rng: random.Random, lineage: Lineage, candidates: Sequence[str], tried: Collection[Triplet],
                       agg: Mapping[str, float], files: Files, order: Sequence[str],
                       max_attempts: int = 10) -> Triplet | None:
    """Draw two candidates, neither an ancestor of the other, with a common ancestor not tried with them, no better
    than either, and a component worth merging; the ancestor drawn in proportion to its validation mean."""
    rank = {c: i for i, c in enumerate(order)}
    for _ in range(max_attempts):
        if len(candidates) < 2:
            return None
        a, b = sorted(rng.sample(list(candidates), 2), key=rank.__getitem__)
        above_a, above_b = ancestors(lineage, a), ancestors(lineage, b)
        if b in above_a or a in above_b:
            continue
        common = [c for c in sorted(above_a & above_b, key=rank.__getitem__)
                  if (a, b, c) not in tried and agg[c] <= agg[a] and agg[c] <= agg[b]
                  and has_desirable_components(files, c, a, b)]
        if common:
            weights = [agg[c] for c in common]
            # All-zero weights (an ancestor that solved nothing) make the library's draw raise; we draw uniformly.
            return a, b, rng.choices(common, k=1, weights=weights)[0] if sum(weights) > 0 else rng.choice(common)
    return None


def merge_components(files: Files, triplet: Triplet, agg: Mapping[str, float],
                     rng: random.Random) -> tuple[dict[str, str], tuple[str, ...]]:
    """The merged texts and, per component (in the ancestor's order), the parent whose text was taken."""
    a, b, ancestor = triplet
    merged = dict(files[ancestor])
    sources: list[str] = []
    for c, base in files[ancestor].items():
        text_a, text_b = files[a][c], files[b][c]
        if base in (text_a, text_b) and text_a != text_b:
            source = b if base == text_a else a
        elif base != text_a and base != text_b:
            source = a if agg[a] > agg[b] else b if agg[b] > agg[a] else rng.choice([a, b])
        else:
            source = a
        merged[c] = files[source][c]
        sources.append(source)
    return merged, tuple(sources)


def plan_merge(rng: random.Random, lineage: Lineage, candidates: Sequence[str], tried: Collection[Triplet],
               merged_before: Collection[tuple[str, str, tuple[str, ...]]], agg: Mapping[str, float], files: Files,
               order: Sequence[str], overlap_ok: Callable[[str, str], bool] | None = None,
               max_attempts: int = 10) -> MergePlan | None:
    """GEPA's `sample_and_attempt_merge_programs_by_common_predictors`: a merge not made before, or None. The
    caller records the plan's triplet in `tried` and (a, b, sources) in `merged_before`."""
    if len(candidates) < 2 or len(order) < 3:
        return None
    for _ in range(max_attempts):
        triplet = find_merge_triplet(rng, lineage, candidates, tried, agg, files, order, max_attempts)
        if triplet is None or triplet in tried:
            continue
        merged, sources = merge_components(files, triplet, agg, rng)
        a, b, ancestor = triplet
        if (a, b, sources) in merged_before or (overlap_ok is not None and not overlap_ok(a, b)):
            continue
        return MergePlan(a, b, ancestor, merged, sources)
    return None


def merge_subsample(scores_a: Mapping[str, float], scores_b: Mapping[str, float], rng: random.Random,
                    size: int = 5) -> list[str]:
    """Up to `size` tasks both parents were scored on: a third where a wins, a third where b wins, a third tied,
    topped up from the rest (GEPA's `select_eval_subsample_for_merged_program`)."""
    common = [t for t in scores_a if t in scores_b]
    buckets = ([t for t in common if scores_a[t] > scores_b[t]], [t for t in common if scores_b[t] > scores_a[t]],
               [t for t in common if scores_a[t] == scores_b[t]])
    each = max(1, math.ceil(size / 3))
    chosen: list[str] = []
    for bucket in buckets:
        if len(chosen) >= size:
            break
        available = [t for t in bucket if t not in chosen]
        take = min(len(available), each, size - len(chosen))
        if take > 0:
            chosen += rng.sample(available, k=take)
    remaining = size - len(chosen)
    if remaining > 0:
        unused = [t for t in common if t not in chosen]
        if len(unused) >= remaining:
            chosen += rng.sample(unused, k=remaining)
        elif common:
            chosen += rng.choices(common, k=remaining)
    return chosen[:size]


def decide_merge(a: Mapping[str, float], b: Mapping[str, float], child: Mapping[str, float],
                 subsample: Sequence[str]) -> MinibatchDecision:
    """GEPA keeps a merged child whose subsample sum is at least the better parent's."""
    best = max(sum(a[t] for t in subsample), sum(b[t] for t in subsample))
    total = sum(child[t] for t in subsample)
    accept = total >= best
    verdict = "matches or beats" if accept else "is below"
    return MinibatchDecision(accept, best, total, f"merged {total:g} {verdict} the better parent {best:g}")
