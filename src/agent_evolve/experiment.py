"""Lift experiments: baseline versus evolved score on a benchmark's untouched test split, over several seeds."""

from __future__ import annotations

import dataclasses
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.algorithms.common.edits import LayerSnapshot
from agent_evolve.api import Evolver, RunClients, agent_from_workspace, resolve_benchmark
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.engine.solving import mean_score, solve_all
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.registry import seed_path


@dataclass
class SeedRun:
    seed: int
    baseline_test: float
    evolved_test: float
    baseline_holdout: float
    evolved_holdout: float
    accepted: int
    rejected: int
    cycles: int
    workspace: str
    seconds: float

    @property
    def lift(self) -> float:
        return self.evolved_test - self.baseline_test


@dataclass
class LiftReport:
    benchmark: str
    agent: str
    engine: str
    test_tasks: int
    runs: list[SeedRun] = field(default_factory=list)
    config: dict = field(default_factory=dict)

    @property
    def mean_lift(self) -> float:
        return statistics.fmean(r.lift for r in self.runs) if self.runs else 0.0

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["mean_lift"] = self.mean_lift
        for row, run in zip(data["runs"], self.runs):
            row["lift"] = run.lift
        return data


def score_workspace(workspace: Path, benchmark: BenchmarkAdapter, split: str, limit: int, config: EvolveConfig) -> float:
    """Mean score of the workspace's agent on the first `limit` tasks of `split`, with a ledger of its own."""
    ledger = UsageLedger(max_total_tokens=config.max_total_tokens, max_cost_usd=config.max_cost_usd)
    agent, _ = agent_from_workspace(workspace, config, RunClients(config, ledger))
    return mean_score(solve_all(agent, benchmark, benchmark.get_tasks(split, limit=limit), config.concurrency))


def same_files(a: Path, b: Path) -> bool:
    """True when two workspaces hold the same files, so an unchanged evolved workspace is not scored again."""
    return LayerSnapshot.take(a, None).files == LayerSnapshot.take(b, None).files


def run_lift_experiment(
    *,
    agent: str,
    benchmark: str | BenchmarkAdapter,
    engine: str,
    seeds: list[int],
    cycles: int,
    test_limit: int,
    out_dir: Path,
    config: EvolveConfig,
    progress: Callable[[ProgressEvent], None] | None = None,
) -> LiftReport:
    """For each seed: evolve a fresh copy of the seed workspace, then score it on the same test tasks as the baseline.

    Every seed's run owns its usage ledger, so each gets the whole token and cost budget.
    """
    adapter = resolve_benchmark(benchmark, grader=config.grader) if isinstance(benchmark, str) else benchmark
    source = seed_path(agent) if not Path(agent).exists() else Path(agent)
    name = benchmark if isinstance(benchmark, str) else (adapter.name or type(adapter).__name__)
    report = LiftReport(name, agent, engine, test_tasks=len(adapter.get_tasks("test", limit=test_limit)))
    report.config = config.to_dict()
    baseline_test = score_workspace(source, adapter, "test", test_limit, config)
    for seed in seeds:
        started = time.monotonic()
        seeded = dataclasses.replace(config, seed=seed)
        workspace = out_dir / f"seed-{seed}" / "workspace"
        evolver = Evolver(str(source), adapter, seeded, engine, workspace_dir=str(workspace), progress=progress)
        result = evolver.run(cycles)
        report.runs.append(
            SeedRun(
                seed=seed,
                baseline_test=baseline_test,
                evolved_test=(
                    baseline_test
                    if same_files(source, workspace)
                    else score_workspace(workspace, adapter, "test", test_limit, seeded)
                ),
                baseline_holdout=float(result.details.get("baseline_score", 0.0)),
                evolved_holdout=result.final_score,
                accepted=int(result.details.get("accepted", 0)),
                rejected=int(result.details.get("rejected", 0)),
                cycles=result.cycles_completed,
                workspace=str(workspace),
                seconds=round(time.monotonic() - started, 1),
            )
        )
        write_report(report, out_dir)
    return report


def markdown_table(report: LiftReport) -> str:
    lines = [
        f"# Lift on {report.benchmark} ({report.test_tasks} test tasks), agent {report.agent}, engine {report.engine}",
        "",
        "| seed | baseline test | evolved test | lift | baseline holdout | evolved holdout | accepted | rejected | cycles | seconds |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report.runs:
        lines.append(
            f"| {r.seed} | {r.baseline_test:.3f} | {r.evolved_test:.3f} | {r.lift:+.3f} | {r.baseline_holdout:.3f} "
            f"| {r.evolved_holdout:.3f} | {r.accepted} | {r.rejected} | {r.cycles} | {r.seconds:.0f} |"
        )
    lines += ["", f"Mean lift: {report.mean_lift:+.3f}"]
    return "\n".join(lines) + "\n"


def write_report(report: LiftReport, out_dir: Path) -> list[Path]:
    """Write lift.json, lift.md and, when matplotlib is installed, lift.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "lift.json", out_dir / "lift.md"]
    written[0].write_text(json.dumps(report.to_dict(), indent=2))
    written[1].write_text(markdown_table(report))
    plot = plot_lift(report, out_dir / "lift.png")
    return written + ([plot] if plot else [])


def plot_lift(report: LiftReport, path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    seeds = [str(r.seed) for r in report.runs]
    positions = range(len(seeds))
    fig, ax = plt.subplots(figsize=(max(4, 1.5 * len(seeds)), 3.5))
    ax.bar([p - 0.2 for p in positions], [r.baseline_test for r in report.runs], width=0.4, label="baseline")
    ax.bar([p + 0.2 for p in positions], [r.evolved_test for r in report.runs], width=0.4, label="evolved")
    ax.set_xticks(list(positions), [f"seed {s}" for s in seeds])
    ax.set_ylabel(f"test score ({report.test_tasks} tasks)")
    ax.set_title(f"{report.benchmark}: baseline vs evolved ({report.engine})")
    ax.set_ylim(0, 1)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
