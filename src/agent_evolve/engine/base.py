"""EvolutionEngine: the page's `step` plus Hermit's optional lifecycle (setup, bootstrap, finalize), and the
context the loop hands it with the fields built from the run (params, task_info, progress, message)."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evolve.engine.tasks import TaskPlan
from agent_evolve.types import Observation, StepResult

if TYPE_CHECKING:
    from agent_evolve.benchmarks.base import BenchmarkAdapter
    from agent_evolve.config import EvolveConfig
    from agent_evolve.contract.workspace import AgentWorkspace
    from agent_evolve.engine.observer import EvolutionHistory
    from agent_evolve.engine.trial import TrialRunner


@dataclass(frozen=True)
class StepProgress:
    """Hermit's step `progress`: the epoch (1-based pass over the train tasks), the step (cycle), and whether
    this step's batch finishes its epoch."""

    epoch: int
    step: int
    epoch_end: bool


@dataclass
class EngineContext:
    """What the loop hands an engine besides the step arguments (Hermit's context; see docs/hermit-mapping.md).

    `state_dir` persists across cycles and is restored on resume; `scratch_dir` is emptied before each call;
    `output_dir` keeps this call's reports. `params` are the engine's defaults merged with the run's
    `engine_params`; `tools` holds `run_agent` (the trial runner, on step calls) and `check_spec`; `cancel` is set
    when the run is asked to stop; `session` is the previous call's session handle when resume is enabled.
    """

    config: EvolveConfig
    workspace: AgentWorkspace
    history: EvolutionHistory
    state_dir: Path
    scratch_dir: Path
    output_dir: Path
    cycle: int = 0
    trial: TrialRunner | None = None
    params: dict[str, Any] = field(default_factory=dict)
    task_info: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, Callable[..., Any]] = field(default_factory=dict)
    message: str = ""
    cancel: threading.Event = field(default_factory=threading.Event)
    progress: StepProgress | None = None
    session: str | None = None


class EvolutionEngine:
    """Override `step`; the rest is optional. Keep state in state_dir (attributes do not survive a restart); set
    `supports_resume` only when the engine can continue a previous session (enabled by `engine_resume`)."""

    name: str = ""
    context: EngineContext | None = None
    supports_resume: bool = False

    @property
    def engine_name(self) -> str:
        return self.name or type(self).__name__

    @property
    def state_dir(self) -> Path:
        """The engine's persistent state folder for this run."""
        if self.context is None:
            raise RuntimeError(f"{self.engine_name}: state_dir is available only while the loop runs the engine")
        return self.context.state_dir

    def setup(self, ctx: EngineContext) -> None:
        """Before the first step of a fresh run (not on resume)."""

    def bootstrap(self, ctx: EngineContext) -> StepResult | None:
        """Once on a fresh run, before any rollout; a mutation is validated and committed as cycle 0."""
        return None

    def step(self, workspace: AgentWorkspace, observations: list[Observation], history: EvolutionHistory,
             trial: TrialRunner | None = None) -> StepResult:
        """Mutate workspace based on observations. Return what changed."""
        raise NotImplementedError

    def on_cycle_end(self, accepted: bool, score: float) -> None:
        """Optional: called after the gating decision."""

    def finalize(self, ctx: EngineContext) -> str | None:
        """On completion or a controlled stop; return a version tag (e.g. 'evo-3') to select it, or None."""
        return None


def engine_params(engine: EvolutionEngine, config: EvolveConfig) -> dict[str, Any]:
    """The engine's own `params` when it keeps them (built-in engines merge `defaults` and `engine_params` when
    built), else the run's `engine_params`."""
    own = getattr(engine, "params", None)
    return dict(own) if isinstance(own, dict) else dict(config.engine_params)


def task_info(benchmark: BenchmarkAdapter, plan: TaskPlan, layers: list[str]) -> dict[str, Any]:
    """The task's public description: the benchmark, its own summary, the split sizes (never which tasks are held
    out), and the layers the engine may edit."""
    cls = type(benchmark)
    return {"benchmark": cls.__name__, "description": (inspect.getdoc(cls) or "").split("\n\n", 1)[0],
            "train_tasks": len(plan.train_ids), "validation_tasks": len(plan.val_ids),
            "holdout_tasks": len(plan.holdout_ids), "evolvable_layers": list(layers)}


def step_progress(cycle: int, cursor_after: int, batch_size: int, train_size: int) -> StepProgress:
    """Epoch (1-based), step and epoch end of the batch that took the train cursor to `cursor_after`."""
    if train_size <= 0:
        return StepProgress(epoch=1, step=cycle, epoch_end=False)
    before = cursor_after - batch_size
    return StepProgress(epoch=before // train_size + 1, step=cycle,
                        epoch_end=cursor_after // train_size > before // train_size)


def call_message(ctx: EngineContext) -> str:
    """A human-readable description of the call and the resources it has (Hermit's `message`)."""
    info = ctx.task_info
    call = "bootstrap" if ctx.cycle == 0 else f"step of cycle {ctx.cycle}"
    lines = [f"{call} on {info.get('benchmark', 'the benchmark')}: edit the workspace at {ctx.workspace.path}",
             f"editable layers: {', '.join(info.get('evolvable_layers', [])) or 'none'}",
             f"state: {ctx.state_dir}; scratch: {ctx.scratch_dir}; reports: {ctx.output_dir}",
             f"tools: {', '.join(sorted(ctx.tools)) or 'none'}"]
    if ctx.progress is not None:
        end = ", the epoch ends here" if ctx.progress.epoch_end else ""
        lines.append(f"epoch {ctx.progress.epoch}, step {ctx.progress.step}{end}")
    if ctx.session:
        lines.append(f"previous session: {ctx.session}")
    return "\n".join(lines)
