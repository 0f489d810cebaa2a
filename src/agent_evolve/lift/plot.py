"""lift.png: per-seed lift bars with their 95% CI, and the accepted holdout score per cycle (matplotlib, lazily)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, or None when the `plot` extra is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def saved(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out `fig`, write it to `path` and close it."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_lift(report: dict[str, Any], path: Path) -> Path | None:
    """Draw the plot; None when matplotlib (the `plot` extra) is not installed."""
    plt = pyplot()
    if plt is None:
        return None
    from matplotlib.ticker import MaxNLocator

    arms = [("evolved", report["runs"]), ("control", report["control"])]
    fig, (bars, curves) = plt.subplots(1, 2, figsize=(10, 3.8))
    width = 0.38
    for offset, (name, rows) in zip((-width / 2, width / 2), arms):
        xs = [i + offset for i in range(len(rows))]
        lifts = [r["lift"] for r in rows]
        errors = [[r["lift"] - r["ci_low"] for r in rows], [r["ci_high"] - r["lift"] for r in rows]]
        if rows:
            bars.bar(xs, lifts, width=width, yerr=errors, capsize=4, label=name)
    seeds = [str(r["seed"]) for r in report["runs"]]
    bars.set_xticks(range(len(seeds)), [f"seed {s}" for s in seeds])
    bars.axhline(0, color="black", linewidth=0.8)
    bars.set_ylabel(f"test lift ({report['test_tasks']} tasks, 95% CI)")
    bars.set_title(f"{report['benchmark']}: lift per seed ({report['engine']})")
    bars.legend()
    for row in report["runs"]:
        curve = [row["baseline_holdout"], *row["score_curve"]]
        curves.plot(range(len(curve)), curve, marker="o", label=f"seed {row['seed']}")
    curves.xaxis.set_major_locator(MaxNLocator(integer=True))
    curves.set_xlabel("cycle")
    curves.set_ylabel("accepted holdout score")
    curves.set_title("score curve per cycle")
    curves.legend()
    return saved(plt, fig, path)
