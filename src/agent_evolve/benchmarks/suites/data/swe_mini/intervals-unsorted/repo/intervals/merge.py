"""Merge overlapping closed intervals."""


def merge(intervals):
    """Overlapping or touching intervals joined, sorted by start."""
    merged = []
    for start, end in intervals:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
