"""Axis limits and ticks of the report's figures, as pure functions for any number of cycles: scores widened with a
margin so no point lies on the frame, amounts from 0, whole cycle ticks."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

SCORE_MARGIN = 0.05
"""The share of the score span left free above and below it."""

AMOUNT_HEADROOM = 0.1
"""The share of the largest amount left free above it."""

MOST_CYCLE_TICKS = 12


@dataclass(frozen=True)
class AxisRange:
    """The low and high end of one axis."""

    low: float
    high: float


def _finite(values: Iterable[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def score_limits(
    values: Iterable[float | None], score_range: tuple[float, float] = (0.0, 1.0), margin: float = SCORE_MARGIN
) -> AxisRange:
    """`score_range` widened to every value shown, plus `margin` of its span on each side."""
    shown = _finite(values)
    low, high = min([score_range[0], *shown]), max([score_range[1], *shown])
    span = high - low or 1.0
    return AxisRange(low - margin * span, high + margin * span)


def amount_limits(values: Iterable[float | None], empty_top: float = 1.0, headroom: float = AMOUNT_HEADROOM) -> AxisRange:
    """From 0 (tokens and dollars are never negative) to the largest value plus `headroom`; `empty_top` when all are 0."""
    top = max([0.0, *_finite(values)])
    return AxisRange(0.0, top * (1 + headroom) if top > 0 else empty_top)


def cycle_limits(cycles: Iterable[int]) -> AxisRange:
    """Half a cycle beyond the first and the last, so a single cycle sits mid-axis and every bar fits."""
    shown = list(cycles)
    if not shown:
        return AxisRange(0.5, 1.5)
    return AxisRange(min(shown) - 0.5, max(shown) + 0.5)


def cycle_ticks(cycles: Iterable[int], most: int = MOST_CYCLE_TICKS) -> list[int]:
    """Whole cycles from the first to the last, every n-th one when there would be more than `most`."""
    shown = list(cycles)
    if not shown:
        return []
    first, last = min(shown), max(shown)
    step = max(1, math.ceil((last - first + 1) / most))
    return list(range(first, last + 1, step))
