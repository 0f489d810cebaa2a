"""Day counts between timestamps."""

from datetime import datetime


def days_between(start: datetime, end: datetime) -> int:
    """The number of calendar days from `start` to `end`."""
    return (end - start).days
