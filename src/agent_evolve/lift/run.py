"""Run a lift experiment, resumably: baseline once, then per seed the evolved and the control arm, then the report.
The steps (open the folder, score the baseline, run an arm once) are shared with the side-by-side comparison.

Layout of the output folder: plan.json; .gitignore (what to commit); baseline/workspace (a copy of the seed
workspace); scores/<key>.jsonl (per-task test scores of each distinct workspace content);
<arm>/seed-<n>/{workspace, cost.json, arm.json}; lift.json, lift.md, lift.png. Run the same command again after
a kill: finished arms are read back, an interrupted evolution resumes from its journal, and test tasks already
scored are not solved again.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

from agent_evolve.api import Evolver
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig, with_reply_cache
from agent_evolve.contract.paths import REPLIES_DIR, atomic_write
from agent_evolve.engine.loop import ARM_PHASE, Progress, ProgressEvent
from agent_evolve.engine.records import read_json
from agent_evolve.errors import ConfigError
from agent_evolve.lift.analysis import summarize
from agent_evolve.lift.checkpoint import CHECKPOINT, restore_checkpoint, save_checkpoint
from agent_evolve.lift.control import NoEditEngine
from agent_evolve.lift.cost import MeteredBenchmark, arm_cost
from agent_evolve.lift.plan import (
    BASELINE, CONTROL, MIN_TEST_TASKS, ArmRun, ComparisonPlan, LiftPlan, check_test_split,
)
from agent_evolve.lift.report import write_report
from agent_evolve.lift.scoring import score_tasks, store_cost, workspace_key
from agent_evolve.registry import seed_path
from agent_evolve.types import Task


# Written into every experiment folder: `git add` of the folder then keeps what a later checkout needs to resume
# and to report (plan, baseline copy, per-task scores, each finished arm's arm.json, each arm's checkpoint, the
# report), and leaves out the arms' working folders (workspaces with their own git, journals, partial costs),
# which the checkpoint carries.
EXPERIMENT_GITIGNORE = f"""# agent-evolve experiment: commit this folder; a fresh checkout resumes from it
/*/seed-*/*
!/*/seed-*/arm.json
!/*/seed-*/{CHECKPOINT}
"""


def source_workspace(agent: str) -> Path:
    """The folder of a seed name or a workspace path."""
    return Path(agent) if Path(agent).is_dir() else seed_path(agent)


def check_same_plan(out_dir: Path, plan: LiftPlan | ComparisonPlan, config: EvolveConfig) -> None:
    """Write plan.json, or refuse to resume into a folder that holds a different experiment."""
    wanted = {"plan": plan.to_dict(), "config": config.to_dict()}
    path = out_dir / "plan.json"
    saved = read_json(path, None)
    if isinstance(saved, dict) and isinstance(saved.get("config"), dict):  # settings added since keep their defaults
        saved["config"] = {**json.loads(json.dumps(EvolveConfig().to_dict())), **saved["config"]}
    if saved is not None and saved != json.loads(json.dumps(wanted)):
        raise ConfigError(f"{path}: this folder holds another experiment (other plan or config); "
                          "use another --out or remove the folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(wanted, indent=1))


def run_arm(plan: LiftPlan, arm: str, seed: int, source: Path, benchmark: BenchmarkAdapter, tests: list[Task],
            config: EvolveConfig, out_dir: Path, progress: Progress | None, folder: Path | None = None) -> ArmRun:
    """Evolve (or resume) one arm's workspace for one seed (in `folder`, by default `<out>/<arm>/seed-<n>`), then
    score it on the test tasks. The arm's folder is checkpointed after every cycle and at a stop, and a clone
    that lacks it resumes from the checkpoint."""
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
        evolver = Evolver(str(source), meter, seeded, engine, workspace_dir=str(workspace), progress=checkpointing)
        result = evolver.run(plan.cycles)
    finally:
        meter.flush()
        save_checkpoint(folder)
    key = workspace_key(workspace)
    store, made_by = out_dir / "scores" / f"{key}.jsonl", folder.relative_to(out_dir).as_posix()
    scores = score_tasks(workspace, benchmark, tests, store, seeded, made_by, progress)
    return ArmRun(
        arm=arm,
        seed=seed,
        workspace=str(workspace),
        test_key=key,
        test_scores=scores,
        baseline_holdout=float(result.details.get("baseline_score", 0.0)),
        final_holdout=result.final_score,
        accepted=int(result.details.get("accepted", 0)),
        rejected=int(result.details.get("rejected", 0)),
        cycles=result.cycles_completed,
        score_curve=list(result.score_history),
        cost=arm_cost(meter, result.details, store_cost(store, made_by)),
        finished=True,
    )


def open_experiment(plan: LiftPlan | ComparisonPlan, benchmark: BenchmarkAdapter, config: EvolveConfig,
                    out_dir: Path, min_test_tasks: int) -> tuple[Path, list[Task], EvolveConfig]:
    """Check the test split and the folder's plan; the source workspace, the test tasks and the config every arm
    runs with. That config shares one response cache, under the folder and committed with it, between the
    baseline, every arm and every test scoring: a workspace that asks what the baseline asked gets the baseline's
    reply, so a paired lift holds what the edits changed and not the churn of asking again (common random
    numbers: the same expected lift, a narrower interval), and a fresh clone resumes without asking again."""
    tests = benchmark.get_tasks("test", limit=plan.test_limit)
    train = benchmark.get_tasks("train", limit=config.task_pool_limit)
    check_test_split([t.id for t in tests], [t.id for t in train], min_test_tasks, plan.allow_small_test)
    check_same_plan(out_dir, plan, config)
    ignore = out_dir / ".gitignore"
    if not ignore.is_file() or ignore.read_text(encoding="utf-8") != EXPERIMENT_GITIGNORE:
        atomic_write(ignore, EXPERIMENT_GITIGNORE)  # an older folder's rules are brought up to date
    return source_workspace(plan.agent), tests, with_reply_cache(config, out_dir / REPLIES_DIR)


def score_baseline(source: Path, benchmark: BenchmarkAdapter, tests: list[Task], config: EvolveConfig,
                   out_dir: Path, progress: Progress | None = None) -> tuple[dict[str, float], str, Path]:
    """The seed workspace's test scores (copied once to `<out>/baseline`), its content key and its score store."""
    baseline_ws = out_dir / BASELINE / "workspace"
    if not baseline_ws.is_dir():
        shutil.copytree(source, baseline_ws, ignore=shutil.ignore_patterns(".git", "evolution", "__pycache__"))
    baseline_key = workspace_key(baseline_ws)
    store = out_dir / "scores" / f"{baseline_key}.jsonl"
    if progress is not None:
        progress(ProgressEvent(0, ARM_PHASE, message=BASELINE))
    baseline = score_tasks(baseline_ws, benchmark, tests, store, config, BASELINE, progress)
    return baseline, baseline_key, store


