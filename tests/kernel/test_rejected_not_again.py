"""A candidate the gate rejected is not tried again against the same accepted version: the demos engine proposes
its next candidate instead (without a trial, another technique first), and the kernel would reject the same files
unscored."""

from __future__ import annotations

import re
from pathlib import Path

from kernel_fakes import make_workspace, reference_manifest
from test_experience_gate import FAMILIES, FamilyBenchmark

import agent_evolve as ae
from agent_evolve.algorithms.demos import DemoSearchEngine
from agent_evolve.llm.base import Message
from agent_evolve.testing import ScriptedLLM


def answer(messages: list[Message]) -> str:
    """Easy tasks answered, hard ones left empty whatever the prompt says: no rule or demo can help."""
    task = messages[-1].content
    family = re.search(r"the (\w+) number", task).group(1)  # type: ignore[union-attr]
    return FAMILIES[family] if "easy" in task else ""


def gated(tmp_path: Path, candidates: str, cycles: int) -> list[dict]:
    """The cycle records of a run of the demos engine without a trial, proposing `candidates` in that order."""
    workspace = make_workspace(tmp_path / "ws", prompt="Answer with one word.\n",
                               manifest=reference_manifest("rejected"))
    config = ae.EvolveConfig(batch_size=8, holdout_ratio=0.25, concurrency=1, preflight=False, seed=1)
    engine = DemoSearchEngine(candidates=candidates, trial_tasks=0)
    ae.Evolver(str(workspace), FamilyBenchmark(), config, engine,
               clients={"agent": ScriptedLLM([answer] * 3000)}).run(cycles)
    return ae.EvolutionHistory(workspace).cycle_records()


def test_a_rejected_rule_is_not_proposed_again_and_the_next_candidate_gets_the_gate(tmp_path: Path) -> None:
    first, second = gated(tmp_path, "rule,demos", 2)
    assert first["metadata"]["changed_paths"] == ["prompts/fragments/answer-rules.md"]
    assert first["metadata"]["gate"]["action"] == "reject"
    assert second["metadata"]["changed_paths"] == ["prompts/fragments/demos.md"], "the rule is not tried again"


def test_without_a_trial_a_rejected_technique_gives_the_next_one_its_turn(tmp_path: Path) -> None:
    """Demonstrations rejected: the next cycle gates the rule rather than another demo set; with both rejected, a new
    demo set comes back (the order of `candidates`)."""
    records = gated(tmp_path, "demos,rule", 3)
    assert [r["metadata"]["changed_paths"] for r in records] == [
        ["prompts/fragments/demos.md"], ["prompts/fragments/answer-rules.md"], ["prompts/fragments/demos.md"]]
    assert all(r["metadata"]["outcome"] == "rejected" for r in records)
