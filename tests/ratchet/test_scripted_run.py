"""A scripted 10-round Ratchet run: a skill born from a failure cluster, a harmful one retired, a rollback."""

from __future__ import annotations

from pathlib import Path

from ratchet_world import LoopBenchmark, agent_llm, engine_llm, make_workspace

import agent_evolve as ae
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.algorithms.ratchet.capsules import skill_stats
from agent_evolve.algorithms.ratchet.engine import RatchetEngine
from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path
from agent_evolve.algorithms.ratchet.plot import plot_path

CONFIG = dict(batch_size=12, holdout_ratio=0.2, holdout_limit=6, max_cycles=10, gate_strategy="keep",
              concurrency=1, preflight=False, egl_window=100, seed=0)


def run(workspace: Path, cycles: int = 10, **params: object) -> ae.EvolutionResult:
    agent = agent_llm()
    engine = RatchetEngine(llm=engine_llm(), max_new_skills=1, retire_min_trials=3, **params)
    loop = ae.EvolutionLoop(ReferenceAgent(workspace, llm=agent), LoopBenchmark(), engine,
                            ae.EvolveConfig(**CONFIG), ae.AgentWorkspace(str(workspace)),
                            agent_factory=lambda path: ReferenceAgent(path, llm=agent))
    return loop.run(cycles)


def test_ten_scripted_rounds_birth_credit_retirement_and_rollback(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    result = run(workspace)
    assert result.cycles_completed == 10
    with Ledger.open(ledger_path(workspace)) as ledger:
        born = next(d for d in ledger.decisions(kind="synth") if d.subject == "loop-bounds")
        assert born.round == 1 and born.payload["size"] >= 3, "born in round 1 from a cluster of >= 3 failures"
        loop = ledger.skill("loop-bounds")
        assert loop is not None and loop.status == "ACTIVE"
        stats = skill_stats(loop, ledger.capsules(split="train"), ledger.verdicts())
        assert stats.trials > 0 and stats.successes == stats.trials, "routed and credited on every trial"

        history = ledger.status_history("poison-helper")
        assert [status for _, status, _ in history] == ["ACTIVE", "DEPRECATED"]
        assert history[1][0] == 1 and "contribution" in history[1][2]
        assert ledger.capsules(skill="poison-helper")
        assert {v.label for v in ledger.verdicts("poison-helper")} == {"HURT"}
        assert not (workspace / "skills" / "poison-helper").exists(), "retired: off disk, evidence kept"

        rollbacks = ledger.decisions(kind="rollback")
        assert [(d.round, d.subject) for d in rollbacks][:1] == [(7, "round 1")]
        assert "shortcut-trick" in rollbacks[0].payload["dropped"]
        assert ledger.bank_at(7) == ledger.bank_at(1) == ["loop-bounds"]
        assert not ledger.decisions(kind="curate", round=7) and not ledger.decisions(kind="synth", round=7)
        assert ledger.decisions(kind="cover_guard"), "the loop cluster was covered by loop-bounds"
    scores = [r["metadata"]["accepted_score"] for r in ae.EvolutionHistory(workspace).cycle_records()]
    assert scores[0] == 1.0 and scores[1:6] == [0.0] * 5 and scores[6] == 1.0
    assert plot_path(workspace).is_file(), "the run's plot is written at the end"


def test_no_synth_audits_without_new_skills(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=2, no_synth=True)
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert [s.name for s in ledger.skills()] == ["poison-helper"]
        assert ledger.capsules(split="train") and ledger.verdicts()
        assert ledger.decisions(kind="retire")[0].subject == "poison-helper"
