"""The run's own state across restarts: its usage ledger, engine state after an out-of-budget cycle, the
context handed to `step`, and history read incrementally."""

from __future__ import annotations

import json
from pathlib import Path

from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.engine.records import read_jsonl_from
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import StepResult, Usage

CONFIG = {"batch_size": 4, "holdout_ratio": 0.3, "concurrency": 1}


class Spender(PlanEngine):
    """Spends 100 tokens of the run's ledger per step."""

    def __init__(self, ledger: UsageLedger):
        super().__init__([("noop",)])
        self.ledger = ledger

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        self.ledger.record("engine", Usage(calls=1, input_tokens=100))
        self.ledger.check_budget()
        return super().step(workspace, observations, history, trial)


def run_loop(workspace: Path, cycles: int, **config) -> tuple[ae.EvolutionResult, UsageLedger]:
    ledger = UsageLedger()
    loop = ae.EvolutionLoop(KeywordAgent(workspace), KeywordBenchmark(), Spender(ledger),
                            ae.EvolveConfig(**{**CONFIG, **config}), ae.AgentWorkspace(str(workspace)), ledger=ledger)
    return loop.run(cycles), ledger


def test_a_resumed_run_continues_the_spent_total(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run_loop(workspace, 2)
    result, ledger = run_loop(workspace, 3)
    assert ledger.total().input_tokens == 300, "two cycles journaled, one more spent after the resume"
    assert result.details["spent"]["input_tokens"] == 300


def test_a_resumed_budget_counts_what_was_spent_before(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run_loop(workspace, 2, max_total_tokens=250)
    result, _ = run_loop(workspace, 5, max_total_tokens=250)
    outcomes = [r["metadata"]["outcome"] for r in ae.EvolutionHistory(workspace).cycle_records()]
    assert outcomes == ["unchanged", "unchanged", "out_of_budget"]
    assert result.details["stop_reason"] == "out_of_budget"


def test_an_out_of_budget_cycle_snapshots_engine_state(tmp_path: Path) -> None:
    ledger = UsageLedger()

    class MeteredAgent(KeywordAgent):
        def solve(self, task):
            ledger.record("agent", Usage(calls=1, input_tokens=10))
            ledger.check_budget()
            return super().solve(task)

    workspace = make_workspace(tmp_path / "ws")
    for cycles, budget in ((5, 135), (3, 10_000)):
        config = ae.EvolveConfig(**CONFIG, max_total_tokens=budget)
        loop = ae.EvolutionLoop(MeteredAgent(workspace), KeywordBenchmark(), PlanEngine([("noop",)]), config,
                                ae.AgentWorkspace(str(workspace)), ledger=ledger)
        loop.run(cycles)
    outcomes = [r["metadata"]["outcome"] for r in ae.EvolutionHistory(workspace).cycle_records()]
    assert outcomes == ["unchanged", "out_of_budget", "unchanged"], "the budget ran out while solving cycle 2"
    assert (workspace / "evolution" / "engine" / "state" / "steps.log").read_text() == "1\n3\n"


def test_step_receives_its_context_as_an_argument_when_it_asks_for_it(tmp_path: Path) -> None:
    class Explicit(ae.EvolutionEngine):
        contexts: list = []

        def step(self, workspace, observations, history, trial=None, *, context=None) -> StepResult:
            self.contexts.append((context.cycle, context.trial is trial, context is self.context))
            return StepResult(mutated=False, summary="looked")

    workspace = make_workspace(tmp_path / "ws")
    ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(**CONFIG), Explicit()).run(2)
    assert Explicit.contexts == [(1, True, True), (2, True, True)]


def test_history_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "evolution" / "history.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps({"cycle": 1, "score": 0.5, "metadata": {}}) + "\n" + '{"cycle": 2, "sco')
    history = EvolutionHistory(tmp_path)
    assert [r["cycle"] for r in history.cycle_records()] == [1], "a line still being written waits"
    with path.open("a") as handle:
        handle.write('re": 0.7, "metadata": {}}\n')
    assert history.get_score_curve() == [(1, 0.5), (2, 0.7)]
    rows, offset = read_jsonl_from(path, 0)
    assert len(rows) == 2 and read_jsonl_from(path, offset) == ([], offset)
