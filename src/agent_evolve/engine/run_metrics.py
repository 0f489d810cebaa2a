"""Each cycle's record and outcome label, the run's summary (`metrics.json`) and convergence, pure: a run converges
when the accepted score (moved only by the gate) stops rising; batch scores are not used (each batch differs)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from agent_evolve.engine.gate import GateOutcome
from agent_evolve.engine.run_usage import sum_usage
from agent_evolve.engine.solving import error_counts, graded_mean
from agent_evolve.engine.journal import RunState
from agent_evolve.engine.stepping import StepOutcome
from agent_evolve.types import CycleRecord, EvolutionResult, Observation


def scored_on(holdout_size: int) -> str:
    """What the accepted version's score was measured on: the holdout, or (a run without a gate) train tasks."""
    return "holdout" if holdout_size else "train"


def cycle_record(cycle: int, observations: list[Observation], graded: list[Observation], batch_rel: str,
                 outcome: StepOutcome, verdict: GateOutcome, accepted: bool, state: RunState, engine_name: str,
                 usage: dict[str, Any]) -> CycleRecord:
    """The history line of a finished cycle: batch, step, verdict, the accepted version after it, usage spent."""
    batch_score, failure = graded_mean(graded), verdict.failure
    metadata = {"status": "failed" if failure else outcome.status, "accepted": accepted,
                "outcome": outcome_label(outcome, verdict), "accepted_tag": state.accepted_tag,
                "accepted_score": state.accepted_score, "batch_score": batch_score, "graded": len(graded),
                "errors": error_counts(observations), "gate": verdict.summary(), "gate_failure": failure,
                "changed_paths": outcome.changed_paths, "reverted_paths": outcome.reverted_paths,
                "step_metadata": outcome.metadata, "usage": usage}
    summary = f"{outcome.summary} (gate failed: {failure})" if failure else outcome.summary
    return CycleRecord(cycle=cycle, score=batch_score, mutated=outcome.mutated, engine_name=engine_name,
                       summary=summary, observation_batch=batch_rel, metadata=metadata)


def run_metrics(records: list[dict[str, Any]], state: RunState, spent: dict[str, Any]) -> dict[str, Any]:
    """Counts of outcomes, the baseline and accepted scores, errors and usage of a run so far."""
    outcomes = [r["metadata"].get("outcome") for r in records]
    scored = [r for r in records if r["metadata"].get("graded", 0)]
    baseline = state.baseline_score if state.has_holdout else (scored[0]["score"] if scored else 0.0)
    return {"baseline_score": baseline, "accepted_score": state.accepted_score, "accepted_tag": state.accepted_tag,
            "batch_score": scored[-1]["score"] if scored else None, "cycles": len(records),
            "accepted": outcomes.count("accepted"), "rejected": outcomes.count("rejected"),
            "unchanged": outcomes.count("unchanged"),
            "failed": outcomes.count("failed") + outcomes.count("out_of_budget"),
            "errors": dict(sum((Counter(r["metadata"].get("errors", {})) for r in records), Counter())),
            "holdout_size": len(state.plan.holdout_ids),
            "usage": sum_usage([r["metadata"].get("usage", {}) for r in records]), "spent": spent,
            "edits": edit_rates(records)}


def edit_rates(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many proposed edits were valid and gated candidates won, over the cycles whose step reported ``edits``
    (model-writing engines); empty when none did."""
    reported = [r["metadata"] for r in records if isinstance(r["metadata"].get("step_metadata", {}).get("edits"), dict)]
    if not reported:
        return {}
    outcomes = [m.get("outcome") for m in reported]
    counted = {key: sum(int(m["step_metadata"]["edits"].get(key, 0)) for m in reported)
               for key in ("proposed", "valid", "shell")}
    return {**counted, "gated": outcomes.count("accepted") + outcomes.count("rejected"),
            "accepted": outcomes.count("accepted")}


def describe_edit_rates(rates: dict[str, int]) -> str:
    """The rates in one line: '5 of 8 proposed edits valid (62%); 2 files changed by shell commands; 1 of 4 gated
    candidates accepted (25%)' (the shell part only where the engine's shell changed files)."""
    def share(part: int, whole: int) -> str:
        return f" ({part / whole:.0%})" if whole else ""

    valid, proposed, accepted, gated = rates["valid"], rates["proposed"], rates["accepted"], rates["gated"]
    shell = int(rates.get("shell", 0))
    by_shell = f"; {shell} file{'s' * (shell != 1)} changed by shell commands" if shell else ""
    return (f"{valid} of {proposed} proposed edits valid{share(valid, proposed)}{by_shell}; "
            f"{accepted} of {gated} gated candidates accepted{share(accepted, gated)}")


def outcome_label(outcome: StepOutcome, verdict: GateOutcome) -> str:
    """accepted, rejected, unchanged, failed or out_of_budget."""
    if outcome.status in ("failed", "out_of_budget"):
        return outcome.status
    if verdict.failure:
        return "failed"
    if verdict.decision is None:
        return "unchanged"
    return "accepted" if verdict.accepted else "rejected"


def cycle_line(outcome: StepOutcome, verdict: GateOutcome, holdout_size: int, accepted_score: float) -> str:
    """One line on what a finished cycle decided and why, with the accepted score after it, for live displays."""
    label = outcome_label(outcome, verdict)
    after = f"{scored_on(holdout_size)} score {accepted_score:.3f}"
    summary = outcome.summary or "no edit"
    if label == "accepted":
        return f"accepted: {summary}; {after}"
    if label == "rejected":
        reason = verdict.decision.reason if verdict.decision is not None else ""
        return f"rejected: {summary}; the gate: {reason}; {after} kept"
    if label == "failed":
        return f"failed: {verdict.failure or summary}; {after} kept"
    return f"{label.replace('_', ' ')}: {summary}; {after} kept"


def run_result(records: list[dict[str, Any]], metrics: dict[str, Any], final_score: float, converged: bool,
               stop_reason: str, workspace: str) -> EvolutionResult:
    """What `Evolver.run()` returns: the cycles recorded, the accepted score, and the run's summary as details."""
    return EvolutionResult(cycles_completed=len(records), final_score=final_score,
                           score_history=[float(r["score"]) for r in records], converged=converged,
                           details={**metrics, "stop_reason": stop_reason, "workspace": workspace})


def accepted_score_plateaued(curve: list[float], window: int, epsilon: float) -> bool:
    """True when the best accepted score of the last `window` cycles beats the best before them by less than
    `epsilon` (the loop passes egl_window and egl_threshold); False until the curve is longer than `window`."""
    scores = [s for s in curve if math.isfinite(s)]
    if len(scores) <= window:
        return False
    return max(scores[-window:]) - max(scores[:-window]) < epsilon


def _is_score_converged(scores: list[float], window: int = 3, epsilon: float = 0.01) -> bool:
    """The A-Evolve page's plateau test, kept under its name and import path: True if max - min of the last
    `window` scores is below `epsilon`. The loop stops on `accepted_score_plateaued` instead."""
    if len(scores) < window:
        return False
    recent = scores[-window:]
    return (max(recent) - min(recent)) < epsilon
