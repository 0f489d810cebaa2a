"""A tf-idf index over a fixed set of documents, queried through its inverted index (postings per term).

A query touches only the postings of its own terms, so its cost grows with how many documents share a term
with it, not with the size of the collection. With numpy (the ``[scale]`` extra) the postings are arrays and
one ``bincount`` adds them up; without it the same sums run in Python (fine for a few hundred documents).
Either way a score is the cosine of the query's and the document's tf-idf vectors, summed in the same order.
"""

from __future__ import annotations

import heapq
import importlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from agent_evolve.text.tfidf import Analyzer, idf_table, weigh
from agent_evolve.text.tokens import terms


def _numpy() -> Any:
    """numpy when installed (imported on first use, so the core install does not need it), else None."""
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


class TfIdfIndex:
    """Cosine similarity of smoothed tf-idf vectors between a query and each of a fixed set of documents."""

    def __init__(self, documents: Sequence[str], analyzer: Analyzer = terms, *, vectorised: bool = True) -> None:
        self.analyzer = analyzer
        self.size = len(documents)
        counts = [Counter(analyzer(doc)) for doc in documents]
        self._idf = idf_table(counts)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for index, count in enumerate(counts):
            for term, weight in weigh(count, self._idf).items():
                ids, weights = postings.setdefault(term, ([], []))
                ids.append(index)
                weights.append(weight)
        self._postings = postings
        self._np = _numpy() if vectorised else None
        if self._np is not None:
            self._arrays = {t: (self._np.array(i, dtype=self._np.intp), self._np.array(w)) for t, (i, w) in
                            postings.items()}

    def matches(self, query: str) -> dict[int, float]:
        """The similarity of ``query`` to every document that shares a term with it (others score 0)."""
        query_vector = weigh(Counter(self.analyzer(query)), self._idf)
        if self._np is None:
            return self._sum_python(query_vector)
        totals = self._sum_numpy(query_vector)
        hit = self._np.flatnonzero(totals)
        return dict(zip(hit.tolist(), totals[hit].tolist()))

    def _sum_python(self, query_vector: dict[str, float]) -> dict[int, float]:
        totals: dict[int, float] = {}
        for term, weight in query_vector.items():
            ids, weights = self._postings[term]
            for index, doc_weight in zip(ids, weights):
                totals[index] = totals.get(index, 0.0) + weight * doc_weight
        return totals

    def _sum_numpy(self, query_vector: dict[str, float]) -> Any:
        np = self._np
        if not query_vector:
            return np.zeros(self.size)
        ids = np.concatenate([self._arrays[t][0] for t in query_vector])
        products = np.concatenate([w * self._arrays[t][1] for t, w in query_vector.items()])
        return np.bincount(ids, weights=products, minlength=self.size)

    def scores(self, query: str) -> list[float]:
        """The similarity of ``query`` to each document, in document order."""
        found = self.matches(query)
        return [found.get(i, 0.0) for i in range(self.size)]

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` ``(document index, score)`` pairs with a positive score, best first (ties: lower index)."""
        if self._np is None:
            positive = [(i, s) for i, s in self.matches(query).items() if s > 0.0]
            return heapq.nsmallest(k, positive, key=lambda pair: (-pair[1], pair[0]))
        np = self._np
        totals = self._sum_numpy(weigh(Counter(self.analyzer(query)), self._idf))
        hit = np.flatnonzero(totals > 0.0)
        if hit.size > k:
            kth = np.partition(totals[hit], hit.size - k)[hit.size - k]
            hit = hit[totals[hit] >= kth]
        best = hit[np.lexsort((hit, -totals[hit]))[:k]]
        return list(zip(best.tolist(), totals[best].tolist()))
