"""The report's figures with matplotlib (the `[plot]` extra): score curves and spending, as SVG or PNG."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_evolve.userview.optional import optional_module
from agent_evolve.userview.run import CycleRow

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_MARKS = {"accepted": ("^", "#2a9d4b", "accepted"), "rejected": ("x", "#d62828", "rejected")}


def _figure(width: float, height: float) -> Figure:
    """A new figure with one axes whose cycle axis has whole-number ticks."""
    figures = optional_module("matplotlib.figure", "plot", "the report's figures")
    ticker = optional_module("matplotlib.ticker", "plot", "the report's figures")
    figure = figures.Figure(figsize=(width, height), dpi=100)
    figure.add_subplot().xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    return figure


def score_figure(rows: Sequence[CycleRow], baseline: float | None) -> Figure:
    """Cycle score, accepted holdout score and batch score per cycle; accepted and rejected cycles marked."""
    figure = _figure(8, 3.6)
    axes = figure.axes[0]
    cycles = [r.cycle for r in rows]
    axes.plot(cycles, [r.score for r in rows], "-o", color="#1d3557", markersize=3, label="cycle score")
    holdout = [(r.cycle, r.holdout_score) for r in rows if r.holdout_score is not None]
    if holdout:
        axes.step([c for c, _ in holdout], [s for _, s in holdout], where="post", color="#2a9d4b", label="accepted holdout score")
    batch = [(r.cycle, r.batch_score) for r in rows if r.batch_score is not None]
    if batch:
        axes.plot([c for c, _ in batch], [s for _, s in batch], "--", color="#999999", label="batch score")
    for outcome, (marker, colour, label) in _MARKS.items():
        marked = [(r.cycle, (r.gate or {}).get("candidate_score", r.score)) for r in rows if r.outcome == outcome]
        if marked:
            axes.scatter([c for c, _ in marked], [s for _, s in marked], marker=marker, color=colour, s=60, zorder=3,
                         label=f"{label} candidate")
    if baseline is not None:
        axes.axhline(baseline, color="#bbbbbb", linewidth=0.8, linestyle=":", label="baseline")
    axes.set_xlabel("cycle")
    axes.set_ylabel("score")
    axes.set_title("scores by cycle")
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    return figure


def spending_figure(rows: Sequence[CycleRow]) -> Figure:
    """Tokens per cycle (bars) and cumulative cost in US dollars (line)."""
    figure = _figure(8, 3.0)
    axes = figure.axes[0]
    cycles = [r.cycle for r in rows]
    axes.bar(cycles, [r.tokens for r in rows], color="#457b9d", label="tokens")
    axes.set_xlabel("cycle")
    axes.set_ylabel("tokens")
    cost_axes = axes.twinx()
    running, total = [], 0.0
    for row in rows:
        total += row.cost
        running.append(total)
    cost_axes.plot(cycles, running, "-o", color="#e76f51", markersize=3, label="cumulative cost $")
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
