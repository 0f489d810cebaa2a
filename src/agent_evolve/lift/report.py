"""The lift report on disk: lift.json (every number and the per-task paired table), lift.md, lift.png."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import atomic_write
from agent_evolve.lift.evidence_report import evidence_lines
from agent_evolve.lift.plot import plot_lift
from agent_evolve.lift.token_lift import token_lift_lines

RUN_HEADER = ("| seed | baseline test | arm test | lift | 95% CI | p (sign test) | wins / losses / ties "
              "| baseline holdout | evolved holdout | accepted | rejected | cycles | solves | seconds |")


def test_cells(row: dict[str, Any]) -> str:
    """A row's CI, sign-test p and wins / losses / ties cells, as every lift table shows them."""
    return (f"| [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}] | {row['p_value']:.3g} "
            f"| {row['wins']} / {row['losses']} / {row['ties']} ")


def cost_cells(cost: dict[str, Any], lift_per_100_solves: float) -> str:
    """The cost cells of an arm (solves of each kind, engine calls, tokens, seconds) and its lift per 100 solves."""
    return (f"| {cost['solves']:.0f} | {cost['evolution_solves']:.0f} | {cost['test_solves']:.0f} "
            f"| {cost['engine_calls']:.0f} | {cost['tokens']:.0f} | {cost['seconds']:.0f} "
            f"| {lift_per_100_solves:+.4f} |")


def _run_line(row: dict[str, Any]) -> str:
    cost = row["cost"]
    return (f"| {row['seed']} | {row['baseline_test']:.3f} | {row['evolved_test']:.3f} | {row['lift']:+.3f} "
            f"{test_cells(row)}| {row['baseline_holdout']:.3f} "
            f"| {row['evolved_holdout']:.3f} | {row['accepted']} | {row['rejected']} | {row['cycles']} "
            f"| {cost.get('solves', 0):.0f} | {cost.get('seconds', 0):.0f} |")


def _arm_lines(title: str, rows: list[dict[str, Any]], arm: dict[str, Any]) -> list[str]:
    pooled, spread = arm["pooled"], arm["spread"]
    return [
        f"## {title}", "", RUN_HEADER, "|" + "---:|" * 14, *(_run_line(r) for r in rows), "",
        f"Mean lift over {len(rows)} seed(s): **{arm['mean_lift']:+.3f}**; over its {pooled['n']} test tasks, each "
        f"averaged over the seeds: 95% CI [{pooled['ci_low']:+.3f}, {pooled['ci_high']:+.3f}], sign-test p = "
        f"{pooled['p_value']:.3g} ({pooled['wins']} tasks up, {pooled['losses']} down, {pooled['ties']} level). "
        f"Seed-to-seed spread: stdev {spread['stdev']:.3f}, min {spread['min']:+.3f}, max {spread['max']:+.3f}.", "",
    ]


def markdown_table(report: dict[str, Any]) -> str:
    """lift.md: a table per arm, the pooled lift with its CI and p-value, the control check and the cost."""
    plan = report["plan"]
    seeds = ", ".join(str(s) for s in plan["seeds"])
    lines = [
        f"# Lift on {report['benchmark']} ({report['test_tasks']} test tasks), agent {report['agent']}, "
        f"engine {report['engine']}", "",
        f"Seeds {seeds}, {plan['cycles']} cycle(s) each. Baseline test score {report['baseline_test']:.3f}; every "
        "arm is scored on the same test tasks and compared with the baseline task by task.", "",
        *evidence_lines(report),
    ]
    arms = report["arms"]
    if "evolved" in arms:
        lines += _arm_lines(f"Evolved arm (engine {report['engine']})", report["runs"], arms["evolved"])
    if "control" in arms:
        lines += _arm_lines("Control arm (same loop, an engine that never edits)", report["control"], arms["control"])
        verdict = "yes" if report["control_exact"] else "NO"
        lines += [f"Control arm ends exactly at its baseline (byte-identical workspace, same per-task scores in "
                  f"every draw): **{verdict}**.", ""]
    if "matched" in arms:
        lines += _arm_lines("Compute-matched control (the baseline workspace voting over sampled replies at the "
                            "evolved arm's tokens per test task)", report["matched"], arms["matched"])
    lines += ["## Cost per arm (all seeds)", "",
              "| arm | solves | evolution solves | test solves | engine calls | tokens | seconds | lift per 100 solves |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {name} {cost_cells(arm['cost'], arm['lift_per_100_solves'])}" for name, arm in arms.items()]
    base = report.get("baseline_cost") or {}
    if base:
        lines.append(f"| baseline (test split, once) | {base['solves']:.0f} | 0 | {base['solves']:.0f} | 0 "
                     f"| {base['tokens']:.0f} | {base['seconds']:.0f} | |")
    lines += ["", *token_lift_lines(report)]
    return "\n".join(lines) + "\n"


def write_report(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write lift.json, lift.md and, when matplotlib is installed (the `plot` extra), lift.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "lift.json", out_dir / "lift.md"]
    atomic_write(written[0], json.dumps(report, indent=1))
    atomic_write(written[1], markdown_table(report))
    plot = plot_lift(report, out_dir / "lift.png")
    return written + ([plot] if plot else [])
