"""The engine table: each engine's registered lift on each benchmark (the headline, against the smaller of the
controls), generated from the committed plans and lift.json files, and the engine that lifts best across them all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.lift.claims import completion, fmt_lift
from agent_evolve.lift.shapes import LIFT_SCHEMA, read_checked, read_plan

ENGINE_MARKERS = ("<!-- engine-table:start (generated: agent-evolve experiment table --engines) -->",
                  "<!-- engine-table:end -->")


@dataclass(frozen=True)
class RegisteredRun:
    """One registered plan's folder and, once every seed's arms are scored, its headline (None before; ``progress``
    is then the seeds done and planned, when a lift.json of the plan exists)."""

    folder: str
    engine: str
    benchmark: str
    plan_id: str
    registered: str
    headline: dict[str, Any] | None
    progress: tuple[int, int] | None = None


def registered_runs(root: Path) -> list[RegisteredRun]:
    """Every registered single-engine plan under `root` with its lift.json's headline when that reports the same plan,
    named relative to `root`'s parent as documents link it (comparisons, without the matched control, are skipped)."""
    runs = []
    for plan_path in sorted(root.glob("*/plan.json")):
        plan = read_plan(plan_path) or {}
        if not plan.get("id") or not plan.get("registered") or "engines" in plan["plan"]:
            continue
        report = read_checked(plan_path.with_name("lift.json"), LIFT_SCHEMA) or {}
        headline, progress = None, None
        if (report.get("registration") or {}).get("plan_id") == plan["id"]:
            done, planned = completion(report)
            if done == planned:
                headline = (report.get("evidence") or {}).get("headline")
            else:
                progress = (done, planned)
        runs.append(RegisteredRun(plan_path.parent.relative_to(root.parent).as_posix(), plan["plan"]["engine"],
                                  plan["plan"]["benchmark"], plan["id"], plan["registered"], headline, progress))
    return runs


def latest(runs: Sequence[RegisteredRun]) -> dict[tuple[str, str], RegisteredRun]:
    """The most recently registered run of each (engine, benchmark)."""
    return {(run.engine, run.benchmark): run for run in sorted(runs, key=lambda r: r.registered)}


def best_engine(runs: Sequence[RegisteredRun]) -> str | None:
    """The engine whose smallest headline lift over every benchmark any registered run covers is the largest (ties:
    the larger mean lift), among engines finished on all of them; None while none is."""
    cells = latest(runs)
    benchmarks = {benchmark for _, benchmark in cells}
    scores = {}
    for engine in {engine for engine, _ in cells}:
        lifts = [cells[(engine, b)].headline["mean_difference"] for b in benchmarks
                 if (engine, b) in cells and cells[(engine, b)].headline]
        if len(lifts) == len(benchmarks):
            scores[engine] = (min(lifts), sum(lifts) / len(lifts))
    return max(scores, key=lambda engine: scores[engine]) if scores else None


def _cell(run: RegisteredRun | None) -> str:
    if run is None:
        return "not registered"
    if run.headline is None and run.progress is not None:
        done, planned = run.progress
        return f"[in progress: {done} of {planned} seeds fully scored]({run.folder}/lift.md) (plan {run.plan_id})"
    if run.headline is None:
        return f"[registered, no test result yet]({run.folder}/plan.json) (plan {run.plan_id})"
    head = run.headline
    lift = fmt_lift(head["mean_difference"], head["ci_low"], head["ci_high"])
    return f"[{lift}]({run.folder}/lift.json) ({head['wins']} won, {head['losses']} lost of {head['n']})"


def engine_table(runs: Sequence[RegisteredRun]) -> str:
    """The table between its markers: engines as rows, benchmarks as columns, and the best engine across all."""
    cells = latest(runs)
    engines = sorted({engine for engine, _ in cells})
    benchmarks = sorted({benchmark for _, benchmark in cells})
    rows = [f"| `{engine}` | " + " | ".join(_cell(cells.get((engine, b))) for b in benchmarks) + " |"
            for engine in engines]
    best = best_engine(runs)
    verdict = (f"Best across all {len(benchmarks)} benchmarks (largest smallest lift): `{best}`." if best else
               f"No engine has finished its registered runs on all {len(benchmarks)} benchmarks yet.")
    start, end = ENGINE_MARKERS
    return "\n".join([start, "| engine | " + " | ".join(benchmarks) + " |",
                      "|---|" + "---|" * len(benchmarks), *rows, "", verdict, end])
