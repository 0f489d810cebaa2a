"""Routing on intent and signals, thresholds calibrated for the default embedder, and the rollback's restore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_evolve.agents.routing.bank import RouterConfig, workspace_router, write_marker
from agent_evolve.agents.routing.embeddings import CALIBRATED, make_embedder
from agent_evolve.algorithms.ratchet.capsules import canonical_map
from agent_evolve.algorithms.ratchet.records import RatchetSkill
from agent_evolve.algorithms.ratchet.curator import restore_plan
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.algorithms.ratchet.skill_forms import write_skills
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.testing import ScriptedLLM

CALIBRATION = Path(__file__).parents[2] / "experiments" / "ratchet-calibration" / "calibration-hashing.json"


def skill(name: str, **changes: object) -> RatchetSkill:
    fields: dict[str, object] = {
        "name": name, "description": "A helper.", "intent": f"do {name}", "signals_match": [], "applies_when": "",
        "key_insight": "", "common_pitfalls": [], "verify_before_returning": [], "body": "",
    }
    return RatchetSkill(**(fields | changes))  # type: ignore[arg-type]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    ws = AgentWorkspace(tmp_path)
    (tmp_path / "skills").mkdir()
    write_skills(ws, [skill("text-helper", intent="Reverse the words of a sentence", signals_match=["word_order"]),
                      skill("number-helper", intent="Sum a list of numbers", signals_match=["running_total"])])
    return tmp_path


def test_retrieval_routing_matches_on_intent_and_signals(bank: Path) -> None:
    write_marker(bank, RouterConfig(routing="retrieval"))
    router = workspace_router(bank, AgentWorkspace(bank).list_skills())
    assert router is not None
    assert router.route(ScriptedLLM([]), "Reverse the words in this sentence").skill == "text-helper"
    assert router.route(ScriptedLLM([]), "Keep a running total of the numbers").skill == "number-helper"


def test_the_router_model_is_shown_each_skills_intent_and_signals(bank: Path) -> None:
    write_marker(bank, RouterConfig())
    router = workspace_router(bank, AgentWorkspace(bank).list_skills())
    model = ScriptedLLM(["text-helper"])
    assert router is not None and router.route(model, "Flip the sentence around").skill == "text-helper"
    prompt = model.calls[0].messages[-1].content
    assert "Intent: Reverse the words of a sentence." in prompt and "Signals: word order." in prompt


def test_a_paraphrase_pair_merges_and_an_unrelated_pair_does_not() -> None:
    settings = RatchetSettings()
    embedder = make_embedder(settings.embedder)
    patterns = ["off by one in loop bounds", "off-by-one error in loop bounds", "does not handle empty input"]
    mapping = canonical_map(patterns, embedder.embed, float(settings.canonical_threshold or 0))
    assert mapping[patterns[1]] == mapping[patterns[0]] != mapping[patterns[2]]
    unchanged = canonical_map(patterns, embedder.embed, 0.85)
    assert len(set(unchanged.values())) == 3, "the paper's 0.85 keeps the paraphrase apart under this embedder"


def test_default_thresholds_are_the_committed_calibration() -> None:
    measured = json.loads(CALIBRATION.read_text())
    hashing = CALIBRATED["hashing"]
    assert (hashing.pattern, hashing.skill) == (measured["failure_patterns"]["threshold"],
                                                measured["skills"]["threshold"])
    assert measured["failure_patterns"]["balanced_accuracy"] >= 0.9 and measured["skills"]["balanced_accuracy"] >= 0.9
    defaults = RatchetSettings()
    assert (defaults.canonical_threshold, defaults.cover_threshold, defaults.dedup_threshold) == (0.45, 0.45, 0.41)
    minilm = RatchetSettings(embedder="minilm")
    assert (minilm.canonical_threshold, minilm.cover_threshold, minilm.dedup_threshold) == (0.85, 0.85, 0.85)
    assert RatchetSettings(cover_threshold=0.7).cover_threshold == 0.7


def test_a_restore_brings_back_the_best_banks_state_and_keeps_locked_skills() -> None:
    best = [skill("kept", version="0.1.0"), skill("retired-since", version="0.2.0")]
    now = [skill("kept", version="0.3.0", do_not_retire=True),
           skill("retired-since", version="0.2.0", status="DEPRECATED"),
           skill("newcomer"), skill("locked-newcomer", do_not_retire=True)]
    plan = restore_plan(best, now, best_round=3, round_=9)
    restored = {s.name: s for s in plan.restored}
    assert restored["kept"].version == "0.1.0" and restored["kept"].do_not_retire, "the old version, the user's lock"
    assert restored["retired-since"].status == "ACTIVE"
    assert all(s.uncounted_rounds == [[4, 9]] for s in plan.restored), "the regressed rounds' trials no longer count"
    assert plan.dropped == ["newcomer"] and plan.kept_locked == ["locked-newcomer"]
