"""The parts of an engine's context built from the run (Hermit's params, task_info, progress, message); pure."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from agent_evolve.engine.base import EngineContext, EvolutionEngine, StepProgress
from agent_evolve.engine.tasks import TaskPlan

if TYPE_CHECKING:
    from agent_evolve.benchmarks.base import BenchmarkAdapter
    from agent_evolve.config import EvolveConfig


def engine_params(engine: EvolutionEngine, config: EvolveConfig) -> dict[str, Any]:
    """The engine's defaults merged with this run's parameters: its own `params` when it keeps them (the
    built-in engines merge `defaults` and `engine_params` when built), else the run's `engine_params`."""
    own = getattr(engine, "params", None)
    return dict(own) if isinstance(own, dict) else dict(config.engine_params)


def task_info(benchmark: BenchmarkAdapter, plan: TaskPlan, layers: list[str]) -> dict[str, Any]:
    """The task's public description: the benchmark, what it says of itself, the split sizes the engine may use
    (never which tasks are held out), and the layers it may edit."""
    cls = type(benchmark)
    return {
        "benchmark": cls.__name__,
        "description": (inspect.getdoc(cls) or "").split("\n\n", 1)[0],
        "train_tasks": len(plan.train_ids),
        "validation_tasks": len(plan.val_ids),
        "holdout_tasks": len(plan.holdout_ids),
        "evolvable_layers": list(layers),
    }


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
