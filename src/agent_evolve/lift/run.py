"""Run a lift experiment, resumably: register the plan, score the baseline in every test draw, then per seed the
evolved arm and its controls, then the report; each arm's cost is written as spent (the layout: docs/evidence.md)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evolve.api import Evolver
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.base import EvolutionEngine
from agent_evolve.engine.loop import ARM_PHASE, Progress, ProgressEvent
from agent_evolve.environments.task_env import EnvironmentSpec, TaskEnvironment
from agent_evolve.lift.analysis import summarize
from agent_evolve.lift.matched import matched_agent
from agent_evolve.lift.opening import (Drawn, Experiment, experiment_lock, open_experiment, restore_checkpoint,
                                      save_checkpoint)
from agent_evolve.lift.plan import BASELINE, CONTROL, EVOLVED, MATCHED, ArmRun, LiftPlan
from agent_evolve.lift.report import write_report
from agent_evolve.lift.shapes import ARM_SCHEMA, COST_SCHEMA, read_checked
from agent_evolve.types import Feedback, Observation, StepResult, Task, Trajectory

if TYPE_CHECKING:
    from agent_evolve.contract.workspace import AgentWorkspace
    from agent_evolve.engine.observer import EvolutionHistory
    from agent_evolve.engine.trial import TrialRunner


def run_arm(plan: LiftPlan, arm: str, seed: int, experiment: Experiment, benchmark: BenchmarkAdapter,
            config: EvolveConfig, out_dir: Path, progress: Progress | None, folder: Path | None = None) -> ArmRun:
    """Evolve (or resume) one arm's workspace for one seed (in `folder`, default `<out>/<arm>/seed-<n>`),
    checkpointed after every cycle, then score it on the test tasks."""
    folder = folder or out_dir / arm / f"seed-{seed}"
    if progress is not None:
        progress(ProgressEvent(0, ARM_PHASE, message=f"{folder.parent.name} seed {seed}"))
    restore_checkpoint(folder)
    params = {} if arm == CONTROL else config.engine_params   # the control's engine takes none
    seeded = dataclasses.replace(config, seed=seed, engine_params=params)
    meter = MeteredBenchmark(benchmark, folder / "cost.json")
    engine = NoEditEngine() if arm == CONTROL else plan.engine
    workspace = folder / "workspace"

    def checkpointing(event: ProgressEvent) -> None:
        if event.phase == "recorded":
            meter.flush()
            save_checkpoint(folder)
        if progress is not None:
            progress(event)

    try:
        evolver = Evolver(str(experiment.source), meter, seeded, engine, workspace_dir=str(workspace),
                          progress=checkpointing)
        result = evolver.run(plan.cycles)
    finally:
        meter.flush()
        save_checkpoint(folder)
    evolution = {"solves": meter.solves, "seconds": meter.seconds}  # its clock stops before the test scoring
    drawn = experiment.scorer.score(workspace, folder.relative_to(out_dir).as_posix())
    details = result.details
    return ArmRun(arm, seed, str(workspace), drawn.key, drawn.scores, drawn.draws, drawn.tokens_per_task,
                  baseline_holdout=float(details.get("baseline_score", 0.0)), final_holdout=result.final_score,
                  accepted=int(details.get("accepted", 0)), rejected=int(details.get("rejected", 0)),
                  cycles=result.cycles_completed, score_curve=list(result.score_history),
                  cost=arm_cost(evolution, details, drawn.cost), finished=True,
                  edits=dict(details.get("edits") or {}))


def score_baseline(experiment: Experiment, out_dir: Path, progress: Progress | None = None) -> Drawn:
    """The seed workspace (copied once to `<out>/baseline`) scored in every draw."""
    baseline_ws = out_dir / BASELINE / "workspace"
    if not baseline_ws.is_dir():
        shutil.copytree(experiment.source, baseline_ws,
                        ignore=shutil.ignore_patterns(".git", "evolution", "__pycache__"))
    if progress is not None:
        progress(ProgressEvent(0, ARM_PHASE, message=BASELINE))
    return experiment.scorer.score(baseline_ws, BASELINE)


def run_matched(seed: int, evolved: ArmRun, experiment: Experiment, out_dir: Path,
                progress: Progress | None) -> ArmRun:
    """The compute-matched control of one seed: the baseline workspace voting over sampled replies, in each draw
    at the evolved arm's mean tokens per test task of that draw; no evolution."""
    if progress is not None:
        progress(ProgressEvent(0, ARM_PHASE, message=f"{MATCHED} seed {seed}"))
    budgets = evolved.test_tokens or [0.0]
    drawn = experiment.scorer.score(out_dir / BASELINE / "workspace", f"{MATCHED}/seed-{seed}",
                                    lambda draw: matched_agent(budgets[min(draw, len(budgets) - 1)]))
    return ArmRun(MATCHED, seed, str(out_dir / BASELINE / "workspace"), drawn.key, drawn.scores, drawn.draws,
                  drawn.tokens_per_task, cost=arm_cost({"solves": 0, "seconds": 0.0}, {}, drawn.cost), finished=True)


