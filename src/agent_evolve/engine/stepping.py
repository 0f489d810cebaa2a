"""The guarded step: run an engine call, contain its failures, keep only valid edits to enabled layers; what it
changed is measured by diff, never taken from the engine's claim."""

from __future__ import annotations

import inspect
import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent_evolve.contract.manifest import LAYER_PATHS
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.engine import transitions
from agent_evolve.engine.base import EngineContext, EvolutionEngine
from agent_evolve.engine.run_usage import charge_reported
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import BudgetExceededError, is_fatal
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import StepResult, Usage

log = logging.getLogger(__name__)

EngineCall = Callable[[EngineContext], "StepResult | None"]


@dataclass
class StepOutcome:
    """What a step did to the workspace, as the loop measured it (not as the engine claimed)."""

    status: str
    mutated: bool
    summary: str
    metadata: dict[str, Any] = field(default_factory=dict)
    changed_paths: list[str] = field(default_factory=list)
    reverted_paths: list[str] = field(default_factory=list)
    reported_usage: dict[str, Any] = field(default_factory=dict)
    charged_usage: dict[str, Any] = field(default_factory=dict)
    session: str | None = None

    @classmethod
    def from_journal(cls, entry: dict[str, Any]) -> StepOutcome:
        return cls(**{k: v for k, v in entry.items() if k not in ("cycle", "phase", "usage")})


def workspace_problems(path: Path) -> list[str]:
    """Workspace problems; a workspace without a manifest (a user's own agent) is checked for the rest."""
    return validate_workspace(path, require_manifest=False)


def guarded_step(engine: EvolutionEngine, call: EngineCall, ctx: EngineContext, vc: VersionControl, layers: list[str],
                 pre: str, *, allow_none: bool = False, ledger: UsageLedger | None = None) -> StepOutcome:
    """Run `call(ctx)` on the workspace at tag `pre`; edits outside `layers` are reverted, an invalid result undone.
    Reported usage is charged to `ledger`; a step that leaves the budget spent is `out_of_budget` (edits not kept)."""
    before = ledger.total() if ledger is not None else Usage()
    result = _guarded(engine, call, ctx, allow_none)
    charged = charge_reported(ledger, result.usage, before) if ledger is not None else Usage()
    problem = ledger.budget_problem() if ledger is not None else None
    if problem and result.status not in ("failed", "out_of_budget"):
        result = replace(result, status="out_of_budget", summary=f"{result.summary} (budget spent: {problem})")
    return replace(_settle(vc, layers, pre, result), charged_usage=charged.to_dict())


def step_call(engine: EvolutionEngine, workspace: Any, observations: list, history: Any) -> EngineCall:
    """`engine.step` with the page's arguments, plus `context=` when its signature accepts that keyword."""
    takes_context = "context" in inspect.signature(engine.step).parameters

    def call(ctx: EngineContext) -> StepResult | None:
        if takes_context:
            return engine.step(workspace, observations, history, ctx.trial, context=ctx)  # type: ignore[call-arg]
        return engine.step(workspace, observations, history, ctx.trial)

    return call


def _guarded(engine: EvolutionEngine, call: EngineCall, ctx: EngineContext, allow_none: bool) -> StepResult:
    """A crash or a wrong return type is a failed step; a spent budget is out_of_budget; a fatal error stops the run."""
    try:
        result = call(ctx)
    except BudgetExceededError as exc:
        return StepResult(mutated=False, summary=f"budget exhausted: {exc}", status="out_of_budget")
    except Exception as exc:  # noqa: BLE001 - any engine crash is a recorded failed step
        if is_fatal(exc):
            raise
        log.warning("engine %s failed: %s: %s", engine.engine_name, type(exc).__name__, exc)
        return StepResult(mutated=False, summary=f"step raised {type(exc).__name__}: {exc}", status="failed",
                          metadata={"traceback": traceback.format_exc(limit=8)})
    if result is None and allow_none:
        return StepResult(mutated=False, summary="")
    if not isinstance(result, StepResult):
        return StepResult(False, f"step returned {type(result).__name__}, not StepResult", status="failed")
    return result


def _settle(vc: VersionControl, layers: list[str], pre: str, result: StepResult) -> StepOutcome:
    """Measure the change by diff, revert edits outside evolvable layers, reject an invalid workspace."""
    base = StepOutcome(status=result.status, mutated=False, summary=result.summary,
                       metadata={**result.metadata, "engine_reported_mutated": result.mutated},
                       reported_usage=result.usage.to_dict(), session=result.session)
    if result.status in ("failed", "out_of_budget"):
        transitions.undo_step(vc, pre)
        return base
    changed = vc.changed_paths(pre)
    layer_dirs = {LAYER_PATHS[layer] for layer in layers}
    outside = [p for p in changed if p.split("/", 1)[0] not in layer_dirs]
    if outside:
        transitions.revert_paths(vc, pre, outside)
    problems = workspace_problems(vc.path)
    if problems:
        transitions.undo_step(vc, pre)
        return replace(base, status="failed", summary=f"step left an invalid workspace: {problems[0]}")
    inside = [p for p in changed if p not in outside]
    return replace(base, mutated=bool(inside), changed_paths=inside, reverted_paths=outside)
