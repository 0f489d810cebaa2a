"""EvolutionEngine: the page's `step` plus Hermit's optional lifecycle (setup, bootstrap, finalize)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evolve.types import Observation, StepResult

if TYPE_CHECKING:
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
    `output_dir` keeps this call's reports with the run records. `params` are the engine's defaults merged with
    this run's `engine_params`; `tools` holds `run_agent` (the trial runner, on step calls) and `check_spec`;
    `cancel` is set when the run is asked to stop; `progress` is given on step calls; `session` is the previous
    call's session handle when resume is enabled for an engine that `supports_resume`.
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
    """Override `step`; the rest is optional. Python attributes do not survive a restart: keep state in state_dir.

    Set `supports_resume = True` only when the engine can continue a previous host session (the handle it returned
    in `StepResult.session`); the user enables it with `engine_resume`.
    """

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

    def step(
        self,
        workspace: AgentWorkspace,
        observations: list[Observation],
        history: EvolutionHistory,
        trial: TrialRunner | None = None,
    ) -> StepResult:
        """Mutate workspace based on observations. Return what changed."""
        raise NotImplementedError

    def on_cycle_end(self, accepted: bool, score: float) -> None:
        """Optional: called after the gating decision."""

    def finalize(self, ctx: EngineContext) -> str | None:
        """On completion or a controlled stop; return a version tag (e.g. 'evo-3') to select it, or None."""
        return None
