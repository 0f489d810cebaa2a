"""Ratchet's phased rollout with our commands: audit with the bank locked, curated retirement, full evolution."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result
from ratchet_world import LoopBenchmark, agent_llm, engine_llm, make_workspace

import agent_evolve as ae
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.algorithms.ratchet.engine import RatchetEngine
from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path
from agent_evolve.cli.main import cli

BANK = """\
skills:
  - id: poison_helper
    description: Use for tasks that mention harm.
    intent: Take the shortcut on harm tasks
    do_not_retire: true
    guidance:
      key_insight: "POISON: take the shortcut"
"""
CONFIG = {"batch_size": 12, "holdout_ratio": 0.2, "holdout_limit": 6, "gate_strategy": "keep", "concurrency": 1,
          "preflight": False, "egl_window": 100, "seed": 0}


def evolve(workspace: Path, cycles: int, **params: object) -> None:
    """Run (or continue) the workspace's Ratchet run up to `cycles` rounds with the scripted world's models."""
    agent = agent_llm()
    engine = RatchetEngine(llm=engine_llm(), max_new_skills=1, retire_min_trials=3, **params)
    loop = ae.EvolutionLoop(ReferenceAgent(workspace, llm=agent), LoopBenchmark(), engine,
                            ae.EvolveConfig(max_cycles=cycles, **CONFIG), ae.AgentWorkspace(str(workspace)),
                            agent_factory=lambda path: ReferenceAgent(path, llm=agent))
    loop.run(cycles)


def invoke(*args: str) -> Result:
    return CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args), catch_exceptions=False)


def row(output: str, name: str) -> list[str]:
    line = next(line for line in output.splitlines() if f"│ {name} " in line)
    return [cell.strip() for cell in line.split("│")[1:-1]]


def test_audit_then_curated_retirement_then_full_evolution(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", poison=False)
    bank = tmp_path / "bank.yaml"
    bank.write_text(BANK)
    assert "loaded 1 skills" in invoke("skill", "load", str(bank), "-w", str(workspace)).output
    assert (workspace / "skills" / "poison-helper" / "SKILL.md").is_file()

    evolve(workspace, 2, no_synth=True)  # 1. audit: everything locked, no synthesis
    listed = invoke("skill", "list", "-w", str(workspace)).output
    _, status, origin, _, trials, _, failures, contribution, _, hurt, _ = row(listed, "poison-helper")
    assert status == "ACTIVE (locked)" and origin == "imported" and int(trials) >= 3
    assert int(failures) == int(hurt) == int(trials)
    assert float(contribution) == -1.0
    assert "protected" in invoke("curate", "-w", str(workspace), "--dry-run").output
    audit = invoke("audit", "--limit", "20", "-w", str(workspace)).output
    assert "round" in audit and "skill_load" in audit
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert [s.name for s in ledger.skills()] == ["poison-helper"], "no new skills while auditing"

    invoke("skill", "unlock", "poison-helper", "-w", str(workspace))  # 2. curated retirement, still no synthesis
    evolve(workspace, 3, no_synth=True)
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert [s.name for s in ledger.skills()] == ["poison-helper"]
        assert [status for _, status, _ in ledger.status_history("poison-helper")] == ["ACTIVE", "DEPRECATED"]
    assert not (workspace / "skills" / "poison-helper").exists()

    evolve(workspace, 5)  # 3. full self-evolution: synthesis and the curator manage the bank
    with Ledger.open(ledger_path(workspace)) as ledger:
        assert "loop-bounds" in [s.name for s in ledger.skills("ACTIVE")]
    assert row(invoke("skill", "list", "-w", str(workspace)).output, "loop-bounds")[2] == "synthesized"
