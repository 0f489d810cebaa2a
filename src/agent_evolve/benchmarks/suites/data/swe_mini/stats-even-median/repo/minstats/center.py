"""Measures of the centre of a list of numbers."""


def mean(values):
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)


def median(values):
    """The middle value of the sorted values."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
