"""`ae.evolve`: evolve an agent on your own task list with a metric function, in one call."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

from agent_evolve.api import Evolver, default_engine, workspace_target
from agent_evolve.benchmarks.adapters.task_list import Example, Metric, TaskList
from agent_evolve.benchmarks.answer_kinds import short_answers
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.paths import RECORDS_DIR
from agent_evolve.engine.base import EvolutionEngine
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.engine.run_estimate import Estimate, duration, estimate_solves
from agent_evolve.engine.run_settings import check_resume, engine_label, run_settings
from agent_evolve.engine.run_metrics import scored_on
from agent_evolve.engine.solving import expected_seconds
from agent_evolve.errors import ConfigError
from agent_evolve.llm.base import LLMClient
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.quick.progress import ProgressOption, RunReport
from agent_evolve.quick.result import EvolvedRun

DEFAULT_AGENT = "jsonl"  # the built-in agent that answers a task's input in text from its workspace
DEMOS_CANDIDATES = "program,demos,rule"
"""Program answers first (only tasks of a kind a program prints can get them), then worked examples and rules."""
SHORT_ANSWERS_KIND = "text"
"""The kind of tasks whose expected answers are all one short line (numbers too): the metric sees the answer as
written, and a program answer is the bare line it prints (a `number` task's would end its code with `Answer: <n>`)."""
HOLDOUT_RATIO = 0.3
BUDGETS: dict[str, dict[str, int]] = {  # cycles, train tasks per cycle, cap on the holdout (30% of the tasks)
    "light": {"max_cycles": 3, "batch_size": 8, "holdout_limit": 16},
    "medium": {"max_cycles": 6, "batch_size": 10, "holdout_limit": 32},
    "heavy": {"max_cycles": 12, "batch_size": 16, "holdout_limit": 50},
}


def evolve(
    tasks: Sequence[Example], metric: Metric, *, model: str | None = None, budget: str | None = None,
    test: Sequence[Example] = (), agent: str | BaseAgent = DEFAULT_AGENT,
    engine: str | EvolutionEngine | None = None, workspace: str | Path | None = None,
    config: EvolveConfig | None = None, llm: LLMClient | None = None, progress: ProgressOption = "auto",
) -> EvolvedRun:
    """Evolve `agent` on `tasks` graded by `metric`; returns the run, whose `agent()` answers new tasks.

    tasks: dicts with "input" and usually "expected" (also "id", "split", "metadata"), or `Task`s; the run
      carves its holdout from them. `test`: tasks kept out of evolution.
    metric: `metric(example, output)` -> bool, a score in [0, 1], (score, feedback text) or Feedback; `example`
      is the item as you gave it, `output` the agent's answer. A metric that raises is a failed grade.
    model: the model answering (and the engine's, if it asks one), e.g. "local/qwen2.5-coder-1.5b" (the
      default, embedded) or "openai/gpt-4.1-mini". `llm`: your own client instead (a wrapper, a test fake).
    budget: "light" (3 cycles of 8 tasks, gate on up to 16), "medium" (6 of 10, up to 32) or "heavy"
      (12 of 16, up to 50); 30% of the tasks are the holdout, capped so. Default: "light", or the `config`'s
      own settings when a config is given.
    engine: any engine name; by default `demos` with the embedded model (no model call of its own; the gate alone
      decides) and `skillforge` with any other (`agent_evolve.api.default_engine`).
    workspace: the run's folder (default: a new one under ./runs); pass an existing one to resume its run.
      An agent given as a BaseAgent instance keeps its own workspace.
    progress: "auto" (a live line on a terminal or in a notebook, the `agent_evolve.progress` log otherwise),
      True (print to stdout), "log", False, or your own function of each ProgressEvent.
    """
    benchmark = TaskList(tasks, metric, test=test)
    if short_answers(benchmark.expected(task_id) for task_id in benchmark.splits.train):
        benchmark.answer_kind = SHORT_ANSWERS_KIND  # a task's own "answer_kind" still wins
    settings = run_config(config, budget, model, engine)
    engine = engine if engine is not None else default_engine(settings.evolver_model)
    if workspace is None and not isinstance(agent, BaseAgent):  # an instance keeps its own workspace
        workspace = Path.cwd() / "runs" / time.strftime("evolve-%Y%m%d-%H%M%S")
    folder = str(workspace) if workspace is not None else None
    where = workspace_target(agent, folder) or Path(folder or ".")
    clients = {role: llm for role in ("agent", "engine")} if llm is not None else None
    current = run_settings(settings, benchmark.identity(), engine_label(engine))
    check_resume(where, current, False, "call it with the same tasks and settings, or give a new workspace")
    estimate = estimate_solves(settings, len(benchmark.splits.train))
    ledger = UsageLedger()
    with RunReport(progress, estimate, ledger) as report:
        report.say(f"agent-evolve: {len(benchmark.splits.train)} tasks, workspace {where}")
        report.say(estimate_line(estimate, measured_seconds(where), settings.in_flight))
        evolver = Evolver(agent, benchmark, settings, engine, folder, progress=report, ledger=ledger,
                          clients=clients)
        result = evolver.run()
        details = result.details
        report.say(f"done: {scored_on(int(details.get('holdout_size', 0)))} score "
                   f"{details.get('baseline_score', 0.0):.3f} -> {result.final_score:.3f}; "
                   f"{details.get('accepted', 0)} accepted, {details.get('rejected', 0)} rejected")
    return EvolvedRun(result, evolver.workspace.path, evolver.agent_factory)


def run_config(config: EvolveConfig | None, budget: str | None, model: str | None, engine: object) -> EvolveConfig:
    """`config` (default: the defaults) with the budget preset and the model for every role; the demos engine gets no
    trial before the gate."""
    settings = config or EvolveConfig()
    if budget is not None or config is None:
        name = budget or "light"
        if name not in BUDGETS:
            raise ConfigError(f"unknown budget {name!r}; choose one of {', '.join(BUDGETS)}")
        settings = dataclasses.replace(settings, **BUDGETS[name], holdout_ratio=HOLDOUT_RATIO)
    if model is not None:
        settings = dataclasses.replace(settings, agent_model=model, evolver_model=model)
    if (engine if engine is not None else default_engine(settings.evolver_model)) == "demos":
        defaults = {"trial_tasks": 0, "candidates": DEMOS_CANDIDATES}
        settings = dataclasses.replace(settings, engine_params={**defaults, **settings.engine_params})
    return settings


def measured_seconds(workspace: Path) -> float | None:
    """Seconds per solve measured by the runs this workspace already recorded; None before any."""
    if not (workspace / RECORDS_DIR).is_dir():
        return None
    observations = EvolutionHistory(workspace).get_observations()
    return expected_seconds(observations, 1, 1) if observations else None


def estimate_line(estimate: Estimate, seconds_per_solve: float | None, concurrency: int) -> str:
    """The line printed before a run: its solves and, from a measured speed, its time."""
    judged = f"a gate of {estimate.gate}" if estimate.baseline else "no gate (each kept edit re-solves its batch)"
    solves = (f"up to {estimate.total} solves: {estimate.baseline} to score the starting agent, then "
              f"{estimate.cycles} cycles of {estimate.batch} train tasks and {judged}")
    if seconds_per_solve is None:
        return f"{solves}; time unknown until the first cycle"
    seconds = seconds_per_solve * estimate.total / max(1, concurrency)
    return f"{solves}; about {duration(seconds)} at the measured speed"
