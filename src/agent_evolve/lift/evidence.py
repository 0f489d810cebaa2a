"""What a reader needs to weigh a lift, as pure functions of the scores: the lift of every draw pairing, the
baseline's draw-to-draw churn, the lift against each control (the headline is the smaller), and how many seeds
ended with one workspace content."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from agent_evolve.lift.plan import CONTROL, EVOLVED, MATCHED, ArmRun
from agent_evolve.stats import TOLERANCE, PairedTable, lift_summary, mean


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


def against(reference: Sequence[ArmRun], runs: Sequence[ArmRun], resamples: int) -> dict[str, Any]:
    """The arm's lift over a control, task by task, each task averaged over the draws and seeds of each side."""
    return lift_summary(PairedTable.pair(task_means([r.test_scores for r in reference]),
                                         task_means([r.test_scores for r in runs])), resamples=resamples)


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


def evidence(baseline_draws: Sequence[Mapping[str, float]], by_arm: Mapping[str, Sequence[ArmRun]],
             resamples: int) -> dict[str, Any]:
    """Draw pairings and churn, the lift against each control that ran, the headline and the seeds' convergence."""
    evolved = list(by_arm.get(EVOLVED, []))
    controls = {name: against(by_arm[name], evolved, resamples) for name in (CONTROL, MATCHED)
                if by_arm.get(name) and evolved}
    headline = min(controls.items(), key=lambda item: item[1]["mean_difference"]) if controls else None
    matched_tokens = [(m.test_tokens, e.test_tokens) for m in by_arm.get(MATCHED, []) for e in evolved
                      if e.seed == m.seed]
    return {
        "draw_pairings": draw_pairings(baseline_draws, evolved),
        "baseline_churn": churn(baseline_draws),
        "against_controls": controls,
        "headline": {"against": headline[0], **headline[1]} if headline else None,
        "matched_tokens": [{"matched": m, "evolved": e} for m, e in matched_tokens],
        "convergence": convergence(evolved),
    }
