"""EvolutionLoop, the kernel's spine: solve, step, gate, accept or reject, record; every phase journaled to resume.
It calls the other engine modules and none calls back; it owns `RunState`, the ledger and the engine's context."""

from __future__ import annotations

import logging
import math
import os
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine import transitions
from agent_evolve.engine.base import (EngineContext, EvolutionEngine, StepProgress, call_message, engine_params,
                                      step_progress, task_info)
from agent_evolve.engine.executors import make_executor
from agent_evolve.engine.gate import GateOutcome
from agent_evolve.engine.gate_evaluation import GateRun
from agent_evolve.engine.journal import CLOSING_PHASES, Phase, RunState
from agent_evolve.engine.observer import EvolutionHistory, Observer, ScorelessWorkspace, hide_feedback
from agent_evolve.engine.records import RunRecords, append_jsonl, read_json, read_jsonl, write_json_atomic
from agent_evolve.engine.run_metrics import (_is_score_converged, accepted_score_plateaued, cycle_line, cycle_record,
                                             run_metrics, run_result)
from agent_evolve.engine.run_usage import UsageMeter
from agent_evolve.engine.session import RunSession
from agent_evolve.engine.solving import (ARM_PHASE, BASELINE_SCORED, TEST_PHASE, Announcer, Progress, ProgressEvent,
                                         batch_failure, graded_mean, graded_only, reload_agent, solve_all)
from agent_evolve.engine.stepping import StepOutcome, guarded_step, step_call, workspace_problems
from agent_evolve.engine.tasks import next_batch, plan_tasks
from agent_evolve.engine.trial import TrialRunner
from agent_evolve.engine.versioning import pre_evolution_tag
from agent_evolve.errors import AgentEvolveError, BudgetExceededError, WorkspaceError
from agent_evolve.llm.factory import apply_config_limits
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import EvolutionResult, Observation, Task

log = logging.getLogger(__name__)

# the progress names stay importable from here, where the page and the callers import them
__all__ = ["ARM_PHASE", "BASELINE_SCORED", "TEST_PHASE", "EvolutionLoop", "Progress", "ProgressEvent",
           "_is_score_converged"]  # the last is where the A-Evolve API page imports it from

ALL_CYCLES_DONE = "all cycles done"  # metrics.json `ended` of a run that ran every cycle it was asked for


def pool_ids(pool: object, source: str) -> list[str]:
    """The ids of the train pool a benchmark (`source`) returned; an AgentEvolveError naming it and the problem when
    the pool is empty or not a list of Tasks with distinct ids."""
    where = f"benchmark {source}: get_tasks('train') returned"
    if not isinstance(pool, list) or not pool:
        raise AgentEvolveError(f"{where} {pool!r:.80}, not a non-empty list of Task")
    if wrong := [t for t in pool if not isinstance(t, Task)]:
        raise AgentEvolveError(f"{where} a {type(wrong[0]).__name__}, not a Task (agent_evolve.types.Task)")
    if repeated := sorted(i for i, n in Counter(t.id for t in pool).items() if n > 1):
        raise AgentEvolveError(f"{where} duplicate task ids: {repeated[:5]}")
    return [t.id for t in pool]


