"""Budgets per run: each run and each experiment seed owns its ledger, admission bounds overshoot, prices."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from options_fakes import FixedUsageLLM

import agent_evolve as ae
import agent_evolve.experiment as experiment
import agent_evolve.lift.run as lift_run
from agent_evolve.errors import BudgetExceededError, ConfigError
from agent_evolve.llm import factory
from agent_evolve.llm.base import Message
from agent_evolve.llm.metered import MeteredClient
from agent_evolve.llm.usage import UsageLedger, default_ledger
from agent_evolve.types import Usage

MANIFEST = """name: spender
contract_version: "1.0"
agent: {type: custom, entrypoint: options_fakes.SpendingAgent}
evolvable_layers: [prompts]
"""


@pytest.fixture
def spender(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A workspace of SpendingAgent, 12 jsonl tasks, and every provider replaced by a 100-token fake."""
    monkeypatch.setattr(factory, "make_provider", lambda ref, **kw: FixedUsageLLM(ref.full, tokens=100))
    workspace = tmp_path / "agent"
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("base\n")
    (workspace / "manifest.yaml").write_text(MANIFEST)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"q{i}", "input": "x", "answer": "7"}) + "\n" for i in range(12)))
    return workspace, tasks


def test_two_experiment_seeds_each_get_the_whole_budget(spender, tmp_path, monkeypatch) -> None:
    workspace, tasks = spender
    runs: list[ae.Evolver] = []

    class Recorded(ae.Evolver):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            runs.append(self)

    monkeypatch.setattr(lift_run, "Evolver", Recorded)
    config = ae.EvolveConfig(batch_size=4, holdout_limit=2, max_total_tokens=1000, agent_model="openai/fake")
    before = default_ledger().total().total_tokens
    experiment.run_lift_experiment(agent=str(workspace), benchmark=f"jsonl:{tasks}", engine="adaptive", seeds=[0, 1],
                                   cycles=5, test_limit=2, out_dir=tmp_path / "lift", config=config, control=False,
                                   allow_small_test=True)
    assert len(runs) == 2 and runs[0].ledger is not runs[1].ledger
    assert [run.ledger.total().total_tokens for run in runs] == [1000, 1000], "each seed spent its whole budget"
    assert default_ledger().total().total_tokens == before, "nothing goes to the process-wide ledger"


def test_each_evolver_owns_a_ledger_with_the_config_budgets(spender) -> None:
    workspace, tasks = spender
    config = ae.EvolveConfig(max_total_tokens=500, max_cost_usd=2.0, agent_model="openai/gpt-4.1-mini",
                             evolver_model="openai/gpt-4.1-mini")
    first = ae.Evolver(str(workspace), f"jsonl:{tasks}", config, "adaptive")
    second = ae.Evolver(str(workspace), f"jsonl:{tasks}", config, "adaptive")
    assert first.ledger is not second.ledger and first.ledger is not default_ledger()
    assert (first.ledger.max_total_tokens, first.ledger.max_cost_usd) == (500, 2.0)
    assert {role: client.ledger for role, client in first.clients.items()} == {"agent": first.ledger,
                                                                              "engine": first.ledger}


def test_a_cost_budget_with_a_model_of_unknown_price_is_refused_at_start(spender) -> None:
    workspace, tasks = spender
    config = ae.EvolveConfig(max_cost_usd=1.0, agent_model="openai/my-finetune", evolver_model="local/qwen2.5-coder-1.5b")
    with pytest.raises(ConfigError, match="no price is known for openai/my-finetune"):
        ae.Evolver(str(workspace), f"jsonl:{tasks}", config, "adaptive")
    priced = ae.EvolveConfig(max_cost_usd=1.0, agent_model="openai/my-finetune",
                             prices={"my-finetune": {"input": 1.0, "output": 2.0}})
    assert ae.Evolver(str(workspace), f"jsonl:{tasks}", priced, "adaptive").ledger.max_cost_usd == 1.0


def test_concurrent_calls_overshoot_only_by_the_admitted_calls() -> None:
    ledger = UsageLedger(max_total_tokens=100)
    inner = FixedUsageLLM(tokens=60, delay_s=0.05)
    client = MeteredClient(inner, ledger=ledger)
    refused: list[BaseException] = []

    def call() -> None:
        try:
            client.complete([Message("user", "hi")], max_tokens=60)
        except BudgetExceededError as exc:
            refused.append(exc)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert inner.calls == 2, "only calls whose estimate fit the budget were admitted"
    assert ledger.total().total_tokens == 120 and len(refused) == 6
    assert ledger.in_flight == 0


def test_a_ledger_restored_from_its_record_continues_the_spent_total() -> None:
    ledger = UsageLedger()
    ledger.record("agent", Usage(calls=2, input_tokens=30, output_tokens=10, cost=0.5))
    ledger.record("engine", Usage(calls=1, output_tokens=5))
    restored = UsageLedger.from_dict(json.loads(json.dumps(ledger.to_dict())), max_total_tokens=50)
    assert restored.by_role() == ledger.by_role()
    restored.record("agent", Usage(calls=1, output_tokens=5))
    with pytest.raises(BudgetExceededError, match="50 of 50 tokens"):
        restored.check_budget()
    with pytest.raises(ConfigError, match="malformed"):
        UsageLedger.from_dict({"by_role": {"agent": {"tokens": 3}}})
