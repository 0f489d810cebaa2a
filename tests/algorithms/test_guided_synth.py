"""guided_synth: deterministic episodic memory, then ACCEPT / MERGE / SKIP curation of proposed skills."""

from __future__ import annotations

import json

from engine_fakes import add_skill, skill_text, snapshot

from agent_evolve.algorithms.guided_synth import GuidedSynthesisEngine
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.skills import parse_skill, validate_skill
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.testing import ScriptedLLM

UNITS = "Convert every quantity to one unit before computing.\nWrite the unit next to each number."
PERCENT = "A percent p means p/100 of the whole.\nConvert every quantity to one unit before computing."
MERGED = {"name": "units-and-percents", "description": "TRIGGER when: units or percents appear.",
          "body": "Convert every quantity to one unit.\nA percent p means p/100 of the whole."}


def decision(word: str) -> str:
    return json.dumps({"decision": word, "reason": "because"})


def test_merge_combines_two_skills_into_one_valid_skill(ws, failing_batch):
    add_skill(ws, "check-units", "TRIGGER when: a problem mixes units.", UNITS)
    ws.write_draft("percent-basics", skill_text("percent-basics", "TRIGGER when: percents appear.", PERCENT))
    llm = ScriptedLLM([decision("MERGE"), json.dumps(MERGED)])
    result = GuidedSynthesisEngine(llm=llm, propose=False, review_pairs=False).step(ws, failing_batch, None)
    assert result.mutated and result.metadata["decisions"] == ["percent-basics: MERGE"]
    assert [s.name for s in ws.list_skills()] == ["units-and-percents"]  # both originals replaced by one
    merged = parse_skill(ws.read_skill("units-and-percents"))
    assert not validate_skill(merged, "units-and-percents") and "p/100" in merged.body
    assert merged.metadata["merged_from"] == ["check-units", "percent-basics"]
    assert ws.list_drafts() == [] and not validate_workspace(ws.path)
    assert "percent-basics" in llm.calls[0].messages[-1].content and "check-units" in llm.calls[0].messages[-1].content


def test_accept_adds_the_draft_and_skip_drops_it(ws, failing_batch):
    ws.write_draft("read-twice", "Read the question twice\nUnderline what is asked.\n")
    GuidedSynthesisEngine(llm=ScriptedLLM([decision("ACCEPT")]), propose=False).step(ws, failing_batch, None)
    assert [s.name for s in ws.list_skills()] == ["read-twice"] and ws.list_drafts() == []
    ws.write_draft("vague", "Be good\nDo well.\n")
    GuidedSynthesisEngine(llm=ScriptedLLM([decision("SKIP")]), propose=False).step(ws, failing_batch, None)
    assert [s.name for s in ws.list_skills()] == ["read-twice"] and ws.list_drafts() == []


def test_memory_comes_first_and_needs_no_model(ws, failing_batch):
    llm = ScriptedLLM([])
    result = GuidedSynthesisEngine(llm=llm, propose=False).step(ws, failing_batch, None)
    contents = [m["content"] for m in ws.read_memories()]
    assert not llm.calls and result.mutated
    assert any("Answer: <answer>" in c for c in contents) and len(contents) == 3
    GuidedSynthesisEngine(llm=llm, propose=False).step(ws, failing_batch, None)
    assert len(ws.read_memories()) == 3  # the same lessons are not written twice


def test_own_proposal_is_curated_too(ws, failing_batch):
    proposal = {"name": "final-answer-line", "description": "TRIGGER when: an Answer: line is required.",
                "body": "Finish with one line `Answer: <number>`."}
    llm = ScriptedLLM([json.dumps(proposal), decision("ACCEPT")])
    GuidedSynthesisEngine(llm=llm, review_pairs=False).step(ws, failing_batch, None)
    assert [s.name for s in ws.list_skills()] == ["final-answer-line"]
    assert "final-answer-line" in llm.calls[1].messages[-1].content


def test_existing_similar_pair_can_be_merged(ws, failing_batch):
    add_skill(ws, "check-units", "TRIGGER when: a problem mixes units.", UNITS)
    add_skill(ws, "percent-basics", "TRIGGER when: percents appear.", PERCENT)
    llm = ScriptedLLM([decision("MERGE"), json.dumps(MERGED)])
    GuidedSynthesisEngine(llm=llm, propose=False, pair_threshold=0.3).step(ws, failing_batch, None)
    assert [s.name for s in ws.list_skills()] == ["units-and-percents"]


def test_malformed_curator_reply_writes_nothing(ws, failing_batch):
    ws.write_draft("percent-basics", skill_text("percent-basics", "TRIGGER when: percents appear.", PERCENT))
    before = snapshot(ws.path)
    llm = ScriptedLLM(["MERGE please", '{"decision": "MAYBE"}'])
    result = GuidedSynthesisEngine(llm=llm, propose=False).step(ws, failing_batch, None)
    assert result.status == "failed" and snapshot(ws.path) == before  # not even the memory lessons


def test_layer_flags(ws, failing_batch):
    ws.write_draft("read-twice", "Read the question twice\nUnderline what is asked.\n")
    before = snapshot(ws.path)
    engine = GuidedSynthesisEngine(EvolveConfig(evolve_memory=False, evolve_skills=False), llm=ScriptedLLM([]))
    result = engine.step(ws, failing_batch, None)
    assert not result.mutated and snapshot(ws.path) == before


def test_duplicate_drafts_are_reviewed_once(ws, failing_batch):
    for name in ("read-twice", "read-it-twice"):
        ws.write_draft(name, f"---\nname: {name}\ndescription: \"TRIGGER when: long questions.\"\n---\n\n"
                             "Read the question twice.\nUnderline what is asked.\n")
    llm = ScriptedLLM([decision("ACCEPT")])
    result = GuidedSynthesisEngine(llm=llm, propose=False).step(ws, failing_batch, None)
    assert len(llm.calls) == 1 and result.metadata["decisions"] == ["read-it-twice: ACCEPT"]


def test_unrelated_proposal_cannot_be_merged(ws, failing_batch):
    add_skill(ws, "check-units", "TRIGGER when: a problem mixes units.", UNITS)
    ws.write_draft("read-twice", "Read the question twice\nUnderline what is asked.\n")
    llm = ScriptedLLM([decision("MERGE")])
    GuidedSynthesisEngine(llm=llm, propose=False, review_pairs=False).step(ws, failing_batch, None)
    assert "(none)" in llm.calls[0].messages[-1].content
    assert [s.name for s in ws.list_skills()] == ["check-units", "read-twice"]
