"""The report's figures with matplotlib (the `[plot]` extra): score curves and spending, as SVG or PNG, with axis
limits and ticks as pure functions of the values, so no point lies on the frame for any number of cycles."""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

from agent_evolve.errors import optional_module
from agent_evolve.userview.run import CycleRow

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SCORE_MARGIN = 0.05  # the share of the score span left free above and below it
AMOUNT_HEADROOM = 0.1  # the share of the largest amount left free above it
MOST_CYCLE_TICKS = 12
EMPTY_COST_TOP = 0.01  # the top of the dollar axis of a run that cost nothing
_MARKS = {"accepted": ("^", "#2a9d4b", "accepted"), "rejected": ("x", "#d62828", "rejected")}


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
    return AxisRange(min(shown, default=1) - 0.5, max(shown, default=1) + 0.5)


def cycle_ticks(cycles: Iterable[int], most: int = MOST_CYCLE_TICKS) -> list[int]:
    """Whole cycles from the first to the last, every n-th one when there would be more than `most`."""
    shown = list(cycles)
    if not shown:
        return []
    first, last = min(shown), max(shown)
    step = max(1, math.ceil((last - first + 1) / most))
    return list(range(first, last + 1, step))


def _figure(width: float, height: float, cycles: Sequence[int]) -> Figure:
    """A new figure with one axes whose cycle axis has whole-cycle ticks and half a cycle either side."""
    figures = optional_module("matplotlib.figure", "plot", "the report's figures")
    figure = figures.Figure(figsize=(width, height), dpi=100)
    axes = figure.add_subplot()
    axes.set_xlim(*astuple(cycle_limits(cycles)))
    axes.set_xticks(cycle_ticks(cycles))
    axes.set_xlabel("cycle")
    return figure


def _series(axes: Axes, points: Sequence[tuple[int, float]], colour: str, label: str, *, marker: str = "o",
            linestyle: str = "-", step: bool = False) -> None:
    """A series as a line through its points; a single point as a hollow marker alone (a one-point line draws
    nothing, and hollow markers stay visible where one cycle's series share a value)."""
    if not points:
        return
    xs, ys = [c for c, _ in points], [s for _, s in points]
    if len(points) == 1:
        axes.plot(xs, ys, linestyle="none", marker=marker, markersize=9, markerfacecolor="none", markeredgewidth=1.5,
                  color=colour, label=label)
    elif step:
        axes.step(xs, ys, where="post", marker=marker, markersize=3, color=colour, label=label)
    else:
        axes.plot(xs, ys, linestyle=linestyle, marker=marker, markersize=3, color=colour, label=label)


def score_figure(rows: Sequence[CycleRow], baseline: float | None) -> Figure:
    """Cycle score, accepted holdout score and batch score per cycle; accepted and rejected cycles marked."""
    cycles = [r.cycle for r in rows]
    figure = _figure(8, 3.6, cycles)
    axes = figure.axes[0]
    holdout = [(r.cycle, r.holdout_score) for r in rows if r.holdout_score is not None]
    batch = [(r.cycle, r.batch_score) for r in rows if r.batch_score is not None]
    _series(axes, [(r.cycle, r.score) for r in rows], "#1d3557", "cycle score")
    _series(axes, holdout, "#2a9d4b", "accepted holdout score", marker="s", step=True)
    _series(axes, batch, "#999999", "batch score", marker="D", linestyle="--")
    marked_scores: list[float] = []
    for outcome, (marker, colour, label) in _MARKS.items():
        marked = [(r.cycle, (r.gate or {}).get("candidate_score", r.score)) for r in rows if r.outcome == outcome]
        if marked:
            axes.scatter([c for c, _ in marked], [s for _, s in marked], marker=marker, color=colour, s=60, zorder=3,
                         label=f"{label} candidate")
            marked_scores += [s for _, s in marked]
    if baseline is not None:
        axes.axhline(baseline, color="#bbbbbb", linewidth=0.8, linestyle=":", label="baseline")
    shown = [r.score for r in rows] + [s for _, s in holdout + batch] + marked_scores + [baseline]
    axes.set_ylim(*astuple(score_limits(shown)))
    axes.set_ylabel("score")
    axes.set_title("scores by cycle")
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    return figure


def spending_figure(rows: Sequence[CycleRow]) -> Figure:
    """Tokens per cycle (bars) and cumulative cost in US dollars (line), both from 0."""
    cycles = [r.cycle for r in rows]
    figure = _figure(8, 3.0, cycles)
    axes = figure.axes[0]
    tokens = [r.tokens for r in rows]
    axes.bar(cycles, tokens, color="#457b9d", label="tokens")
    axes.set_ylim(*astuple(amount_limits(tokens)))
    axes.set_ylabel("tokens")
    cost_axes = axes.twinx()
    running = list(accumulate(r.cost for r in rows))
    _series(cost_axes, list(zip(cycles, running)), "#e76f51", "cumulative cost $")
    cost_axes.set_ylim(*astuple(amount_limits(running, empty_top=EMPTY_COST_TOP)))
    cost_axes.set_ylabel("US dollars")
    axes.set_title("tokens and cost over time")
    figure.tight_layout()
    return figure


def svg_text(figure: Figure) -> str:
    """The figure as an inline `<svg>` element (no XML prolog, no external references)."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def save_png(figure: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png")
    return path