def arm_once(experiment: Experiment, out_dir: Path, folder: Path, run: Callable[[], ArmRun]) -> ArmRun:
    """A finished arm read back from `folder/arm.json`, else (or when a draw lacks a task) run, solving only what its
    score files lack, and recorded there; either way its test draws go into the ledgers under the folder's name."""
    saved = read_checked(folder / "arm.json", ARM_SCHEMA)
    result = ArmRun(**saved) if saved else None
    if result is None or not all(experiment.scorer.complete(scores) for scores in result.draws):
        result = run()
        atomic_write(folder / "arm.json", json.dumps(dataclasses.asdict(result), indent=1))
    for draw, scores in enumerate(result.draws):  # a folder from before the ledger counts its views too
        experiment.scorer.record(folder.relative_to(out_dir).as_posix(), result.test_key, draw, scores)
    return result


def run_lift(plan: LiftPlan, benchmark: BenchmarkAdapter, config: EvolveConfig, out_dir: Path, *,
             progress: Progress | None = None, register_only: bool = False) -> dict:
    """Register the plan (or check it), then run (or resume) every arm of every seed and write the report after
    each; returns the report. `register_only`: stop once the plan is registered (to commit it before any arm)."""
    with experiment_lock(out_dir):
        experiment = open_experiment(plan, benchmark, config, out_dir, progress)
        if register_only:
            return {"registration": experiment.registration}
        if experiment.scorer.layout.legacy:
            plan = dataclasses.replace(plan, draws=1, matched=False, test_reserve=None)  # as the folder was run
        baseline = score_baseline(experiment, out_dir, progress)
        runs: list[ArmRun] = []
        report: dict = {}
        for seed in plan.seeds:
            for arm in plan.arms:  # the evolved arm first: the compute-matched control spends its tokens
                if arm == MATCHED:
                    evolved = next(r for r in runs if r.arm == EVOLVED and r.seed == seed)
                    run = partial(run_matched, seed, evolved, experiment, out_dir, progress)
                else:
                    run = partial(run_arm, plan, arm, seed, experiment, benchmark, experiment.config, out_dir, progress)
                runs.append(arm_once(experiment, out_dir, out_dir / arm / f"seed-{seed}", run))
                report = summarize(plan, baseline.scores, runs, baseline_key=baseline.key, baseline_cost=baseline.cost,
                                   baseline_draws=baseline.draws, evidence=experiment.evidence())
                write_report(report, out_dir)
        return report


class NoEditEngine(EvolutionEngine):
    """Solves and gates like any arm but changes nothing, so its test score must equal the baseline's exactly."""

    name = "no_edit"

    def step(self, workspace: AgentWorkspace, observations: list[Observation], history: EvolutionHistory,
             trial: TrialRunner | None = None) -> StepResult:
        return StepResult(mutated=False, summary="control arm: no edit")


class MeteredBenchmark(BenchmarkAdapter):
    """Delegates to a benchmark and counts the attempts it grades, with the wall time, into a JSON file."""

    def __init__(self, inner: BenchmarkAdapter, ledger: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.score_range = inner.score_range  # class attributes of the base, so __getattr__ never sees them
        self.answer_kind = inner.answer_kind
        self.ledger = ledger
        saved = read_checked(ledger, COST_SCHEMA) or {}
        self.solves = int(saved.get("solves", 0))
        self._seconds = float(saved.get("seconds", 0.0))
        self._started = time.monotonic()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def identity(self) -> str:
        return self.inner.identity()

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return self.inner.get_tasks(split, limit=limit)

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        return self._counted(self.inner.evaluate(task, trajectory))

    def environment(self, task: Task) -> EnvironmentSpec | None:
        return self.inner.environment(task)

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        return self._counted(self.inner.evaluate_in(task, trajectory, environment))

    def _counted(self, feedback: Feedback) -> Feedback:
        with self._lock:
            self.solves += 1
            self.flush()
        return feedback

    @property
    def seconds(self) -> float:
        return self._seconds + time.monotonic() - self._started

    def flush(self) -> None:
        """Write the counts so far (also called at the end of a stage, to keep its wall time)."""
        atomic_write(self.ledger, json.dumps({"solves": self.solves, "seconds": round(self.seconds, 1)}))


def arm_cost(evolution: dict[str, float], metrics: dict[str, Any], test: dict[str, float]) -> dict[str, float]:
    """One arm's cost: evolution solves and time, the engine calls (every role's but the agent's) and all tokens its
    run's usage by role recorded, and its test scoring."""
    usage = metrics.get("usage") or {}
    tokens = sum(float(n.get("input_tokens", 0)) + float(n.get("output_tokens", 0)) for n in usage.values())
    return {"evolution_solves": evolution["solves"], "test_solves": test.get("solves", 0),
            "solves": evolution["solves"] + test.get("solves", 0),
            "engine_calls": sum(float(n.get("calls", 0)) for role, n in usage.items() if role != "agent"),
            "tokens": tokens + test.get("tokens", 0),
            "seconds": round(evolution["seconds"] + test.get("seconds", 0), 1)}