class EvolutionLoop:
    """Runs cycles 1..N on a workspace; `ledger` is the run's own usage ledger (budgets apply to it; journaled)."""

    def __init__(self, agent: BaseAgent, benchmark: BenchmarkAdapter, engine: EvolutionEngine, config: EvolveConfig,
                 workspace: AgentWorkspace, *, agent_factory: Callable[[Path], BaseAgent] | None = None,
                 progress: Progress | None = None, ledger: UsageLedger | None = None):
        self.agent = agent
        self.benchmark = benchmark
        self.engine = engine
        self.config = config
        self.workspace = workspace
        self.agent_factory = agent_factory or (lambda path: type(agent)(path))
        self.progress = progress
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.records = RunRecords(Path(workspace.path))
        self.history = EvolutionHistory(workspace.path)
        self.engine_history = EvolutionHistory(workspace.path, trajectory_only=config.trajectory_only)
        self.engine_workspace = ScorelessWorkspace(workspace.path) if config.trajectory_only else workspace
        self.cancel_event = threading.Event()

    def cancel(self) -> None:
        """Ask the run to stop (from another thread): the engine sees `context.cancel`; the loop finalizes after the
        cycle in progress."""
        self.cancel_event.set()

    def run(self, cycles: int | None = None, *, force: bool = False) -> EvolutionResult:
        """Run until the workspace has `cycles` cycles (default config.max_cycles), converges, or is stopped."""
        total = self.config.max_cycles if cycles is None else cycles
        apply_config_limits(self.config, self.ledger)
        with RunSession.open(self.config, self.engine_workspace, self.benchmark, self.engine, force) as session:
            self.session = session
            if session.fresh:
                self._start_fresh()
            elif spent := session.journal.last_usage():  # every journaled phase holds the usage so far: a resumed
                self.ledger.restore(spent)  # run keeps what the phases it does not repeat spent (budgets included)
            self.executor = make_executor(self.config, self.agent_factory, self.ledger)
            self.gate = GateRun(self.config, self.benchmark, session.vc, self.records, session.holdout_tasks,
                                self.agent_factory, self.progress, self.executor)
            self.meter = UsageMeter(self.ledger)  # a fresh run's baseline usage counts in cycle 1
            stop_reason, converged = "", False
            try:
                self.state = self._resume() if session.journal.has(0, Phase.BASELINE) else self._baseline()
            except BudgetExceededError as exc:
                self.state, stop_reason = self._baseline_out_of_budget(str(exc)), "out_of_budget"
            cycle = session.journal.last_recorded_cycle() + 1
            if cycle > 1 and not stop_reason:  # a run that stopped by its own rule stays stopped when run again,
                recorded = session.journal.last_entry(Phase.RECORDED) or {}  # judged as it was (before finalize)
                stop_reason, converged = self._stop_reason(cycle - 1, "", int(recorded.get("accepted_cycle", 0)))
            while cycle <= total and not stop_reason:
                if spent := self.ledger.budget_problem():  # before the cycle began (a rerun): record no empty cycle
                    self.emit(cycle, "out_of_budget", message=spent)
                    stop_reason = "out_of_budget"
                    break
                try:
                    status = self._run_cycle(cycle)
                except BudgetExceededError as exc:
                    self._record_out_of_budget(cycle, str(exc))
                    status = "out_of_budget"
                stop_reason, converged = self._stop_reason(cycle, status, self.state.accepted_cycle)
                cycle += 1
            self._finalize()
            result = run_result(self.history.cycle_records(), self._metrics(), self.state.accepted_score, converged,
                                stop_reason, str(self.workspace.path))  # finalize may have picked another version
            write_json_atomic(self.records.metrics, {**self._metrics(), "ended": stop_reason or ALL_CYCLES_DONE})
            return result

    def _start_fresh(self) -> None:
        """Tag the starting workspace, plan the tasks, let the engine set up and bootstrap; commit that as evo-0."""
        session = self.session
        pre = transitions.start(session.vc)
        problems = workspace_problems(session.path)
        if problems:
            raise WorkspaceError("workspace is invalid:\n  " + "\n  ".join(problems))
        pool = self.benchmark.get_tasks("train", limit=self.config.task_pool_limit)
        ids = pool_ids(pool, type(self.benchmark).__name__)
        cfg = self.config
        session.begin(plan_tasks(ids, cfg.holdout_ratio, cfg.seed, cfg.holdout_limit, cfg.val_ratio,
                                 cfg.val_limit), pool)
        ctx = self._context(0)
        self.engine.setup(ctx)
        outcome = guarded_step(self.engine, self.engine.bootstrap, ctx, session.vc, session.layers, pre,
                               allow_none=True, ledger=self.ledger)
        transitions.record_baseline(session.vc, outcome.summary)
        session.files.snapshot("0")
        session.journal.record(0, Phase.STARTED, summary=outcome.summary, status=outcome.status,
                               charged_usage=outcome.charged_usage, session=outcome.session,
                               usage=self.ledger.to_dict())

    def _baseline(self) -> RunState:
        """Measure the starting version (after any bootstrap) on the holdout; the first accepted score."""
        session = self.session
        transitions.to_baseline(session.vc)
        session.files.restore("0")
        self.agent = self._reload_agent()
        state = RunState(plan=session.plan)
        if state.has_holdout:
            score = self.gate.baseline(self.agent).mean
            state.accepted_score = state.baseline_score = score
            self.emit(0, BASELINE_SCORED, score=score, total=len(session.plan.holdout_ids))
        state.usage = self.ledger.to_dict()
        session.journal.record(0, Phase.BASELINE, **state.accepted_fields())
        return state

    def _baseline_out_of_budget(self, message: str) -> RunState:
        """A budget ran out while scoring the baseline: nothing was measured (scores NaN) and nothing is journaled,
        so a rerun scores it again; the run then stops as at any budget stop."""
        self.emit(0, "out_of_budget", message=message)
        return RunState(plan=self.session.plan, accepted_score=math.nan, baseline_score=math.nan,
                        usage=self.ledger.to_dict())

    def _resume(self) -> RunState:
        self.history.cycle_records()  # a damaged record stops the run here, not after the resumed cycle's work
        state, journal = self.session.resume_state(), self.session.journal
        opened = journal.last_entry(Phase.RECORDED) or journal.phases(0)[Phase.STARTED]
        self.meter = UsageMeter(self.ledger, since=opened.get("usage"))  # as a fresh run's: cycle 1 counts the baseline
        self.agent = self._reload_agent()
        metrics = read_json(self.records.metrics, {})  # a resumed run is no longer ended
        if isinstance(metrics, dict) and metrics.pop("ended", None) is not None:
            write_json_atomic(self.records.metrics, metrics)
        return state

    def _stop_reason(self, cycle: int, status: str, accepted_cycle: int) -> tuple[str, bool]:
        """Why the run stops after `cycle` ("" to go on; patience counts from `accepted_cycle`), and whether the
        accepted score has converged."""
        converged = accepted_score_plateaued(self._curve(), self.config.egl_window, self.config.egl_threshold)
        if status == "out_of_budget" and self.meter.budget_spent():
            return "out_of_budget", converged
        if self.cancel_event.is_set():
            return "cancelled", converged
        if status == "stop" and self.config.allow_early_stop:
            return "engine_stop", converged
        if converged:
            return "converged", converged
        if self.config.patience and cycle - accepted_cycle >= self.config.patience:
            return "patience", converged
        return "", converged

    def _curve(self) -> list[float]:
        """The accepted score: the baseline's (with a holdout), then after each recorded cycle."""
        start = [self.state.baseline_score] if self.state.has_holdout else []
        return start + [float(r["metadata"]["accepted_score"]) for r in self.history.cycle_records()]

    # -- one cycle ---------------------------------------------------------------------------------------

    def _run_cycle(self, cycle: int) -> str:
        session, journal, state = self.session, self.session.journal, self.state
        phases = journal.phases(cycle)
        solved = phases.get(Phase.SOLVED)
        observations, batch_rel = self._load_batch(solved) if solved is not None else self._solve(cycle)
        graded = graded_only(observations)
        state.add_train_scores(sum(o.feedback.score for o in graded), len(graded))
        if Phase.STEPPED in phases:
            self._context(cycle)
            outcome = StepOutcome.from_journal(phases[Phase.STEPPED])
            transitions.to_candidate(session.vc, cycle)
        else:
            at_pre = Phase.SOLVED not in phases  # solved just now: the tree is pre-evo-N, as it was just tagged
            outcome = self._step(cycle, observations, len(observations) - len(graded), at_pre)
            journal.record(cycle, Phase.STEPPED, **asdict(outcome), usage=self.ledger.to_dict())
        if Phase.GATED in phases:
            verdict = GateOutcome.from_dict(phases[Phase.GATED])
        else:
            verdict = self._gate(cycle, outcome, observations)
            journal.record(cycle, Phase.GATED, **verdict.to_dict(), usage=self.ledger.to_dict())
        accepted = self._apply(cycle, verdict)
        self.agent = self._reload_agent()
        score = math.nan if self.config.trajectory_only else state.accepted_score
        self.engine.on_cycle_end(accepted, score)
        self._record(cycle, observations, graded, batch_rel, outcome, verdict, accepted)
        self._finish_cycle(cycle)
        self.emit(cycle, "recorded", score=state.accepted_score,
                  message=cycle_line(outcome, verdict, len(session.plan.holdout_ids), state.accepted_score))
        if outcome.status == "stop":
            return "stop"  # a stop request stands even when its candidate's gate failed
        return "failed" if verdict.failure else outcome.status

    def _solve(self, cycle: int) -> tuple[list[Observation], str]:
        session, state = self.session, self.state
        transitions.to_accepted(session.vc, state.accepted_tag)
        self.agent = self._reload_agent()
        self.agent.discard_buffers()
        batch_ids, cursor = next_batch(state.plan.train_ids, state.cursor, self.config.batch_size)
        tasks = [session.train_tasks[i] for i in batch_ids]
        announcer = Announcer(self.progress, cycle, "solve", total=len(tasks))
        announcer.say(total=len(tasks))
        observer = Observer(self.workspace.path)
        observations = solve_all(self.agent, self.benchmark, tasks, self.config.in_flight, announcer.solved,
                                 self.executor)
        observer.add(observations)
        graded = graded_only(observations)
        if batch_failure(len(observations), len(observations) - len(graded), self.config.max_infra_failure_ratio):
            self.agent.discard_buffers()
        else:
            self.agent.export_to_fs()
        transitions.checkpoint(session.vc, cycle)
        path = observer.flush(str(cycle))
        batch_rel = os.path.relpath(path, self.workspace.path)  # '../<ws>.sealed/...' when scores are sealed
        state.cursor = cursor
        session.journal.record(cycle, Phase.SOLVED, batch=batch_rel, cursor=cursor, batch_ids=batch_ids,
                               score=graded_mean(graded), usage=self.ledger.to_dict())
        return observations, batch_rel

    def _load_batch(self, solved: dict) -> tuple[list[Observation], str]:
        self.state.cursor = solved["cursor"]
        rows = read_jsonl(self.workspace.path / solved["batch"])
        return [Observation.from_dict(r) for r in rows], solved["batch"]

    def _step(self, cycle: int, observations: list[Observation], infrastructure_failures: int,
              at_pre: bool = False) -> StepOutcome:
        """Run engine.step on the pre-evolution snapshot (skipped when the batch failed); tag the result cand-N."""
        session, pre = self.session, pre_evolution_tag(cycle)
        if not at_pre:
            transitions.to_pre_evolution(session.vc, cycle)
        failure = batch_failure(len(observations), infrastructure_failures, self.config.max_infra_failure_ratio)
        if failure:
            outcome = StepOutcome(status="failed", mutated=False, summary=failure)
        else:
            self.emit(cycle, "step")
            progress = step_progress(cycle, self.state.cursor, len(observations), len(self.state.plan.train_ids))
            trial = TrialRunner(session.train_tasks, self.benchmark, self.agent_factory, session.path,
                                self.config.in_flight, default_ids=[o.task.id for o in observations],
                                hide_feedback=self.config.trajectory_only, validation_tasks=session.val_tasks,
                                on_solved=lambda n: self.emit(cycle, "step", done=n, message=f"{n} trial solves"),
                                ledger=self.ledger, log_dir=session.files.output_dir(cycle) / "trials")
            ctx = self._context(cycle, trial, progress)
            visible = hide_feedback(observations) if self.config.trajectory_only else observations
            call = step_call(self.engine, self.engine_workspace, visible, self.engine_history)
            outcome = guarded_step(self.engine, call, ctx, session.vc, session.layers, pre, ledger=self.ledger)
        transitions.record_candidate(session.vc, cycle, outcome.summary)
        session.files.snapshot(f"{cycle}-stepped")
        return outcome

    def _gate(self, cycle: int, outcome: StepOutcome, observations: list[Observation]) -> GateOutcome:
        """Score a mutated candidate against the accepted version; no decision when nothing changed."""
        if outcome.status in ("failed", "out_of_budget") or not outcome.mutated:
            return GateOutcome()
        return self.gate.evaluate(cycle, self.state, observations, self.agent)

    def _apply(self, cycle: int, verdict: GateOutcome) -> bool:
        """Tag an accepted candidate evo-N; otherwise restore the accepted files (the candidate stays tagged)."""
        session = self.session
        if verdict.accepted:
            tag = transitions.accept(session.vc, cycle)
            self.state.accept(tag, cycle, float(verdict.accepted_score or 0.0), verdict.accepted_count)
            return True
        transitions.reject(session.vc, self.state.accepted_tag)
        return False

    def _record(self, cycle: int, observations: list[Observation], graded: list[Observation], batch_rel: str,
                outcome: StepOutcome, verdict: GateOutcome, accepted: bool) -> None:
        if any(r["cycle"] == cycle for r in self.history.cycle_records()):
            return
        record = cycle_record(cycle, observations, graded, batch_rel, outcome, verdict, accepted, self.state,
                              self.engine.engine_name, self.meter.take())
        append_jsonl(self.records.history, asdict(record))
        write_json_atomic(self.records.metrics, self._metrics())

    def _finish_cycle(self, cycle: int) -> None:
        """Snapshot the engine's state and journal the cycle with the accepted version and the spent usage."""
        self.session.files.snapshot(str(cycle))
        self.state.usage = self.ledger.to_dict()
        self.session.journal.record(cycle, Phase.RECORDED, **self.state.accepted_fields())

    def _record_out_of_budget(self, cycle: int, message: str) -> None:
        """A budget ran out mid-cycle: restore the accepted version and record the cycle as out_of_budget."""
        transitions.reject(self.session.vc, self.state.accepted_tag)
        self.agent = self._reload_agent()
        outcome = StepOutcome(status="out_of_budget", mutated=False, summary=f"budget exhausted: {message}")
        self._record(cycle, [], [], "", outcome, GateOutcome(), False)
        self._finish_cycle(cycle)
        self.emit(cycle, "out_of_budget", message=message)

    # -- the engine's context, the agent, the result ------------------------------------------------------

    def _context(self, cycle: int, trial: TrialRunner | None = None,
                 progress: StepProgress | None = None) -> EngineContext:
        """The engine's context for one call, built here and nowhere else: handed to the call and set as
        `engine.context` (engines whose `step` has the page's four arguments read it there)."""
        session = self.session
        ctx = session.files.context(self.config, self.engine_workspace, self.engine_history, cycle, trial)
        ctx.params = engine_params(self.engine, self.config)
        ctx.task_info = task_info(self.benchmark, session.plan, session.layers)
        ctx.tools = {"check_spec": lambda: workspace_problems(session.path)}
        if trial is not None:
            ctx.tools["run_agent"] = trial
        ctx.cancel = self.cancel_event
        ctx.progress = progress
        ctx.session = self._previous_session(cycle)
        ctx.message = call_message(ctx)
        self.engine.context = ctx
        return ctx

    def _previous_session(self, cycle: int) -> str | None:
        """The last session handle an engine call up to `cycle` returned (a step's own is journaled after it
        returns), when resume is enabled and supported."""
        if not (self.config.engine_resume and self.engine.supports_resume):
            return None
        entries = self.session.journal.entries(Phase.STARTED, Phase.STEPPED)
        handles = [e.get("session") for e in entries if e["cycle"] <= cycle]
        return next((h for h in reversed(handles) if h), None)

    def _finalize(self) -> None:
        """Let the engine pick the final version among accepted ones; journal the choice."""
        session, state = self.session, self.state
        last = max(session.journal.last_recorded_cycle(), 0)  # -1: stopped before the baseline was scored
        try:
            chosen = self.engine.finalize(self._context(last))
        except Exception as exc:  # noqa: BLE001 - a failing finalize keeps the accepted version
            log.warning("engine finalize failed, keeping %s: %s", state.accepted_tag, exc)
            return
        if not chosen or chosen == state.accepted_tag:
            return
        accepted = {e["accepted_tag"]: e for e in session.journal.entries(*CLOSING_PHASES)}
        if chosen not in accepted:
            log.warning("engine finalize chose %s, which was never accepted; keeping %s", chosen, state.accepted_tag)
            return
        entry = accepted[chosen]
        transitions.finalize(session.vc, chosen)
        state.accept(chosen, int(entry.get("accepted_cycle", 0)), float(entry["accepted_score"]),
                     int(entry.get("accepted_count", 0)))
        session.journal.record(last, Phase.FINISHED, **state.accepted_fields())

    def _reload_agent(self) -> BaseAgent:
        """The run's agent as the checked-out version is (see `solving.reload_agent`)."""
        return reload_agent(self.agent, self.agent_factory, Path(self.workspace.path))

    def _metrics(self) -> dict:
        return run_metrics(self.history.cycle_records(), self.state, self.ledger.to_dict()["total"])

    def emit(self, cycle: int, phase: str, **fields: object) -> None:
        Announcer(self.progress, cycle, phase).say(**fields)
