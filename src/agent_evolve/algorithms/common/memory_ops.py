"""Memory entries built without a model: one short lesson per failure cluster, and deduplication."""

from __future__ import annotations

from typing import Any

from agent_evolve.algorithms.common.evidence import KIND_TEXT, Cluster, Evidence
from agent_evolve.algorithms.common.prompts import advice
from agent_evolve.algorithms.common.skill_ops import DUPLICATE_THRESHOLD
from agent_evolve.text import cosine, tfidf_vectors


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
