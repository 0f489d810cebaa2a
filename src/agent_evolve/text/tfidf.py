"""Smoothed tf-idf vectors (the formula scikit-learn uses by default) and their cosine similarity.

A vector is a sparse ``{term: weight}`` dict, L2-normalised, with ``idf = ln((1 + n) / (1 + df)) + 1``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from agent_evolve.text.tokens import words

Analyzer = Callable[[str], list[str]]
Vector = dict[str, float]


def idf_table(counts: Sequence[Counter[str]]) -> dict[str, float]:
    """Each term's smoothed inverse document frequency over the counted documents."""
    frequency: Counter[str] = Counter(term for c in counts for term in c)
    n = len(counts)
    return {term: math.log((1 + n) / (1 + df)) + 1.0 for term, df in frequency.items()}


def weigh(counts: Mapping[str, int], idf: Mapping[str, float]) -> Vector:
    """The L2-normalised tf-idf vector of one document's term counts (terms without an idf are dropped)."""
    vector = {t: c * idf[t] for t, c in counts.items() if t in idf}
    norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
    return {t: v / norm for t, v in vector.items()}


def tfidf_vectors(docs: Iterable[str], analyzer: Analyzer = words) -> list[Vector]:
    """The tf-idf vectors of ``docs``, with the idf taken over ``docs`` themselves."""
    counts = [Counter(analyzer(doc)) for doc in docs]
    idf = idf_table(counts)
    return [weigh(c, idf) for c in counts]


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """The cosine of two normalised sparse vectors (their dot product)."""
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(t, 0.0) for t, v in a.items())


def text_similarity(a: str, b: str, analyzer: Analyzer = words) -> float:
    """The tf-idf cosine of two texts, with the idf taken over the two of them."""
    va, vb = tfidf_vectors([a, b], analyzer)
    return cosine(va, vb)
