"""The comparison on disk: comparison.json, comparison.md (one table, a row per engine), comparison.png, and each
engine's own lift report in its folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import atomic_write
from agent_evolve.lift.report import cost_cells, pyplot, registration_lines, saved, test_cells, write_report

HEADER = ("| engine | seeds | test score | mean lift | pooled 95% CI | p (sign test) | wins / losses / ties "
          "| seed stdev | accepted | rejected | solves | evolution solves | test solves | engine calls | tokens "
          "| seconds | lift per 100 solves |")


def _row(row: dict[str, Any]) -> str:
    return (f"| {row['engine']} | {row['seeds']} | {row['test']:.3f} | {row['mean_lift']:+.3f} {test_cells(row)}"
            f"| {row['stdev']:.3f} | {row['accepted']} | {row['rejected']} "
            f"{cost_cells(row['cost'], row['lift_per_100_solves'])}")


def comparison_markdown(report: dict[str, Any]) -> str:
    """comparison.md: the plan in a sentence, then one row per engine (and the control) with lift and cost."""
    plan = report["plan"]
    done = {row["engine"] for row in report["table"]}
    waiting = [e for e in report["engines"] if e not in done]
    lines = [
        f"# Engines side by side on {report['benchmark']} ({report['test_tasks']} test tasks), agent "
        f"{report['agent']}", "",
        f"Engines {', '.join(report['engines'])}; seeds {', '.join(str(s) for s in plan['seeds'])}; "
        f"{plan['cycles']} cycle(s) each, one config (splits and budgets) for all. Baseline test score "
        f"{report['baseline_test']:.3f}, scored once and shared; every arm is compared with it task by task "
        "(lift, CI and p over the test tasks, each task averaged over the seeds; cost summed over seeds).", "",
        *registration_lines(report.get("registration") or {}),
        HEADER, "|---|" + "---:|" * 16, *(_row(r) for r in report["table"]),
    ]
    if report["control"]:
        lines.append(_row(report["control"]))
    base = report.get("baseline_cost") or {}
    if base:
        lines.append(f"| baseline (test split, once) | | {report['baseline_test']:.3f} | | | | | | | "
                     f"| {base['solves']:.0f} | 0 | {base['solves']:.0f} | 0 | {base['tokens']:.0f} "
                     f"| {base['seconds']:.0f} | |")
    lines.append("")
    if report["control"]:
        verdict = "yes" if report["control_exact"] else "NO"
        lines += [f"Control arm (same loop, an engine that never edits) ends exactly at the baseline: **{verdict}**.",
                  ""]
    if waiting:
        lines += [f"Not finished yet (no seed done): {', '.join(waiting)}. Run the same command again to continue.",
                  ""]
    lines.append("Per-seed rows of each engine: `<engine>/lift.md`.")
    return "\n".join(lines) + "\n"


def plot_comparison(report: dict[str, Any], path: Path) -> Path | None:
    """Mean lift per engine with its pooled 95% CI, and lift against solves spent; None without matplotlib."""
    plt = pyplot()
    if plt is None:
        return None
    rows = [*report["table"], *([report["control"]] if report["control"] else [])]
    fig, (bars, costs) = plt.subplots(1, 2, figsize=(10, 3.8))
    names = [r["engine"] for r in rows]
    lifts = [r["mean_lift"] for r in rows]
    errors = [[r["mean_lift"] - r["ci_low"] for r in rows], [r["ci_high"] - r["mean_lift"] for r in rows]]
    bars.bar(range(len(rows)), lifts, yerr=errors, capsize=4, color="tab:blue")
    bars.set_xticks(range(len(rows)), names)
    bars.axhline(0, color="black", linewidth=0.8)
    bars.set_ylabel(f"test lift ({report['test_tasks']} tasks, pooled 95% CI)")
    bars.set_title(f"{report['benchmark']}: lift per engine")
    for row in rows:
        per_seed = row["cost"]["solves"] / max(1, row["seeds"])
        costs.scatter(per_seed, row["mean_lift"])
        costs.annotate(row["engine"], (per_seed, row["mean_lift"]), textcoords="offset points", xytext=(4, 4))
    costs.axhline(0, color="black", linewidth=0.8)
    costs.set_xlabel("task solves per seed")
    costs.set_ylabel("mean test lift")
    costs.set_title("lift against cost")
    return saved(plt, fig, path)


def write_comparison(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write comparison.json, comparison.md, comparison.png (with the `plot` extra) and `<engine>/lift.*`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "comparison.json", out_dir / "comparison.md"]
    atomic_write(written[0], json.dumps(report, indent=1))
    atomic_write(written[1], comparison_markdown(report))
    plot = plot_comparison(report, out_dir / "comparison.png")
    for engine, single in report["reports"].items():
        written += write_report(single, out_dir / engine)
    return written + ([plot] if plot else [])
