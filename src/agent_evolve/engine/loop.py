"""EvolutionLoop: solve, observe, snapshot, step, gate, commit or roll back, record, reload; resumable by phase."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EvolutionEngine
from agent_evolve.engine.convergence import _is_score_converged
from agent_evolve.engine.gate import GateDecision, gate
from agent_evolve.engine.observer import EvolutionHistory, Observer
from agent_evolve.engine.records import RunRecords, append_jsonl, read_jsonl, write_json_atomic
from agent_evolve.engine.session import RunSession, StepOutcome
from agent_evolve.engine.solving import mean_score, solve_all
from agent_evolve.engine.tasks import next_batch
from agent_evolve.errors import BudgetExceededError
from agent_evolve.llm.usage import UsageLedger, default_ledger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import CycleRecord, EvolutionResult, Observation

log = logging.getLogger(__name__)

__all__ = ["EvolutionLoop", "ProgressEvent", "_is_score_converged"]


@dataclass
class ProgressEvent:
    """A phase change or a finished task, for live displays."""

    cycle: int
    phase: str
    done: int = 0
    total: int = 0
    score: float | None = None
    message: str = ""


class EvolutionLoop:
    """Runs cycles 1..N on a workspace; every finished phase is journaled so a restart continues where it stopped."""

    def __init__(
        self,
        agent: BaseAgent,
        benchmark: BenchmarkAdapter,
        engine: EvolutionEngine,
        config: EvolveConfig,
        workspace: AgentWorkspace,
        *,
        agent_factory: Callable[[Path], BaseAgent] | None = None,
        progress: Callable[[ProgressEvent], None] | None = None,
        ledger: UsageLedger | None = None,
    ):
        self.agent = agent
        self.benchmark = benchmark
        self.engine = engine
        self.config = config
        self.workspace = workspace
        self.agent_factory = agent_factory or (lambda path: type(agent)(path))
        self.progress = progress or (lambda event: None)
        self.ledger = ledger if ledger is not None else default_ledger()  # the run's usage and budgets
        self.records = RunRecords(Path(workspace.path))
        self.history = EvolutionHistory(workspace.path)

    def run(self, cycles: int | None = None) -> EvolutionResult:
        """Run until the workspace has `cycles` cycles (default config.max_cycles), converges, or is stopped."""
        total = self.config.max_cycles if cycles is None else cycles
        with RunSession.open(self) as session:
            self.session = session
            self.agent = session.reload_agent(self.agent)
            stop_reason = ""
            converged = False
            cycle = session.journal.last_recorded_cycle() + 1
            while cycle <= total and not stop_reason:
                try:
                    status = self._run_cycle(cycle)
                except BudgetExceededError as exc:
                    self._record_out_of_budget(cycle, str(exc))
                    status = "out_of_budget"
                scores = [score for _, score in self.history.get_score_curve()]
                converged = _is_score_converged(scores, self.config.egl_window, self.config.egl_threshold)
                if status == "out_of_budget" and session.budget_spent():
                    stop_reason = "out_of_budget"
                elif status == "stop" and self.config.allow_early_stop:
                    stop_reason = "engine_stop"
                elif converged:
                    stop_reason = "converged"
                cycle += 1
            session.finalize()
            return self._result(converged, stop_reason)

    # -- one cycle ---------------------------------------------------------------------------------------

    def _run_cycle(self, cycle: int) -> str:
        session, journal = self.session, self.session.journal
        phases = journal.phases(cycle)
        observations, batch_rel = (
            self._load_batch(phases["solved"]) if "solved" in phases else self._solve(cycle)
        )
        if "stepped" in phases:
            session.context(cycle)
            outcome = StepOutcome.from_journal(phases["stepped"])
            session.vc.reset_to(f"cand-{cycle}")
        else:
            self.emit(cycle, "step")
            outcome = session.step(cycle, observations)
            journal.record(cycle, "stepped", **outcome.to_dict())
        if "gated" in phases:
            decision = GateDecision(**phases["gated"]["decision"]) if phases["gated"]["decision"] else None
        else:
            decision = self._gate(cycle, outcome)
            journal.record(cycle, "gated", decision=decision.to_dict() if decision else None)
        accepted = self._apply(cycle, decision)
        self.agent = session.reload_agent(self.agent)
        self.engine.on_cycle_end(accepted, session.accepted_score)
        self._record(cycle, observations, batch_rel, outcome, decision, accepted)
        session.snapshot_engine_state(str(cycle))
        journal.record(cycle, "recorded", accepted_tag=session.accepted_tag, accepted_score=session.accepted_score)
        self.emit(cycle, "recorded", score=session.accepted_score)
        return outcome.status

    def _solve(self, cycle: int) -> tuple[list[Observation], str]:
        session = self.session
        session.vc.reset_to(session.accepted_tag)
        self.agent.reload_from_fs()
        batch_ids, cursor = next_batch(session.plan.train_ids, session.cursor, self.config.batch_size)
        tasks = [session.train_tasks[i] for i in batch_ids]
        self.emit(cycle, "solve", total=len(tasks))
        observer = Observer(self.workspace.path)
        done: list[Observation] = []

        def on_done(observation: Observation) -> None:
            done.append(observation)
            self.emit(cycle, "solve", done=len(done), total=len(tasks))

        for observation in solve_all(self.agent, self.benchmark, tasks, self.config.concurrency, on_done, session.executor):
            observer.record(observation.task, observation.trajectory, observation.feedback)
        observations = observer.get_observations()
        self.agent.export_to_fs()
        session.vc.commit(f"cycle {cycle}: workspace before evolution", tag=f"pre-evo-{cycle}")
        path = observer.flush(str(cycle))
        batch_rel = str(path.relative_to(self.workspace.path))
        score = mean_score(observations)
        session.cursor = cursor
        session.journal.record(cycle, "solved", batch=batch_rel, cursor=cursor, batch_ids=batch_ids, score=score)
        return observations, batch_rel

    def _load_batch(self, solved: dict) -> tuple[list[Observation], str]:
        self.session.cursor = solved["cursor"]
        rows = read_jsonl(self.workspace.path / solved["batch"])
        return [Observation.from_dict(r) for r in rows], solved["batch"]

    def _gate(self, cycle: int, outcome: StepOutcome) -> GateDecision | None:
        """Score a mutated candidate on the holdout against the accepted version; None when nothing changed."""
        session = self.session
        if outcome.status in ("failed", "out_of_budget") or not outcome.mutated:
            return None
        if not session.plan.holdout_ids:
            return GateDecision("accept", 0.0, 0.0, 0.0, 0.0, "no holdout tasks: every valid mutation is kept")
        self.agent = session.reload_agent(self.agent)
        total = len(session.plan.holdout_ids)
        self.emit(cycle, "gate", total=total)
        candidate, per_task = session.evaluate_holdout(self.agent, lambda n: self.emit(cycle, "gate", done=n, total=total))
        decision = gate(
            candidate,
            session.accepted_score,
            min_improvement=self.config.gate_min_improvement,
            accept_ties=self.config.gate_accept_ties,
        )
        write_json_atomic(self.records.gate / f"cycle_{cycle}.json", {"decision": decision.to_dict(), "tasks": per_task})
        return decision

    def _apply(self, cycle: int, decision: GateDecision | None) -> bool:
        """Tag an accepted candidate evo-N; otherwise restore the accepted files (the candidate stays tagged)."""
        session = self.session
        if decision is not None and decision.accepted:
            session.vc.tag(f"evo-{cycle}", f"cand-{cycle}")
            session.vc.reset_to(f"evo-{cycle}")
            session.accepted_tag = f"evo-{cycle}"
            if session.plan.holdout_ids:
                session.accepted_score = decision.candidate_score
            return True
        session.vc.reset_to(session.accepted_tag)
        return False

    def _record(
        self,
        cycle: int,
        observations: list[Observation],
        batch_rel: str,
        outcome: StepOutcome,
        decision: GateDecision | None,
        accepted: bool,
    ) -> None:
        session = self.session
        if any(r["cycle"] == cycle for r in self.history.cycle_records()):
            return
        batch_score = mean_score(observations)
        score = session.accepted_score if session.plan.holdout_ids else batch_score
        record = CycleRecord(
            cycle=cycle,
            score=score,
            mutated=outcome.mutated,
            engine_name=self.engine.engine_name,
            summary=outcome.summary,
            observation_batch=batch_rel,
            metadata={
                "status": outcome.status,
                "accepted": accepted,
                "outcome": _outcome_label(outcome, decision),
                "accepted_tag": session.accepted_tag,
                "batch_score": batch_score,
                "gate": decision.to_dict() if decision else None,
                "changed_paths": outcome.changed_paths,
                "reverted_paths": outcome.reverted_paths,
                "step_metadata": outcome.metadata,
                "usage": session.take_usage(outcome),
            },
        )
        append_jsonl(self.records.history, asdict(record))
        write_json_atomic(self.records.metrics, self._metrics())

    def _record_out_of_budget(self, cycle: int, message: str) -> None:
        """A budget ran out mid-cycle: restore the accepted version and record the cycle as out_of_budget."""
        session = self.session
        session.vc.reset_to(session.accepted_tag)
        self.agent = session.reload_agent(self.agent)
        outcome = StepOutcome(status="out_of_budget", mutated=False, summary=f"budget exhausted: {message}")
        self._record(cycle, [], "", outcome, None, False)
        session.journal.record(
            cycle, "recorded", accepted_tag=session.accepted_tag, accepted_score=session.accepted_score
        )
        self.emit(cycle, "out_of_budget", message=message)

    # -- results -----------------------------------------------------------------------------------------

    def _metrics(self) -> dict:
        records = self.history.cycle_records()
        outcomes = [r["metadata"].get("outcome") for r in records]
        return {
            "baseline_score": self.session.baseline_score,
            "accepted_score": self.session.accepted_score,
            "accepted_tag": self.session.accepted_tag,
            "cycles": len(records),
            "accepted": outcomes.count("accepted"),
            "rejected": outcomes.count("rejected"),
            "unchanged": outcomes.count("unchanged"),
            "failed": outcomes.count("failed") + outcomes.count("out_of_budget"),
            "holdout_size": len(self.session.plan.holdout_ids),
            "usage": _sum_usage(r["metadata"].get("usage", {}) for r in records),
        }

    def _result(self, converged: bool, stop_reason: str) -> EvolutionResult:
        records = self.history.cycle_records()
        details = self._metrics()
        details.update(stop_reason=stop_reason, workspace=str(self.workspace.path))
        return EvolutionResult(
            cycles_completed=len(records),
            final_score=self.session.accepted_score,
            score_history=[float(r["score"]) for r in records],
            converged=converged,
            details=details,
        )

    def emit(self, cycle: int, phase: str, **fields: object) -> None:
        self.progress(ProgressEvent(cycle=cycle, phase=phase, **fields))  # type: ignore[arg-type]


def _outcome_label(outcome: StepOutcome, decision: GateDecision | None) -> str:
    if outcome.status in ("failed", "out_of_budget"):
        return outcome.status
    if decision is None:
        return "unchanged"
    return "accepted" if decision.accepted else "rejected"


def _sum_usage(usages: object) -> dict[str, dict[str, float]]:
    """Add per-role usage dicts ({role: {calls, input_tokens, output_tokens, cost}})."""
    total: dict[str, dict[str, float]] = {}
    for usage in usages:  # type: ignore[attr-defined]
        for role, numbers in usage.items():
            bucket = total.setdefault(role, {})
            for key, value in numbers.items():
                bucket[key] = bucket.get(key, 0) + value
    return total

