"""Scripted multi-round runs that reach what the document's round does inside the engine: the round order
(meta-skill, synthesis, curator), bank-cap eviction, meta-skill refresh by rounds and by tasks, and the
document's round (the whole train set every cycle)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ratchet_world import LoopBenchmark, agent_llm, engine_llm, make_workspace
from test_scripted_run import run

import agent_evolve as ae
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.algorithms.ratchet.engine import RatchetEngine
from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path
from agent_evolve.algorithms.ratchet.settings import document_round


def test_synthesis_runs_before_the_curator_in_a_round(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=1)
    with Ledger.open(ledger_path(workspace)) as ledger:
        kinds = [d.kind for d in ledger.decisions(round=1)]
    assert kinds.index("synth") < kinds.index("curate"), kinds


def test_the_round_report_counts_train_passes_as_ratchet_s_bench_result_does(tmp_path: Path) -> None:
    """Ratchet's BenchResult is (total, resolved, pass@1); the round's report, record and audit event say so."""
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=1)
    [record] = ae.EvolutionHistory(workspace).cycle_records()
    train = record["metadata"]["step_metadata"]["ratchet"]["train"]
    assert set(train) == {"total", "resolved", "pass@1", "routed"}
    assert train["pass@1"] == train["resolved"] / train["total"] and record["metadata"]["graded"] == train["total"]
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert ledger.audit_events(event="round", round=1)[0]["payload"]["train"] == train


def test_a_full_bank_evicts_its_lowest_contribution_for_a_new_skill(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=1, bank_cap=1, retire_min_trials=1000)
    with Ledger.open(ledger_path(workspace)) as ledger:
        [evicted] = ledger.decisions(kind="evict", round=1)
        assert evicted.subject == "poison-helper" and "bank cap 1" in evicted.payload["reason"]
        assert evicted.payload["contribution"] == -1.0
        assert [s.name for s in ledger.skills("ACTIVE")] == ["loop-bounds"] == ledger.bank_at(1)
        assert ledger.status_history("poison-helper")[-1][1] == "DEPRECATED"
        assert ledger.capsules(skill="poison-helper"), "evicted, its evidence kept"


def test_a_locked_skill_is_never_evicted(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    skill_md = workspace / "skills" / "poison-helper" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace('description: "Use for tasks that mention harm."',
                                                     'description: "Use for tasks that mention harm."\n'
                                                     'metadata:\n  ratchet:\n    intent: harm tasks\n'
                                                     '    do_not_retire: true'))
    run(workspace, cycles=1, bank_cap=1, retire_min_trials=1000)
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert not ledger.decisions(kind="evict") and [s.name for s in ledger.skills("ACTIVE")] == ["poison-helper"]


def test_the_meta_skill_is_refreshed_every_n_rounds(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=4, meta_every=2)
    with Ledger.open(ledger_path(workspace)) as ledger:
        metas = ledger.meta_skills()
        assert [(m.name, m.active) for m in metas] == [("default-math", False), ("math-r2", False), ("math-r4", True)]
        assert metas[-1].body.startswith("Name the failing input")


def test_the_meta_skill_is_refreshed_every_m_tasks(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=4, meta_every_tasks=24)  # 12 train tasks a round
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert [m.created_round for m in ledger.meta_skills()] == [0, 2, 4]


def test_a_document_round_attempts_the_whole_train_set_every_cycle(tmp_path: Path) -> None:
    """Every cycle solves all train tasks (each a capsule), so trials come at the document's pace."""
    workspace = make_workspace(tmp_path / "ws")
    agent = agent_llm()
    config = ae.EvolveConfig(**{**document_round(6, 3), "concurrency": 1, "preflight": False, "seed": 0})
    loop = ae.EvolutionLoop(ReferenceAgent(workspace, llm=agent), LoopBenchmark(n=30), RatchetEngine(llm=engine_llm()),
                            config, ae.AgentWorkspace(str(workspace)),
                            agent_factory=lambda path: ReferenceAgent(path, llm=agent))
    loop.run(3)
    with Ledger.open(ledger_path(workspace)) as ledger:
        rounds = [sorted(c.task_id for _, c in ledger.capsules(round=r, split="train")) for r in (1, 2, 3)]
    assert len(rounds[0]) == 6 and rounds[0] == rounds[1] == rounds[2], "the same whole train set each round"
    records = ae.EvolutionHistory(workspace).cycle_records()
    assert len(records) == 3
    with pytest.raises(ValueError, match="needs train and eval tasks"):
        document_round(0, 3)
