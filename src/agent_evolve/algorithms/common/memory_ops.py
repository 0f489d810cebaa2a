"""Memory edits made without a model: one short lesson per failure cluster, deduplication, and promotion.

A lesson that recurs in episodic memory is promoted to one semantic entry (the page's memory evolution); the
decisions are pure and `stage_promotions` stages them as edits, so the gate measures them like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_evolve.algorithms.common.edits import Edit, EditBatch
from agent_evolve.algorithms.common.evidence import KIND_TEXT, Cluster, Evidence
from agent_evolve.algorithms.common.prompts import advice
from agent_evolve.algorithms.common.skill_ops import DUPLICATE_THRESHOLD
from agent_evolve.text import cosine, tfidf_vectors
from agent_evolve.text.grouping import union_find_groups


def lesson(cluster: Cluster, marker: str | None, source: dict[str, Any]) -> dict[str, Any]:
    """A minimal episodic entry for a failure cluster: what went wrong, where, and what to do instead."""
    what = KIND_TEXT.get(cluster.kind, cluster.kind)
    where = f" in tasks about {', '.join(cluster.keywords[:3])}" if cluster.keywords else ""
    content = f"{what[0].upper()}{what[1:]}{where}. {advice(cluster.kind, marker)}"
    return {"content": content, "kind": cluster.kind, "task_ids": cluster.task_ids[:5], **source}


def lessons(evidence: Evidence, source: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """Lessons for the largest failure clusters, at most `limit`."""
    return [lesson(c, evidence.answer_marker, source) for c in evidence.clusters[:limit]]


def dedup_entries(entries: list[dict[str, Any]], threshold: float = DUPLICATE_THRESHOLD) -> list[dict[str, Any]]:
    """`entries` without near-duplicates of their content (the later copy is kept, in the earlier one's place
    of order), so a repeated lesson keeps its newest metadata."""
    texts = [str(e.get("content", "")) for e in entries]
    vectors = tfidf_vectors(texts)
    kept: list[int] = []
    for index in range(len(entries)):
        twin = next((k for k in kept if cosine(vectors[k], vectors[index]) >= threshold), None)
        if twin is None:
            kept.append(index)
        else:
            kept[kept.index(twin)] = index
    return [entries[i] for i in kept]


@dataclass(frozen=True)
class Promotion:
    """One semantic entry and the episodic entries (by index) it replaces."""

    entry: dict[str, Any]
    replaced: tuple[int, ...]


def recurring_groups(texts: list[str], similarity: float, min_count: int) -> list[list[int]]:
    """Groups (indexes, in order) of texts linked by cosine >= `similarity`, with at least `min_count` members,
    largest first."""
    vectors = tfidf_vectors(texts)
    roots = union_find_groups(len(texts), lambda i, j: bool(texts[j].strip())
                              and cosine(vectors[j], vectors[i]) >= similarity)
    groups: dict[int, list[int]] = {}
    for i, group in enumerate(roots):
        groups.setdefault(group, []).append(i)
    recurring = [g for g in groups.values() if len(g) >= min_count]
    return sorted(recurring, key=lambda g: (-len(g), g[0]))


def promotions(
    episodic: list[dict[str, Any]], semantic: list[dict[str, Any]], similarity: float, min_count: int,
    source: dict[str, Any],
) -> list[Promotion]:
    """A semantic entry for each lesson recurring `min_count` times in episodic memory (its newest wording),
    unless semantic memory already holds it."""
    texts = [str(e.get("content", "")) for e in episodic]
    known = [str(e.get("content", "")) for e in semantic]
    vectors = tfidf_vectors(texts + known)
    found = []
    for group in recurring_groups(texts, similarity, min_count):
        newest = group[-1]
        if any(cosine(vectors[newest], vectors[len(texts) + k]) >= similarity for k in range(len(known))):
            continue
        task_ids = sorted({str(t) for i in group for t in episodic[i].get("task_ids", [])})
        entry = {"content": texts[newest], "promoted_from": len(group), **source}
        if task_ids:
            entry["task_ids"] = task_ids[:10]
        found.append(Promotion(entry, tuple(group)))
    return found


def stage_promotions(batch: EditBatch, similarity: float, min_count: int, source: dict[str, Any]) -> int:
    """Stage the promotions of the batch's episodic memory: its repeats replaced by one semantic entry each.
    Returns how many lessons were promoted."""
    episodic = list(batch.memories("episodic"))
    found = promotions(episodic, batch.memories("semantic"), similarity, min_count, source)
    if not found:
        return 0
    replaced = {i for p in found for i in p.replaced}
    batch.add(Edit("rewrite_memory", category="episodic",
                   entries=[e for i, e in enumerate(episodic) if i not in replaced]))
    return sum(batch.try_add(Edit("add_memory", category="semantic", entry=p.entry)) for p in found)
