"""The gate's evaluation: candidate and incumbent (re-measured, or its sealed table) scored task by task on the
holdout, k repeats each; curtailed only on a settled or futile rejection; files rejected before: rejected again."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine import transitions
from agent_evolve.engine.acceptance import strategy_from_config
from agent_evolve.engine.curtailment import GateCurtailer, ScoreRange, StopRule, scoring_order
from agent_evolve.engine.executors.base import Executor
from agent_evolve.engine.gate import GateDecision, GateOutcome, decide, no_holdout_decision
from agent_evolve.engine.records import RunRecords, read_json, write_json_atomic
from agent_evolve.engine.solving import (Announcer, HoldoutMeasure, Progress, expected_seconds, graded_mean,
                                         graded_only, infrastructure_problem, measure, reload_agent, solve_all)
from agent_evolve.engine.journal import RunState
from agent_evolve.engine.versioning import VersionControl, accepted_tag, candidate_tag
from agent_evolve.errors import AgentEvolveError, ConfigError
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

log = logging.getLogger(__name__)

GATE_WARN_SECONDS = 900.0  # a gate expected to take longer (at the batch's measured speed) is announced first


@dataclass
class GateRun:
    """The inputs of the run's gate evaluations: agents are reloaded from the checked-out workspace with
    `agent_factory`'s rule; the gate's phases are told to `progress`."""

    config: EvolveConfig
    benchmark: BenchmarkAdapter
    vc: VersionControl
    records: RunRecords
    holdout: list[Task]
    agent_factory: Callable[[Path], BaseAgent]
    progress: Progress | None
    executor: Executor

    def remeasure(self, agent: BaseAgent) -> bool:
        """Re-measure the incumbent: as configured, else when the agent or the grader is not deterministic."""
        if self.config.gate_remeasure_incumbent is not None:
            return self.config.gate_remeasure_incumbent
        return not (agent.deterministic and self.benchmark.deterministic)

    def baseline(self, agent: BaseAgent) -> HoldoutMeasure:
        """Measure the starting version; its per-task table is the first cached incumbent."""
        result = self._measure(agent, 0, "baseline")
        if problem := result.infrastructure_problem(self.config.max_infra_failure_ratio, "baseline"):
            raise AgentEvolveError(f"the run stops: {problem}; first: {result.first_error}")
        write_json_atomic(self.records.holdout_table(accepted_tag(0)), result.scores)
        write_json_atomic(self.records.holdout_cost(accepted_tag(0)), result.cost_per_task())
        return result

    def evaluate(self, cycle: int, state: RunState, batch: list[Observation], agent: BaseAgent) -> GateOutcome:
        """Score the candidate tagged cand-N (the working tree) against the accepted version; `agent` is the
        run's agent, reloaded here from each version it measures."""
        if self.holdout and (again := self._rejected_before(cycle, state)) is not None:
            return again
        agent = reload_agent(agent, self.agent_factory, self.vc.path)
        if not self.holdout:
            return self._train_only(agent, batch)
        remeasure = self.remeasure(agent)
        attempts = len(self.holdout) * self.config.gate_repeats * (2 if remeasure else 1)
        eta = expected_seconds(batch, attempts, self.config.in_flight)
        if eta > GATE_WARN_SECONDS:
            message = f"the gate will take about {eta / 60:.0f} min ({attempts} holdout attempts); see holdout_limit"
            log.warning("cycle %d: %s", cycle, message)
            Announcer(self.progress, cycle, "gate_warning").say(message=message)
        curtailer = self._curtailer(state) if self.config.gate_curtail else None
        cached = read_json(self.records.holdout_table(state.accepted_tag), None)
        incumbent_scores: dict[str, list[float]] = cached or {}
        incumbent_cost: dict[str, float] = read_json(self.records.holdout_cost(state.accepted_tag), {})
        measures: dict[str, Any] = {}
        phases: dict[str, HoldoutMeasure | None] = {}
        if remeasure or cached is None:
            transitions.to_accepted(self.vc, state.accepted_tag)
            incumbent = self._measure(reload_agent(agent, self.agent_factory, self.vc.path), cycle, "gate",
                                      curtailer, curtailer.incumbent_rule() if curtailer else None)
            transitions.to_candidate(self.vc, cycle)
            agent = reload_agent(agent, self.agent_factory, self.vc.path)
            phases["incumbent"] = incumbent
            measures["incumbent"] = incumbent.to_dict()
            incumbent_scores, incumbent_cost = incumbent.scores, incumbent.cost_per_task()
            if failure := incumbent.infrastructure_problem(self.config.max_infra_failure_ratio, "gate (incumbent)"):
                return self._sealed_failure(cycle, failure, measures)
        if curtailer is not None and curtailer.rejected():
            candidate = HoldoutMeasure(unscored=[t.id for t in self.holdout])
            phases["candidate"] = None
        else:
            rule = curtailer.candidate_rule(incumbent_scores) if curtailer else None
            candidate = phases["candidate"] = self._measure(agent, cycle, "gate", curtailer, rule)
            measures["candidate"] = candidate.to_dict()
        if failure := candidate.infrastructure_problem(self.config.max_infra_failure_ratio, "gate (candidate)"):
            return self._sealed_failure(cycle, failure, measures)
        decision = decide(candidate.scores, incumbent_scores, strategy_from_config(self.config),
                          best_so_far=state.accepted_score)
        if curtailer is not None:
            decision = curtailer.decided(decision, curtailer.record(phases))
        if candidate.attempts:
            decision = replace(decision, cost=extra_cost(candidate.cost_per_task(), incumbent_cost))
        write_json_atomic(self.records.gate / f"cycle_{cycle}.json",
                          {"decision": decision.to_dict(), "incumbent_tag": state.accepted_tag,
                           "remeasured_incumbent": "incumbent" in measures, **measures})
        if decision.accepted:
            write_json_atomic(self.records.holdout_table(accepted_tag(cycle)), candidate.scores)
            write_json_atomic(self.records.holdout_cost(accepted_tag(cycle)), candidate.cost_per_task())
        return GateOutcome(decision, accepted_score=candidate.mean)

    def _rejected_before(self, cycle: int, state: RunState) -> GateOutcome | None:
        """The earlier rejection of this candidate's files against the accepted version, carried over with no task
        scored; None when no cycle since that version was rejected with the same files."""
        tree = None
        for earlier in range(state.accepted_cycle + 1, cycle):  # the first match is the gate that scored it
            record = read_json(self.records.gate / f"cycle_{earlier}.json", None)
            if not record or record.get("incumbent_tag") != state.accepted_tag or "decision" not in record:
                continue
            before = GateDecision.from_dict(record["decision"])
            tree = tree or self.vc.tree(candidate_tag(cycle))
            if (before.accepted or not self.vc.has_ref(candidate_tag(earlier))
                    or self.vc.tree(candidate_tag(earlier)) != tree):
                continue
            reason = (f"the same files as {candidate_tag(earlier)}, rejected against {state.accepted_tag} in cycle "
                      f"{earlier} ({before.reason}); not scored again")
            decision = replace(before, reason=reason, curtailment={}, cost={})
            write_json_atomic(self.records.gate / f"cycle_{cycle}.json",
                              {"decision": decision.to_dict(), "incumbent_tag": state.accepted_tag,
                               "same_as": candidate_tag(earlier)})
            return GateOutcome(decision, accepted_score=decision.candidate_score)
        return None

    def _curtailer(self, state: RunState) -> GateCurtailer:
        """The gate's curtailment: the configured strategy, the benchmark's score range, the run's task order."""
        try:
            low, high = self.benchmark.score_range
            bounds = ScoreRange(float(low), float(high))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"benchmark {self.benchmark.name!r}: score_range {self.benchmark.score_range!r} must "
                              f"be (low, high), two finite numbers with low <= high ({exc}); or set "
                              "gate_curtail: false") from exc
        order = scoring_order([t.id for t in self.holdout], self.config.seed)
        return GateCurtailer(strategy_from_config(self.config), bounds, state.accepted_score, order,
                             self.config.gate_repeats, self.config.seed, self.config.gate_sprt_beta)

    def _train_only(self, agent: BaseAgent, batch: list[Observation]) -> GateOutcome:
        """No holdout: keep every valid mutation, scored once on this cycle's train batch (its final_score)."""
        try:
            observations = solve_all(agent, self.benchmark, [o.task for o in batch], self.config.in_flight,
                                     executor=self.executor)
        finally:
            agent.discard_buffers()
        graded = graded_only(observations)
        ratio = self.config.max_infra_failure_ratio
        if failure := infrastructure_problem(len(observations) - len(graded), len(observations), ratio,
                                             "train re-solves"):
            return GateOutcome(failure=failure)
        return GateOutcome(no_holdout_decision(), accepted_score=graded_mean(graded), accepted_count=len(graded))

    def _measure(self, agent: BaseAgent, cycle: int, phase: str, curtailer: GateCurtailer | None = None,
                 stop: StopRule | None = None) -> HoldoutMeasure:
        """One phase: every holdout task, or (curtailed) the run's fixed random order until `stop` says stop."""
        holdout = self.holdout
        if curtailer is not None and stop is not None:
            by_id = {t.id: t for t in self.holdout}
            holdout = [by_id[i] for i in curtailer.task_ids]
        announcer = Announcer(self.progress, cycle, phase, total=len(holdout) * self.config.gate_repeats)
        announcer.say(total=announcer.total)
        return measure(agent, self.benchmark, holdout, repeats=self.config.gate_repeats,
                       concurrency=self.config.in_flight, on_progress=announcer.reached, executor=self.executor,
                       stop=stop)

    def _sealed_failure(self, cycle: int, failure: str, measures: dict[str, Any]) -> GateOutcome:
        write_json_atomic(self.records.gate / f"cycle_{cycle}.json", {"failure": failure, **measures})
        return GateOutcome(failure=failure)


def extra_cost(candidate: Mapping[str, float], incumbent: Mapping[str, float]) -> dict[str, Any]:
    """Each side's model calls and tokens per holdout solve, and the candidate's extra (None where the incumbent's
    cost was never measured, e.g. a run resumed from before costs were kept)."""
    extra = {key: candidate[key] - incumbent[key] if key in incumbent else None for key in ("calls", "tokens")}
    return {"candidate": dict(candidate), "incumbent": dict(incumbent), "extra": extra}
