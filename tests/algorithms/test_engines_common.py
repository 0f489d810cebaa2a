"""Every engine: the constructor contract, lazy clients, and one gated cycle through the real loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_fakes import INSTRUCTION, MANIFEST

import agent_evolve as ae
from agent_evolve.algorithms import (
    AdaptiveEvolutionEngine,
    AdaptiveSkillEngine,
    AEvolveEngine,
    GuidedSynthesisEngine,
)
from agent_evolve.algorithms.common.summaries import REJECTED_HEADING, rejected_attempts
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.errors import ConfigError
from agent_evolve.llm.base import Message
from agent_evolve.registry import ENGINE_REGISTRY, import_object
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Feedback, Task, Trajectory

ALL = [AEvolveEngine, GuidedSynthesisEngine, AdaptiveEvolutionEngine, AdaptiveSkillEngine]


def test_import_paths_and_names():
    assert {name: import_object(path).name for name, path in ENGINE_REGISTRY.items()} == {
        "skillforge": "skillforge", "guided_synth": "guided_synth", "adaptive": "adaptive",
        "adaptive_skill": "adaptive_skill", "demos": "demos", "gepa": "gepa", "skillopt": "skillopt", "cli": "cli",
        "codex": "codex", "claude": "claude",
        "ratchet": "ratchet"}


@pytest.mark.parametrize("cls", ALL)
def test_constructor_builds_the_client_lazily_and_checks_params(cls):
    engine = cls(ae.EvolveConfig(evolver_model="ollama/qwen2.5-coder"), max_tokens=256)
    assert engine._llm is None and engine.max_tokens == 256
    assert engine.llm.model == "ollama/qwen2.5-coder"  # built on first use, no request sent
    with pytest.raises(ConfigError, match="unknown params"):
        cls(no_such_param=1)
    with pytest.raises(ConfigError, match="max_tokens='many' must be a whole number"):
        cls(max_tokens="many")


@pytest.mark.parametrize("name, param, value", [("demos", "trial_tasks", "abc"), ("demos", "demo_chars", 1.5),
                                                ("demos", "min_gain", "x"), ("skillforge", "bash", "yes"),
                                                ("gepa", "epsilon", True)])
def test_a_param_of_the_wrong_type_is_refused_when_the_engine_is_built(name: str, param: str, value: object) -> None:
    """Read as text from --engine-param, a number or a flag of the wrong type failed every step (or the build with
    a traceback); it is refused naming the param."""
    with pytest.raises(ConfigError, match=f"{param}="):
        import_object(ENGINE_REGISTRY[name])(**{param: value})


class AnswerLineAgent(ae.BaseAgent):
    """Writes the `Answer:` line only when its prompt or skills tell it to."""

    def solve(self, task: Task) -> Trajectory:
        told = "Answer:" in self.system_prompt or any(
            "Answer:" in self.get_skill_content(s.name) for s in self.skills)
        return Trajectory(task.id, "So it is 18.\nAnswer: 18" if told else "It is 18 I think")


class AnswerLineBenchmark(ae.BenchmarkAdapter):
    def get_tasks(self, split: str = "train", limit: int = 10) -> list[Task]:
        return [Task(f"q{i}", f"{INSTRUCTION}\n\nHow many apples, case {i}?") for i in range(12)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        if "Answer:" not in trajectory.output:
            return Feedback(False, 0.0, "no number found in output", {"expected": "18", "extracted": None})
        return Feedback(True, 1.0, "correct: 18", {"expected": "18", "extracted": "18"})


def responder(messages: list[Message]) -> str:
    """A stand-in engine model that answers each scoped request sensibly."""
    last = messages[-1].content
    if "Write ONE rule" in last:
        return json.dumps({"rule": "Finish with a last line `Answer: <number>`."})
    if "Write ONE skill" in last or "Rewrite this skill" in last:
        return json.dumps({"name": "answer-line", "description": "TRIGGER when: an answer line is asked for.",
                           "body": "End with the line `Answer: <number>`."})
    if "Decide: ACCEPT" in last:
        return json.dumps({"decision": "ACCEPT"})
    return "DONE"


def math_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    (root / "prompts").mkdir(parents=True)
    (root / "prompts" / "system.md").write_text("You solve math problems.\n")
    (root / "manifest.yaml").write_text(MANIFEST)
    return root


@pytest.mark.parametrize("cls", ALL)
def test_one_gated_cycle_through_the_loop(cls, tmp_path: Path):
    root = math_workspace(tmp_path)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.25, concurrency=1)
    llm = ScriptedLLM([responder] * 12)
    result = ae.Evolver(AnswerLineAgent(root), AnswerLineBenchmark(), config, cls(llm=llm)).run(cycles=1)
    assert result.details["accepted"] == 1 and result.final_score == 1.0
    assert not validate_workspace(root)
    offered = {tool.name for call in llm.calls for tool in call.tools or []}
    assert ("bash" in offered) == (cls is AEvolveEngine)  # the loop's step starts committed: git can undo bash


class NeverToldAgent(AnswerLineAgent):
    def solve(self, task: Task) -> Trajectory:
        return Trajectory(task.id, "It is 18 I think")


def test_the_engine_model_is_told_which_changes_the_gate_rejected_since_the_last_accepted_one(tmp_path: Path):
    root = math_workspace(tmp_path)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.25, concurrency=1)
    llm = ScriptedLLM([responder] * 24)
    ae.Evolver(NeverToldAgent(root), AnswerLineBenchmark(), config, AEvolveEngine(llm=llm, bash=False)).run(cycles=2)
    first = ae.EvolutionHistory(root).cycle_records()[0]
    assert first["metadata"]["outcome"] == "rejected"
    requests = [call.messages[-1].content for call in llm.calls]
    told = [r for r in requests if REJECTED_HEADING in r]
    assert told and f"- cycle 1: {first['summary']}" in told[0], "cycle 2's request names cycle 1's rejected change"
    assert not any(REJECTED_HEADING in r for r in requests[: len(requests) - len(told)]), "cycle 1 had none to name"


def test_rejected_changes_are_listed_since_the_last_accepted_version_newest_last() -> None:
    def record(cycle: int, outcome: str) -> dict:
        return {"cycle": cycle, "summary": f"change {cycle}", "metadata": {"outcome": outcome}}

    records = [record(1, "rejected"), record(2, "accepted"), record(3, "rejected"), record(4, "unchanged"),
               record(5, "rejected")]
    assert rejected_attempts(records) == "- cycle 3: change 3\n- cycle 5: change 5"
    assert rejected_attempts(records, limit=1) == "- cycle 5: change 5"
    assert rejected_attempts(records[:2]) == ""


def test_the_schemas_the_model_is_shown_keep_their_text() -> None:
    """`complete_json` shows the model `json.dumps(schema)`: its text is part of the prompt and of the reply-cache key
    (committed experiments replay their cached replies), so the key order of these schemas must not change."""
    from agent_evolve.algorithms.common.generation import DECISION_SCHEMA, SKILL_SCHEMA

    text = '{"type": "string", "minLength": 1}'
    assert json.dumps(SKILL_SCHEMA) == (
        f'{{"type": "object", "properties": {{"name": {text}, "description": {text}, "body": {{"anyOf": [{text}, '
        '{"type": "array", "items": {"type": "string"}, "minItems": 1}]}}, "required": ["name", "description", '
        '"body"]}')
    assert json.dumps(DECISION_SCHEMA) == (
        '{"type": "object", "properties": {"decision": {"enum": ["ACCEPT", "MERGE", "SKIP"]}, "reason": {"type": '
        '"string"}}, "required": ["decision"]}')
