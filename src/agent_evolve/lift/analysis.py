"""The lift protocol's numbers from per-task test scores: per seed, pooled, the spread, each draw pairing's lift, the
baseline's churn, the lift against each control (the headline is the smaller) and the seeds' convergence."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from agent_evolve.lift.plan import ARM_ROWS, ARMS, CONTROL, EVOLVED, MATCHED, ArmRun, ComparisonPlan, LiftPlan
from agent_evolve.stats import TOLERANCE, PairedTable, lift_summary, mean

TEST_KEYS = ("ci_low", "ci_high", "p_value", "wins", "losses", "ties")  # a lift's CI and sign test, as stats gives them
COST_KEYS: tuple[str, ...] = ("evolution_solves", "test_solves", "solves", "engine_calls", "tokens", "seconds")


def run_row(baseline: Mapping[str, float], run: ArmRun, baseline_key: str = "") -> dict[str, Any]:
    """One arm of one seed against the baseline on the same test tasks: means, lift, CI, p-value, evolution."""
    stats = lift_summary(PairedTable.pair(baseline, run.test_scores), seed=run.seed)
    return {"arm": run.arm, "seed": run.seed, "baseline_test": stats["baseline_mean"],
            "evolved_test": stats["candidate_mean"], "lift": stats["mean_difference"],
            **{key: stats[key] for key in TEST_KEYS}, "baseline_holdout": run.baseline_holdout,
            "evolved_holdout": run.final_holdout, "accepted": run.accepted, "rejected": run.rejected,
            "cycles": run.cycles, "score_curve": list(run.score_curve),
            "identical_to_baseline": bool(baseline_key) and run.test_key == baseline_key, "workspace": run.workspace,
            "cost": dict(run.cost), "edits": dict(run.edits)}


def pooled(reference: Mapping[str, float], runs: Sequence[ArmRun]) -> dict[str, Any]:
    """The arm's lift over `reference` (the baseline's or a control's task scores), task by task: each task's score
    averaged over its seeds; the CI resamples tasks, not (seed, task) pairs, which are not independent."""
    return lift_summary(PairedTable.pair(reference, task_means([r.test_scores for r in runs])))


def arm_summary(baseline: Mapping[str, float], runs: Sequence[ArmRun]) -> dict[str, Any]:
    """One arm over its seeds: mean lift, pooled CI and p-value, seed-to-seed spread (mean, sample stdev, min and max
    of the per-seed lifts), cost, lift per 100 solves."""
    lifts = [PairedTable.pair(baseline, r.test_scores).mean_difference for r in runs]
    cost = {key: math.fsum(float(r.cost.get(key, 0)) for r in runs) for key in COST_KEYS}
    lift = mean(lifts)
    spread = {"mean": lift, "stdev": statistics.stdev(lifts) if len(lifts) > 1 else 0.0, "min": min(lifts),
              "max": max(lifts)}
    return {"mean_lift": lift, "pooled": pooled(baseline, runs), "spread": spread, "cost": cost,
            "lift_per_100_solves": 100 * lift / (cost["solves"] / len(runs)) if cost["solves"] else 0.0,
            "accepted": sum(r.accepted for r in runs), "rejected": sum(r.rejected for r in runs)}


def paired_tasks(baseline: Mapping[str, float], runs: Sequence[ArmRun]) -> list[dict[str, Any]]:
    """The per-task paired table: each test task's baseline score and its score in every arm and seed (draws
    averaged)."""
    return [{"task_id": task_id, "baseline": score,
             **{f"{r.arm}/{r.seed}": r.test_scores[task_id] for r in runs if task_id in r.test_scores}}
            for task_id, score in sorted(baseline.items())]


def report_head(plan: LiftPlan | ComparisonPlan, engines: Mapping[str, Any], baseline: Mapping[str, float],
                baseline_key: str, baseline_cost: Mapping[str, float] | None,
                registration: dict[str, Any]) -> dict[str, Any]:
    """The fields a lift report and a comparison report open with, in their order; `engines` names the engine(s)."""
    return {"plan": plan.to_dict(), "registration": registration, "benchmark": plan.benchmark, "agent": plan.agent,
            **engines, "test_tasks": len(baseline), "baseline_test": mean(list(baseline.values())) if baseline else
            0.0, "baseline_key": baseline_key, "baseline_cost": dict(baseline_cost or {})}


def summarize(plan: LiftPlan, baseline: Mapping[str, float], runs: Sequence[ArmRun], *, baseline_key: str = "",
              baseline_cost: Mapping[str, float] | None = None, baseline_draws: Sequence[Mapping[str, float]] = (),
              evidence: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The whole report: plan, registration, baseline, per-seed rows and pooled lift of each arm, draw evidence; the
    control is `exact` when every seed ends byte-identical to the baseline, with its per-task scores in every draw."""
    by_arm = {arm: [r for r in runs if r.arm == arm] for arm in plan.arms}
    report: dict[str, Any] = {
        **report_head(plan, {"engine": plan.engine}, baseline, baseline_key, baseline_cost,
                      dict(evidence or {"plan_id": "", "registered": False})),
        **{ARM_ROWS[arm]: [run_row(baseline, r, baseline_key) for r in by_arm.get(arm, [])] for arm in ARMS},
        "arms": {arm: arm_summary(baseline, rs) for arm, rs in by_arm.items() if rs},
        "tasks": paired_tasks(baseline, runs),
        "control_exact": bool(by_arm.get(CONTROL)) and all(
            r.test_key == baseline_key and r.draws == list(baseline_draws or [baseline]) for r in by_arm[CONTROL]),
    }
    report["mean_lift"] = report["arms"][EVOLVED]["mean_lift"] if by_arm[EVOLVED] else 0.0
    report["evidence"] = draw_evidence(list(baseline_draws) or [dict(baseline)], by_arm)
    return report


