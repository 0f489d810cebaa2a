"""A tf-idf index over fixed documents with scikit-learn's sparse vectors stored by term (CSC), so a query reads only
its terms' postings and costs what they hold, not the collection (the query is weighed directly: `transform` costs
more than the query at 10,000 documents). Without scikit-learn (`[scale]` extra) Python postings give the same scores.
"""

from __future__ import annotations

import heapq
import importlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from agent_evolve.text.tfidf import Analyzer, idf_table, terms, weigh


class TfIdfIndex:
    """Cosine similarity of smoothed tf-idf vectors between a query and each of a fixed set of documents
    (``vectorised=False`` forces the pure-Python postings, the core install's path)."""

    def __init__(self, documents: Sequence[str], analyzer: Analyzer = terms, *, vectorised: bool = True) -> None:
        self.analyzer = analyzer
        self.size = len(documents)
        self._vectorizer: Any = None
        try:  # scikit-learn is imported on first use, and only when installed
            text = importlib.import_module("sklearn.feature_extraction.text") if vectorised else None
        except ImportError:
            text = None
        if text is not None:
            vectorizer = text.TfidfVectorizer(analyzer=analyzer, lowercase=False, norm="l2", smooth_idf=True)
            try:
                self._by_term = vectorizer.fit_transform(documents).tocsc()
                self._vectorizer = vectorizer
                self._columns: dict[str, int] = vectorizer.vocabulary_
                self._term_idf = vectorizer.idf_
            except ValueError:  # no document has a single term: nothing can match, the Python path is exact
                pass
        if self._vectorizer is None:
            self._build_postings(documents)

    def _build_postings(self, documents: Sequence[str]) -> None:
        counts = [Counter(self.analyzer(doc)) for doc in documents]
        self._idf = idf_table(counts)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for index, count in enumerate(counts):
            for term, weight in weigh(count, self._idf).items():
                ids, weights = postings.setdefault(term, ([], []))
                ids.append(index)
                weights.append(weight)
        self._postings = postings

    def matches(self, query: str) -> dict[int, float]:
        """The similarity of ``query`` to every document that shares a term with it (others score 0)."""
        if self._vectorizer is None:
            return self._sum_python(query)
        totals = self._totals(query)
        hit = totals.nonzero()[0]
        return dict(zip(hit.tolist(), totals[hit].tolist()))

    def _sum_python(self, query: str) -> dict[int, float]:
        totals: dict[int, float] = {}
        for term, weight in weigh(Counter(self.analyzer(query)), self._idf).items():
            ids, weights = self._postings[term]
            for index, doc_weight in zip(ids, weights):
                totals[index] = totals.get(index, 0.0) + weight * doc_weight
        return totals

    def _totals(self, query: str) -> Any:
        """Every document's score as a dense array, summed from the postings (columns) of the query's terms."""
        np = importlib.import_module("numpy")
        counts = Counter(t for t in self.analyzer(query) if t in self._columns)
        if not counts:
            return np.zeros(self.size)
        columns = [self._columns[t] for t in counts]
        weights = np.array([counts[t] for t in counts], dtype=float) * self._term_idf[columns]
        weights /= np.sqrt(weights @ weights)
        matrix = self._by_term
        starts, ends = matrix.indptr[columns], matrix.indptr[np.array(columns) + 1]
        ids = np.concatenate([matrix.indices[a:b] for a, b in zip(starts, ends)])
        products = np.concatenate([w * matrix.data[a:b] for w, a, b in zip(weights, starts, ends)])
        return np.bincount(ids, weights=products, minlength=self.size)

    def scores(self, query: str) -> list[float]:
        """The similarity of ``query`` to each document, in document order."""
        found = self.matches(query)
        return [found.get(i, 0.0) for i in range(self.size)]

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` ``(document index, score)`` pairs with a positive score, best first (ties: lower index)."""
        if self._vectorizer is None:
            positive = [(i, s) for i, s in self._sum_python(query).items() if s > 0.0]
            return heapq.nsmallest(k, positive, key=lambda pair: (-pair[1], pair[0]))
        np = importlib.import_module("numpy")
        totals = self._totals(query)
        hit = np.flatnonzero(totals > 0.0)
        if hit.size > k:
            kth = np.partition(totals[hit], hit.size - k)[hit.size - k]
            hit = hit[totals[hit] >= kth]
        best = hit[np.lexsort((hit, -totals[hit]))[:k]]
        return list(zip(best.tolist(), totals[best].tolist()))
