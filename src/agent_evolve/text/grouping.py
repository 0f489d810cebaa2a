"""Grouping items that are linked pairwise, transitively (union-find): near-duplicate texts, paraphrased failure
patterns."""

from __future__ import annotations

from collections.abc import Callable


def union_find_groups(count: int, linked: Callable[[int, int], bool]) -> list[int]:
    """The group (its smallest member index) of each of ``count`` items, joining each pair ``i < j`` that
    ``linked(i, j)`` accepts (transitively)."""
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(count):
        for j in range(i + 1, count):
            if linked(i, j):
                a, b = root(i), root(j)
                parent[max(a, b)] = min(a, b)
    return [root(i) for i in range(count)]