def task_means(scores: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Each task's score averaged over the score maps (draws, seeds) that hold it."""
    tasks = sorted({t for s in scores for t in s})
    return {t: mean([s[t] for s in scores if t in s]) for t in tasks}


def draw_pairings(baseline_draws: Sequence[Mapping[str, float]], runs: Sequence[ArmRun]) -> list[dict[str, Any]]:
    """The arm's lift (seeds averaged per task) for every pairing of a baseline draw with an arm draw."""
    count = max((len(r.draws) for r in runs), default=0)
    rows = []
    for i, base in enumerate(baseline_draws):
        for j in range(count):
            arm = task_means([r.draws[j] for r in runs if j < len(r.draws)])
            table = PairedTable.pair(base, arm)
            if table.n:
                rows.append({"baseline_draw": i, "arm_draw": j, "lift": table.mean_difference, "tasks": table.n})
    return rows


def churn(draws: Sequence[Mapping[str, float]]) -> list[dict[str, Any]]:
    """For each two draws of one workspace: the tasks whose score changed, and the change of the mean."""
    rows = []
    for (i, a), (j, b) in combinations(enumerate(draws), 2):
        table = PairedTable.pair(a, b)
        if table.n:
            changed = sum(1 for d in table.differences if abs(d) > TOLERANCE)
            rows.append({"draws": [i, j], "changed": changed, "tasks": table.n, "difference": table.mean_difference})
    return rows


def convergence(runs: Sequence[ArmRun]) -> dict[str, Any]:
    """How many seeds ended with the same workspace content as the most common one, and a sentence saying so."""
    if not runs:
        return {"seeds": 0, "distinct": 0, "largest": 0, "sentence": ""}
    counts = Counter(r.test_key for r in runs)
    largest, n = max(counts.values()), len(runs)
    if largest == n and n > 1:
        sentence = f"{n} of {n} seeds converged to one workspace: one measurement."
    elif largest > 1:
        sentence = (f"{largest} of {n} seeds converged to one workspace; the seeds ended with {len(counts)} "
                    "distinct workspaces.")
    else:
        sentence = f"The {n} seed(s) ended with {n} distinct workspace(s)."
    return {"seeds": n, "distinct": len(counts), "largest": largest, "sentence": sentence}


def draw_evidence(baseline_draws: Sequence[Mapping[str, float]],
                  by_arm: Mapping[str, Sequence[ArmRun]]) -> dict[str, Any]:
    """Draw pairings and churn, the lift against each control that ran, the headline and the seeds' convergence."""
    evolved = list(by_arm.get(EVOLVED, []))
    controls = {name: pooled(task_means([r.test_scores for r in by_arm[name]]), evolved)
                for name in (CONTROL, MATCHED) if by_arm.get(name) and evolved}
    headline = min(controls.items(), key=lambda item: item[1]["mean_difference"]) if controls else None
    return {"draw_pairings": draw_pairings(baseline_draws, evolved), "baseline_churn": churn(baseline_draws),
            "against_controls": controls, "headline": {"against": headline[0], **headline[1]} if headline else None,
            "matched_tokens": [{"seed": m.seed, "matched": m.test_tokens, "evolved": e.test_tokens}
                               for m in by_arm.get(MATCHED, []) for e in evolved if e.seed == m.seed],
            "convergence": convergence(evolved)}
