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
    engine = RatchetEngine(llm=engine_llm(), **{"max_new_skills": 1, "retire_min_trials": 3, **params})
    loop = ae.EvolutionLoop(ReferenceAgent(workspace, llm=agent), LoopBenchmark(), engine,
                            ae.EvolveConfig(**CONFIG), ae.AgentWorkspace(str(workspace)),
                            agent_factory=lambda path: ReferenceAgent(path, llm=agent))
    return loop.run(cycles)


def test_ten_scripted_rounds_birth_credit_and_retirement(tmp_path: Path) -> None:
    """The document's credit retires a skill whose every routed task fails although the critic, fooled, never
    says HURT (the critic-gated credit kept it at 0)."""
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

        fooled = next(d for d in ledger.decisions(kind="retire") if d.subject == "shortcut-trick")
        assert fooled.round == 3 and fooled.payload["contribution"] == -1.0
        assert (fooled.payload["helped"], fooled.payload["hurt"]) == (0, 0), "the critic's verdicts, recorded beside"
        assert ledger.decisions(kind="cover_guard"), "the loop cluster was covered by loop-bounds"
    assert plot_path(workspace).is_file(), "the run's plot is written at the end"


def test_a_rollback_restores_the_best_bank_with_its_state(tmp_path: Path) -> None:
    """With retirement out of reach, five regressed rounds restore round 1's bank: the harmful skill leaves, the
    restored skills keep their version, and the regressed rounds no longer count as their trials."""
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, retire_min_trials=1000)
    with Ledger.open(ledger_path(workspace)) as ledger:
        [rollback] = ledger.decisions(kind="rollback")
        assert (rollback.round, rollback.subject) == (7, "round 1")
        assert rollback.payload["dropped"] == ["shortcut-trick"] and rollback.payload["uncounted_rounds"] == [2, 7]
        assert ledger.bank_at(7) == ledger.bank_at(1) == ["poison-helper", "loop-bounds"]
        assert [s.version for s in ledger.bank_skills_at(7)] == [s.version for s in ledger.bank_skills_at(1)]
        assert not ledger.decisions(kind="curate", round=7) and not ledger.decisions(kind="synth", round=7)
        loop = ledger.skill("loop-bounds")
        assert loop is not None and loop.uncounted_rounds == [[2, 7]]
        stats = skill_stats(loop, ledger.capsules(split="train"), ledger.verdicts())
        counted = {c.round for _, c in ledger.capsules(skill="loop-bounds", split="train")} - set(range(2, 8))
        assert stats.trials == sum(1 for _, c in ledger.capsules(skill="loop-bounds", split="train")
                                   if c.round in counted)
    scores = [r["metadata"]["accepted_score"] for r in ae.EvolutionHistory(workspace).cycle_records()]
    assert scores[1:6] == [0.0] * 5 and scores[6] > 0.5, "the restored bank scores again"


def test_no_synth_audits_without_new_skills(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=2, no_synth=True)
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert [s.name for s in ledger.skills()] == ["poison-helper"]
        assert ledger.capsules(split="train") and ledger.verdicts()
        assert ledger.decisions(kind="retire")[0].subject == "poison-helper"
