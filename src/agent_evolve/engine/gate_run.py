"""One gate evaluation: candidate and incumbent scored task by task on the same holdout, k repeats each.

The incumbent is re-measured in the same run when the config says so, or (config None) when the agent or the
grader is not deterministic; otherwise its cached per-task scores are used. The per-task tables and the full
decision are sealed (outside the workspace); the journal and the engine get only the aggregate decision.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine import transitions
from agent_evolve.engine.acceptance import strategy_from_config
from agent_evolve.engine.curtailment import ScoreRange, StopRule, scoring_order
from agent_evolve.engine.executors.base import Executor
from agent_evolve.engine.gate import no_holdout_decision
from agent_evolve.engine.gate_curtail import GateCurtailer
from agent_evolve.engine.gating import decide_gate, decision_summary
from agent_evolve.engine.holdout import GATE_WARN_SECONDS, HoldoutMeasure, expected_seconds, measure
from agent_evolve.engine.records import RunRecords, read_json, write_json_atomic
from agent_evolve.engine.solving import graded_mean, graded_only, solve_all, too_many_infrastructure_failures
from agent_evolve.engine.state import RunState
from agent_evolve.engine.versioning import VersionControl, accepted_tag
from agent_evolve.errors import AgentEvolveError, ConfigError
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

log = logging.getLogger(__name__)

GateResult = dict[str, Any]
"""The journaled gate result: `decision` (aggregate summary or None), `failure`, `accepted_score`, `accepted_count`."""


@dataclass
class GateRun:
    """The inputs of one gate evaluation; `load_agent` reloads the agent from the workspace as it is on disk."""

    config: EvolveConfig
    benchmark: BenchmarkAdapter
    vc: VersionControl
    records: RunRecords
    holdout: list[Task]
    load_agent: Callable[[], BaseAgent]
    announce: Callable[[str, dict[str, Any]], None]
    executor: Executor

    def remeasure(self, agent: BaseAgent) -> bool:
        """Re-measure the incumbent: as configured, else when the agent or the grader is not deterministic."""
        if self.config.gate_remeasure_incumbent is not None:
            return self.config.gate_remeasure_incumbent
        return not (agent.deterministic and self.benchmark.deterministic)

    def baseline(self, agent: BaseAgent) -> HoldoutMeasure:
        """Measure the starting version; its per-task table is the first cached incumbent."""
        result = self._measure(agent, "baseline")
        self._check_infrastructure(result, "baseline")
        write_json_atomic(self.records.holdout_table(accepted_tag(0)), result.scores)
        write_json_atomic(self.records.holdout_cost(accepted_tag(0)), result.cost_per_task())
        return result

    def evaluate(self, cycle: int, state: RunState, batch: list[Observation]) -> GateResult:
        """Score the candidate tagged cand-N (the working tree) against the accepted version."""
        if not state.has_holdout:
            return self._train_only(batch)
        agent = self.load_agent()
        remeasure = self.remeasure(agent)
        attempts = len(self.holdout) * self.config.gate_repeats * (2 if remeasure else 1)
        eta = expected_seconds(batch, attempts, self.config.concurrency)
        if eta > GATE_WARN_SECONDS:
            message = f"the gate will take about {eta / 60:.0f} min ({attempts} holdout attempts); see holdout_limit"
            log.warning("cycle %d: %s", cycle, message)
            self.announce("gate_warning", {"message": message})
        curtailer = self._curtailer(state) if self.config.gate_curtail else None
        cached = read_json(self.records.holdout_table(state.accepted_tag), None)
        incumbent_scores: dict[str, list[float]] = cached or {}
        incumbent_cost: dict[str, float] = read_json(self.records.holdout_cost(state.accepted_tag), {})
        measures: dict[str, Any] = {}
        phases: dict[str, HoldoutMeasure | None] = {}
        if remeasure or cached is None:
            transitions.to_accepted(self.vc, state.accepted_tag)
            incumbent = self._scored(self.load_agent(), curtailer, curtailer.incumbent_rule() if curtailer else None)
            transitions.to_candidate(self.vc, cycle)
            agent = self.load_agent()
            phases["incumbent"] = incumbent
            measures["incumbent"] = incumbent.to_dict()
            incumbent_scores, incumbent_cost = incumbent.scores, incumbent.cost_per_task()
            if failure := self._infrastructure_problem(incumbent, "gate (incumbent)"):
                return self._sealed_failure(cycle, failure, measures)
        if curtailer is not None and curtailer.rejected():
            candidate = HoldoutMeasure(unscored=[t.id for t in self.holdout])
            phases["candidate"] = None
        else:
            rule = curtailer.candidate_rule(incumbent_scores) if curtailer else None
            candidate = phases["candidate"] = self._scored(agent, curtailer, rule)
            measures["candidate"] = candidate.to_dict()
        if failure := self._infrastructure_problem(candidate, "gate (candidate)"):
            return self._sealed_failure(cycle, failure, measures)
        decision = decide_gate(self.config, candidate.scores, incumbent_scores, best_so_far=state.accepted_score)
        if curtailer is not None:
            decision = curtailer.decided(decision, curtailer.record(phases))
        if candidate.attempts:
            decision = replace(decision, cost=extra_cost(candidate.cost_per_task(), incumbent_cost))
        write_json_atomic(
            self.records.gate / f"cycle_{cycle}.json",
            {"decision": decision.to_dict(), "remeasured_incumbent": "incumbent" in measures, **measures},
        )
        if decision.accepted:
            write_json_atomic(self.records.holdout_table(accepted_tag(cycle)), candidate.scores)
            write_json_atomic(self.records.holdout_cost(accepted_tag(cycle)), candidate.cost_per_task())
        return {"decision": decision_summary(decision), "failure": "", "accepted_score": candidate.mean,
                "accepted_count": 0}

    def _curtailer(self, state: RunState) -> GateCurtailer:
        """The gate's curtailment: the configured strategy, the benchmark's score range, the run's task order."""
        try:
            low, high = self.benchmark.score_range
            bounds = ScoreRange(float(low), float(high))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"benchmark {self.benchmark.name!r}: score_range {self.benchmark.score_range!r} must "
                              f"be (low, high), two finite numbers with low <= high ({exc}); or set "
                              "gate_curtail: false") from exc
        beta = self.config.gate_sprt_beta
        if beta is not None and not (isinstance(beta, int | float) and 0.0 < beta < 1.0):
            raise ConfigError(f"key 'gate_sprt_beta' must be a number in (0, 1) or null (off), got {beta!r}")
        order = scoring_order([t.id for t in self.holdout], self.config.seed)
        return GateCurtailer(strategy_from_config(self.config), bounds, state.accepted_score, order,
                             self.config.gate_repeats, self.config.seed, beta)

    def _scored(self, agent: BaseAgent, curtailer: GateCurtailer | None, rule: StopRule | None) -> HoldoutMeasure:
        """One phase of the gate: every holdout task, or (curtailed) the run's fixed random order until its
        rejection is settled."""
        if curtailer is None or rule is None:
            return self._measure(agent, "gate")
        by_id = {t.id: t for t in self.holdout}
        return self._measure(agent, "gate", [by_id[i] for i in curtailer.task_ids], rule)

    def _train_only(self, batch: list[Observation]) -> GateResult:
        """No holdout: keep every valid mutation, scored once on this cycle's train batch (its final_score)."""
        agent = self.load_agent()
        try:
            observations = solve_all(
                agent, self.benchmark, [o.task for o in batch], self.config.concurrency, executor=self.executor
            )
        finally:
            agent.discard_buffers()
        graded = graded_only(observations)
        failed = len(observations) - len(graded)
        if too_many_infrastructure_failures(failed, len(observations), self.config.max_infra_failure_ratio):
            return {"decision": None, "failure": f"{failed} of {len(observations)} train re-solves failed for "
                    "infrastructure reasons", "accepted_score": None, "accepted_count": 0}
        return {"decision": decision_summary(no_holdout_decision()), "failure": "",
                "accepted_score": graded_mean(graded), "accepted_count": len(graded)}

    def _measure(self, agent: BaseAgent, phase: str, tasks: list[Task] | None = None,
                 stop: StopRule | None = None) -> HoldoutMeasure:
        holdout = self.holdout if tasks is None else tasks
        total = len(holdout) * self.config.gate_repeats
        self.announce(phase, {"total": total})
        return measure(
            agent,
            self.benchmark,
            holdout,
            repeats=self.config.gate_repeats,
            concurrency=self.config.concurrency,
            on_progress=lambda n: self.announce(phase, {"done": n, "total": total}),
            executor=self.executor,
            stop=stop,
        )

    def _infrastructure_problem(self, result: HoldoutMeasure, what: str) -> str:
        ratio = self.config.max_infra_failure_ratio
        if not too_many_infrastructure_failures(result.infrastructure_failures, result.attempts, ratio):
            return ""
        return (f"{what}: {result.infrastructure_failures} of {result.attempts} holdout attempts failed for "
                f"infrastructure reasons (more than max_infra_failure_ratio={ratio})")

    def _check_infrastructure(self, result: HoldoutMeasure, what: str) -> None:
        if problem := self._infrastructure_problem(result, what):
            raise AgentEvolveError(f"the run stops: {problem}; first: {result.first_error}")

    def _sealed_failure(self, cycle: int, failure: str, measures: dict[str, Any]) -> GateResult:
        write_json_atomic(self.records.gate / f"cycle_{cycle}.json", {"failure": failure, **measures})
        return {"decision": None, "failure": failure, "accepted_score": None, "accepted_count": 0}


def extra_cost(candidate: Mapping[str, float], incumbent: Mapping[str, float]) -> dict[str, Any]:
    """Each side's model calls and tokens per holdout solve, and the candidate's extra (None where the incumbent's
    cost was never measured, e.g. a run resumed from before costs were kept)."""
    extra = {key: candidate[key] - incumbent[key] if key in incumbent else None for key in ("calls", "tokens")}
    return {"candidate": dict(candidate), "incumbent": dict(incumbent), "extra": extra}
