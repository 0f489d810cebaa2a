"""Engines side by side, resumably: the baseline once, then per seed every engine's arm and one control arm, with
comparison.json, .md (lift and cost, a row per engine) and .png rewritten after each, and each engine's lift report."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.loop import Progress
from agent_evolve.errors import ConfigError
from agent_evolve.lift.analysis import TEST_KEYS, arm_summary, paired_tasks, report_head, summarize
from agent_evolve.lift.opening import experiment_lock, open_experiment
from agent_evolve.lift.plan import CONTROL, EVOLVED, ArmRun, ComparisonPlan
from agent_evolve.lift.report import (cost_cells, pyplot, registration_lines, saved, test_cells, write_report,
                                      written_report)
from agent_evolve.lift.run import arm_once, run_arm, score_baseline
from agent_evolve.registry import engine_class


def engine_params_for(engine: str, params: Mapping[str, Any], engines: Sequence[str]) -> dict[str, Any]:
    """One engine's `engine_params` in a comparison: a key `name.key` goes to engine `name` only (as `key`), a plain
    key to every engine."""
    unknown = sorted(k for k in params if "." in k and k.split(".", 1)[0] not in engines)
    if unknown:
        raise ConfigError(f"engine_params {unknown} name an engine that is not compared ({', '.join(engines)})")
    own = {k.split(".", 1)[1]: v for k, v in params.items() if k.startswith(f"{engine}.")}
    return {**{k: v for k, v in params.items() if "." not in k}, **own}


def table_row(name: str, runs: Sequence[ArmRun], arm: Mapping[str, Any]) -> dict[str, Any]:
    """One row of the comparison: an arm's mean test score and lift over its seeds, pooled CI and p, cost."""
    pooled = arm["pooled"]
    return {"engine": name, "seeds": len(runs), "test": pooled["candidate_mean"], "mean_lift": arm["mean_lift"],
            **{key: pooled[key] for key in TEST_KEYS}, "stdev": arm["spread"]["stdev"], "accepted": arm["accepted"],
            "rejected": arm["rejected"], "cost": dict(arm["cost"]),
            "lift_per_100_solves": arm["lift_per_100_solves"]}


def compare(plan: ComparisonPlan, baseline: Mapping[str, float], runs: Mapping[str, Sequence[ArmRun]],
            controls: Sequence[ArmRun], *, baseline_key: str = "", baseline_cost: Mapping[str, float] | None = None,
            baseline_draws: Sequence[Mapping[str, float]] = (), evidence: Mapping[str, Any] | None = None
            ) -> dict[str, Any]:
    """The comparison report: one row per engine with finished seeds (and the control), each engine's own lift
    report (as a single-engine experiment would write it), and the per-task table over every engine and seed."""
    reports = {
        engine: summarize(plan.lift_plan(engine), baseline, [*done, *controls], baseline_key=baseline_key,
                          baseline_cost=baseline_cost, baseline_draws=baseline_draws, evidence=evidence)
        for engine, done in runs.items() if done
    }
    rows = [table_row(engine, runs[engine], report["arms"][EVOLVED]) for engine, report in reports.items()]
    control = table_row(CONTROL, controls, arm_summary(baseline, controls)) if controls else None
    named = [dataclasses.replace(r, arm=engine) for engine, done in runs.items() for r in done]
    head = report_head(plan, {"engines": list(plan.engines)}, baseline, baseline_key, baseline_cost,
                       dict(evidence or {}))
    return {**head, "table": rows, "control": control,
            "control_exact": bool(controls and reports) and all(r["control_exact"] for r in reports.values()),
            "reports": reports, "tasks": paired_tasks(baseline, [*named, *controls])}


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
    errors = [[r["mean_lift"] - r["ci_low"] for r in rows], [r["ci_high"] - r["mean_lift"] for r in rows]]
    bars.bar(range(len(rows)), [r["mean_lift"] for r in rows], yerr=errors, capsize=4, color="tab:blue")
    bars.set_xticks(range(len(rows)), [r["engine"] for r in rows])
    bars.axhline(0, color="black", linewidth=0.8)
    bars.set(ylabel=f"test lift ({report['test_tasks']} tasks, pooled 95% CI)",
             title=f"{report['benchmark']}: lift per engine")
    for row in rows:
        per_seed = row["cost"]["solves"] / max(1, row["seeds"])
        costs.scatter(per_seed, row["mean_lift"])
        costs.annotate(row["engine"], (per_seed, row["mean_lift"]), textcoords="offset points", xytext=(4, 4))
    costs.axhline(0, color="black", linewidth=0.8)
    costs.set(xlabel="task solves per seed", ylabel="mean test lift", title="lift against cost")
    return saved(plt, fig, path)


def write_comparison(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write comparison.json, comparison.md, comparison.png (with the `plot` extra) and `<engine>/lift.*`."""
    written = written_report(out_dir, "comparison", report, comparison_markdown(report), plot_comparison)
    for engine, single in report["reports"].items():
        written += write_report(single, out_dir / engine)
    return written


def run_comparison(plan: ComparisonPlan, benchmark: BenchmarkAdapter, config: EvolveConfig, out_dir: Path, *,
                   progress: Progress | None = None) -> dict:
    """Run (or resume) every engine and the control for every seed; returns the comparison report."""
    with experiment_lock(out_dir):
        experiment = open_experiment(plan, benchmark, config, out_dir, progress)
        config = experiment.config
        for engine in plan.engines:   # an unknown or misnamed engine fails before any work
            engine_class(engine)
            engine_params_for(engine, config.engine_params, plan.engines)
        baseline = score_baseline(experiment, out_dir, progress)
        runs: dict[str, list[ArmRun]] = {engine: [] for engine in plan.engines}
        controls: list[ArmRun] = []
        report: dict = {}

        def arm(engine: str, kind: str, seed: int, arm_config: EvolveConfig) -> ArmRun:
            folder = out_dir / (CONTROL if kind == CONTROL else engine) / f"seed-{seed}"
            return arm_once(experiment, out_dir, folder, partial(run_arm, plan.lift_plan(engine), kind, seed,
                                                                 experiment, benchmark, arm_config, out_dir, progress,
                                                                 folder))

        def rewrite() -> dict:
            result = compare(plan, baseline.scores, runs, controls, baseline_key=baseline.key,
                             baseline_cost=baseline.cost, baseline_draws=baseline.draws,
                             evidence=experiment.evidence())
            write_comparison(result, out_dir)
            return result

        for seed in plan.seeds:
            for engine in plan.engines:
                params = engine_params_for(engine, config.engine_params, plan.engines)
                runs[engine].append(arm(engine, EVOLVED, seed, dataclasses.replace(config, engine_params=params)))
                report = rewrite()
            if plan.control:
                controls.append(arm(plan.engines[0], CONTROL, seed, config))
                report = rewrite()
        return report
