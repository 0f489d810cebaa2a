"""Engines side by side as pure functions: each engine's parameters, and one table of lift and cost per engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from agent_evolve.errors import ConfigError
from agent_evolve.lift.analysis import TEST_KEYS, arm_summary, paired_tasks, report_head, summarize
from agent_evolve.lift.plan import CONTROL, EVOLVED, ArmRun, ComparisonPlan


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
    return {
        "engine": name,
        "seeds": len(runs),
        "test": pooled["candidate_mean"],
        "mean_lift": arm["mean_lift"],
        **{key: pooled[key] for key in TEST_KEYS},
        "stdev": arm["spread"]["stdev"],
        "accepted": arm["accepted"],
        "rejected": arm["rejected"],
        "cost": dict(arm["cost"]),
        "lift_per_100_solves": arm["lift_per_100_solves"],
    }


def compare(plan: ComparisonPlan, baseline: Mapping[str, float], runs: Mapping[str, Sequence[ArmRun]],
            controls: Sequence[ArmRun], *, baseline_key: str = "", baseline_cost: Mapping[str, float] | None = None,
            resamples: int = 10_000, baseline_draws: Sequence[Mapping[str, float]] = (),
            evidence: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The comparison report: one row per engine with finished seeds (and the control), each engine's own lift
    report (as a single-engine experiment would write it), and the per-task table over every engine and seed."""
    reports = {
        engine: summarize(plan.lift_plan(engine), baseline, [*done, *controls], baseline_key=baseline_key,
                          baseline_cost=baseline_cost, resamples=resamples, baseline_draws=baseline_draws,
                          evidence=evidence)
        for engine, done in runs.items() if done
    }
    rows = [table_row(engine, runs[engine], report["arms"][EVOLVED]) for engine, report in reports.items()]
    control = table_row(CONTROL, controls, arm_summary(baseline, controls, resamples)) if controls else None
    named = [dataclasses.replace(r, arm=engine) for engine, done in runs.items() for r in done]
    return {
        **report_head(plan, {"engines": list(plan.engines)}, baseline, baseline_key, baseline_cost,
                      dict(evidence or {})),
        "table": rows,
        "control": control,
        "control_exact": bool(controls and reports) and all(r["control_exact"] for r in reports.values()),
        "reports": reports,
        "tasks": paired_tasks(baseline, [*named, *controls]),
    }
