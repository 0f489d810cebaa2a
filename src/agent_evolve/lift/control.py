"""The no-evolution control arm's engine: the same loop, an engine that never edits the workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_evolve.engine.base import EvolutionEngine
from agent_evolve.types import Observation, StepResult

if TYPE_CHECKING:
    from agent_evolve.contract.workspace import AgentWorkspace
    from agent_evolve.engine.observer import EvolutionHistory
    from agent_evolve.engine.trial import TrialRunner


class NoEditEngine(EvolutionEngine):
    """Solves and gates like any arm but changes nothing, so its test score must equal the baseline's exactly."""

    name = "no_edit"

    def step(
        self,
        workspace: AgentWorkspace,
        observations: list[Observation],
        history: EvolutionHistory,
        trial: TrialRunner | None = None,
    ) -> StepResult:
        return StepResult(mutated=False, summary="control arm: no edit")
