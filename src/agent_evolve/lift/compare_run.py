"""Run engines side by side, resumably: the baseline once, then per seed every engine's arm and one control arm,
rewriting the comparison after each arm."""

from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.loop import Progress
from agent_evolve.lift.compare_report import write_comparison
from agent_evolve.lift.comparison import compare, engine_params_for
from agent_evolve.lift.plan import CONTROL, EVOLVED, MIN_TEST_TASKS, ArmRun, ComparisonPlan
from agent_evolve.lift.opening import open_experiment
from agent_evolve.lift.run import arm_once, run_arm, score_baseline
from agent_evolve.registry import engine_class


def run_comparison(plan: ComparisonPlan, benchmark: BenchmarkAdapter, config: EvolveConfig, out_dir: Path, *,
                   progress: Progress | None = None, min_test_tasks: int = MIN_TEST_TASKS) -> dict:
    """Run (or resume) every engine and the control for every seed; returns the comparison report."""
    experiment = open_experiment(plan, benchmark, config, out_dir, min_test_tasks, progress)
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
        done = arm_once(folder / "arm.json", partial(run_arm, plan.lift_plan(engine), kind, seed, experiment,
                                                     benchmark, arm_config, out_dir, progress, folder))
        experiment.scorer.record_run(folder.relative_to(out_dir).as_posix(), done.test_key, done.draws)
        return done

    def rewrite() -> dict:
        result = compare(plan, baseline.scores, runs, controls, baseline_key=baseline.key, baseline_cost=baseline.cost,
                         baseline_draws=baseline.draws, evidence=experiment.evidence())
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