def arm_once(record: Path, run: Callable[[], ArmRun]) -> ArmRun:
    """A finished arm read back from `record`, else run and recorded (so a rerun skips it)."""
    saved = read_json(record, None)
    if saved:
        return ArmRun.from_dict(saved)
    result = run()
    atomic_write(record, json.dumps(result.to_dict(), indent=1))
    return result


def run_lift(plan: LiftPlan, benchmark: BenchmarkAdapter, config: EvolveConfig, out_dir: Path, *,
             progress: Progress | None = None, min_test_tasks: int = MIN_TEST_TASKS) -> dict:
    """Run (or resume) every arm of every seed and write the report after each; returns the report."""
    source, tests, config = open_experiment(plan, benchmark, config, out_dir, min_test_tasks)
    baseline, baseline_key, baseline_store = score_baseline(source, benchmark, tests, config, out_dir, progress)
    runs: list[ArmRun] = []
    report: dict = {}
    for seed in plan.seeds:
        for arm in plan.arms:
            runs.append(arm_once(out_dir / arm / f"seed-{seed}" / "arm.json", partial(
                run_arm, plan, arm, seed, source, benchmark, tests, config, out_dir, progress)))
            report = summarize(plan, baseline, runs, baseline_key=baseline_key, baseline_cost=store_cost(baseline_store))
            write_report(report, out_dir)
    return report
