"""Ratchet's model roles with scripted models: router (and its workspace marker), critic, synthesizer, meta."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ratchet_world import MANIFEST

from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.agents.routing.bank import MARKER, BankRouter, RouterConfig, read_marker, write_marker
from agent_evolve.agents.routing.embeddings import HashingEmbedder
from agent_evolve.algorithms.ratchet import critic, meta, synthesizer
from agent_evolve.algorithms.ratchet.capsules import Failure, PatternCluster
from agent_evolve.algorithms.ratchet.records import Capsule, RatchetSkill
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.errors import ConfigError
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import SkillMeta, Task

LOOP = {"name": "loop-bounds", "description": "Loops over lists.", "intent": "Check loop bounds",
        "signals_match": ["loop"], "applies_when": "a loop walks a list", "key_insight": "include the last index",
        "common_pitfalls": ["stopping early"], "verify_before_returning": ["last element visited"]}


def bank(n: int) -> list[SkillMeta]:
    return [SkillMeta(f"skill-{i}", f"Use for topic{i} tasks about widget{i}.", "") for i in range(n)]


def test_a_small_bank_is_shown_whole_and_a_large_one_shortlisted() -> None:
    config = RouterConfig()
    assert len(BankRouter(bank(20), config).shortlist("anything")) == 20
    chosen = BankRouter(bank(200), config, HashingEmbedder()).shortlist("a task about topic7 and widget7")
    assert chosen[0].name == "skill-7" and 1 <= len(chosen) <= 20
    assert len({s.name for s in chosen}) == len(chosen), "the union has no duplicates"


def test_route_picks_one_skill_or_none_and_says_why() -> None:
    llm = ScriptedLLM(["skill-3", "I think NONE fits"])
    router = BankRouter(bank(5), RouterConfig())
    picked = router.route(llm, "topic3")
    assert picked.skill == "skill-3" and picked.candidates == [f"skill-{i}" for i in range(5)]
    assert router.route(llm, "topic3").skill is None
    assert BankRouter(bank(5), RouterConfig(routing="none")).route(ScriptedLLM([]), "topic3").skill is None
    retrieval = BankRouter(bank(5), RouterConfig(routing="retrieval")).route(ScriptedLLM([]), "a topic3 task")
    assert retrieval.skill == "skill-3" and "retrieval" in retrieval.reason
    assert BankRouter([], RouterConfig()).route(ScriptedLLM([]), "x").skill is None


def test_the_reference_agent_routes_through_ratchet_in_a_governed_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "prompts").mkdir(parents=True)
    (ws / "prompts" / "system.md").write_text("Solve it.\n")
    (ws / "manifest.yaml").write_text(MANIFEST)
    for name in ("alpha", "beta"):
        (ws / "skills" / name).mkdir(parents=True)
        (ws / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Use for {name}.\n---\n\n"
                                                       f"{name.upper()} guidance\n")
    write_marker(ws, RatchetSettings().router_config())
    llm = ScriptedLLM(["beta", "answer"])
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t", "a beta task"))
    assert trajectory.steps[0]["injected"] == ["beta"] and trajectory.steps[0]["router"]["skill"] == "beta"
    assert "BETA guidance" in llm.calls[1].messages[0].content and "ALPHA" not in llm.calls[1].messages[0].content
    assert read_marker(ws) == RouterConfig()
    (ws / MARKER).write_text(json.dumps({"governed_by": "ratchet", "routing": "sometimes"}))
    with pytest.raises(ConfigError, match="router.json"):
        read_marker(ws)


def _capsule(passed: bool, skill: str | None) -> Capsule:
    return Capsule(2, "t1", "train", "prompt", "def f(): pass", float(passed), passed, skill, "{}")


def test_the_critic_reads_a_verdict_and_never_a_pattern_for_a_pass() -> None:
    reply = json.dumps({"label": "HURT", "failure_pattern": "  Off by one\nin loops ", "confidence": "HIGH",
                        "reason": "the skill said so"})
    result = critic.judge(ScriptedLLM([reply]), 7, _capsule(False, "loop-bounds"), "task", "guidance", "", 100)
    assert result.verdict is not None
    verdict = result.verdict
    assert (verdict.label, verdict.failure_pattern, verdict.skill) == ("HURT", "Off by one in loops", "loop-bounds")
    passed = critic.judge(ScriptedLLM([reply]), 8, _capsule(True, "loop-bounds"), "task", "guidance", "", 100)
    assert passed.verdict is not None and passed.verdict.failure_pattern == ""
    unrouted = critic.judge(ScriptedLLM([reply]), 9, _capsule(False, None), "task", "", "", 100)
    assert unrouted.verdict is not None and unrouted.verdict.label == "INAPPLICABLE" and unrouted.verdict.skill == ""


def test_an_unusable_critic_reply_is_a_recorded_failure() -> None:
    result = critic.judge(ScriptedLLM(["no idea", "still no idea"]), 3, _capsule(False, "s"), "task", "g", "", 100)
    assert result.verdict is None and "capsule 3" in result.error


def _cluster(pattern: str, size: int = 3) -> PatternCluster:
    return PatternCluster(pattern, [Failure(i, _capsule(False, None), pattern) for i in range(size)])


def _synth(llm: ScriptedLLM, clusters: list[PatternCluster], bank_skills: dict[str, RatchetSkill] | None = None,
           cover: dict[str, str] | None = None, **settings: object) -> synthesizer.SynthOutcome:
    embedder = HashingEmbedder()
    return synthesizer.synthesize(llm, clusters, bank_skills or {}, cover or {}, embedder.embed,
                                  RatchetSettings(**settings), "ADVICE", 3, set(), 2)  # type: ignore[arg-type]


def test_synthesis_resynthesises_an_over_budget_draft_and_uses_the_meta_skill() -> None:
    long = {**LOOP, "key_insight": "x" * 2000}
    llm = ScriptedLLM([json.dumps(long), json.dumps(LOOP)])
    out = _synth(llm, [_cluster("off by one", 5)])
    assert [s.name for s in out.created] == ["loop-bounds"]
    assert [d.kind for d in out.decisions] == ["over_budget", "synth"]
    assert "ADVICE" in llm.calls[0].messages[1].content
    assert "Example 3:" in llm.calls[0].messages[1].content and "Example 4" not in llm.calls[0].messages[1].content
    assert "budget is 1500" in llm.calls[1].messages[1].content


def test_a_duplicate_draft_is_named_back_to_the_model() -> None:
    existing = synthesizer.draft_skill(LOOP, 1, set())
    other = {**LOOP, "name": "empty-input", "description": "Empty inputs.", "intent": "Handle empty input",
             "signals_match": ["empty"], "applies_when": "the input can be empty", "key_insight": "return early",
             "common_pitfalls": ["indexing an empty list"], "verify_before_returning": ["empty case"]}
    llm = ScriptedLLM([json.dumps({**LOOP, "name": "loop-check"}), json.dumps(other)])
    out = _synth(llm, [_cluster("empty input")], {"loop-bounds": existing})
    assert [d.kind for d in out.decisions] == ["dedup", "synth"]
    assert out.decisions[0].payload["duplicate_of"] == "loop-bounds"
    assert "'loop-bounds'" in llm.calls[1].messages[1].content
    assert [s.name for s in out.created] == ["empty-input"]


def test_at_most_room_new_skills_and_a_covered_cluster_is_skipped() -> None:
    drafts = [json.dumps({**LOOP, "name": f"skill-{w}", "description": f"{w} tasks", "intent": f"Do {w}",
                          "signals_match": [w], "applies_when": f"{w} happens", "key_insight": f"{w} insight",
                          "common_pitfalls": [], "verify_before_returning": []}) for w in ("apple", "zebra", "quartz")]
    out = _synth(ScriptedLLM(drafts), [_cluster("a"), _cluster("b"), _cluster("c")])
    assert len(out.created) == 2
    covered = _synth(ScriptedLLM([]), [_cluster("off by one in loop bounds")],
                     cover={"loop-bounds": "off by one in loop bounds"})
    assert covered.created == [] and covered.decisions[0].kind == "cover_guard"
    unguarded = _synth(ScriptedLLM([json.dumps(LOOP)]), [_cluster("off by one in loop bounds")],
                       cover={"old": "off by one in loop bounds"}, cover_guard=False)
    assert [s.name for s in unguarded.created] == ["loop-bounds"]


def test_an_unusable_synthesis_reply_is_recorded() -> None:
    out = _synth(ScriptedLLM(["nope", "nope"]), [_cluster("off by one")])
    assert out.created == [] and out.decisions[0].kind == "synth_failed"


def test_meta_skills_ship_for_code_and_math_and_refresh_only_when_on() -> None:
    assert "code tasks" in meta.default_meta("code").body and "math" in meta.default_meta("math").body
    assert meta.suite_for(["def f(x):\n    return x"]) == "code" and meta.suite_for(["What is 2+2?"]) == "math"
    assert not any(meta.refresh_due(r, 0) for r in range(1, 30))
    assert [r for r in range(1, 31) if meta.refresh_due(r, 10)] == [10, 20, 30]
    new = meta.refresh(ScriptedLLM(["Write skills about edge cases."]), meta.default_meta("code"), ["s: +0.5"], 10, 50)
    assert new is not None and new.active and new.name == "code-r10"
