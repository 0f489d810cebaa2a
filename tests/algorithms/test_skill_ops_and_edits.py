"""Shared machinery: skill building, caps, near-duplicates, merges; edit batches that write all or nothing."""

from __future__ import annotations

import pytest
from engine_fakes import PROMPT, add_skill, snapshot

from agent_evolve.algorithms.common.edits import (
    RULES_HEADING,
    DuplicateEditError,
    Edit,
    EditBatch,
    EditError,
    cap_prompt,
    learned_rules,
)
from agent_evolve.algorithms.common.memory_ops import dedup_entries
from agent_evolve.algorithms.skillforge.engine import AEvolveEngine
from agent_evolve.algorithms.common.skill_ops import (
    draft_to_skill,
    make_skill,
    merge_skills,
    near_duplicates,
    slugify,
)
from agent_evolve.contract.skills import parse_skill, render_skill, validate_skill
from agent_evolve.engine.stepping import guarded_step
from agent_evolve.engine.versioning import VersionControl, pre_evolution_tag
from agent_evolve.errors import SkillFormatError
from agent_evolve.types import StepResult

UNITS = "Write each quantity with its unit.\nConvert everything to one unit before computing.\nCheck the final unit."


def test_make_skill_validates_normalises_and_caps():
    skill = make_skill("check-units", "a problem mixes units", "line\n" * 600)
    assert skill.description.startswith("TRIGGER when:")
    assert len(render_skill(skill)) <= 1500 and not validate_skill(skill, "check-units")
    with pytest.raises(SkillFormatError):
        make_skill("Bad Name", "x", "body")
    with pytest.raises(SkillFormatError):
        make_skill("ok", "x", "   ")
    assert slugify("Check the Units!!") == "check-the-units"
    assert slugify("Проверка единиц") == "learned-skill", "a skill name holds ASCII letters and digits only"


def test_near_duplicates_find_rewordings_only():
    skills = {
        "check-units": make_skill("check-units", "mixed units", UNITS),
        "units-check": make_skill("units-check", "mixed units", UNITS + "\nCheck the final unit again."),
        "read-question": make_skill("read-question", "long questions", "Re-read the last sentence of the question."),
    }
    pairs = near_duplicates(skills)
    assert [(a, b) for a, b, _ in pairs] == [("check-units", "units-check")]
    assert pairs[0][2] >= 0.85


def test_merge_skills_gives_one_valid_skill_naming_both_sources():
    a = make_skill("check-units", "mixed units", UNITS, {"kind": "unit_scale"})
    b = make_skill("percent-basics", "percentages",
                   "A percent p means p/100.\nConvert everything to one unit before computing.")
    merged = merge_skills(a, b, "units-and-percents", "mixed units or percents", UNITS + "\nA percent p is p/100.")
    assert not validate_skill(merged, "units-and-percents")
    assert "p/100" in merged.body and merged.description.startswith("TRIGGER when:")
    assert merged.metadata == {"kind": "unit_scale", "merged_from": ["check-units", "percent-basics"]}


def test_draft_without_frontmatter_becomes_a_skill():
    skill = draft_to_skill("Units Draft", "# Convert units first\nAlways convert.\n")
    assert skill is not None and skill.name == "units-draft" and "Always convert." in skill.body
    assert draft_to_skill("empty", "  \n") is None


def test_batch_checks_everything_before_writing(ws):
    before = snapshot(ws.path)
    batch = EditBatch(ws, {"prompts", "skills", "memory"})
    batch.add(Edit("add_rule", text="Always end with the Answer: line."))
    with pytest.raises(EditError):
        batch.add(Edit("add_memory", entry={"content": ""}))
    assert snapshot(ws.path) == before
    batch.apply()
    assert learned_rules(ws.read_prompt()) == ["Always end with the Answer: line."]


def test_batch_refuses_disabled_layers_and_duplicates(ws):
    batch = EditBatch(ws, {"skills"})
    with pytest.raises(EditError, match="prompts layer"):
        batch.add(Edit("add_rule", text="Always end with the Answer: line."))
    ws.write_prompt(PROMPT + f"\n{RULES_HEADING}\n- Always end with the Answer: line.\n")
    with pytest.raises(DuplicateEditError):
        EditBatch(ws, {"prompts"}).add(Edit("add_rule", text="always end with the answer: line"))
    with pytest.raises(DuplicateEditError):
        EditBatch(ws, {"memory"}).add(Edit("add_memory", entry={"content": "Carry the one"}))
    with pytest.raises(EditError, match="at most 1"):
        limited = EditBatch(ws, {"memory"}, max_edits=1)
        limited.add(Edit("add_memory", entry={"content": "a"}))
        limited.add(Edit("add_memory", entry={"content": "b"}))


def test_a_write_that_fails_fails_the_step_and_git_restores_every_file(ws, make_context, monkeypatch):
    add_skill(ws, "old", "TRIGGER when: x.", "old body")
    vc = VersionControl(ws.path)
    vc.init()
    vc.commit("the workspace before the step", tag=pre_evolution_tag(1))
    before = snapshot(ws.path)
    batch = EditBatch(ws, {"prompts", "skills", "memory"})
    batch.add(Edit("add_rule", text="Re-read the question first."))
    batch.add(Edit("delete_skill", name="old"))
    batch.add(Edit("add_memory", entry={"content": "new lesson"}))
    batch.add(Edit("write_skill", skill=make_skill("new-one", "y", "body")))

    def boom(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(ws, "write_skill", boom)

    def step(ctx: object) -> StepResult:
        return StepResult(True, "; ".join(batch.apply()))

    outcome = guarded_step(AEvolveEngine(), step, make_context(ws), vc, ["prompts", "skills", "memory"],
                           pre_evolution_tag(1))
    assert outcome.status == "failed" and "OSError: disk full" in outcome.summary
    assert snapshot(ws.path) == before and ws.read_prompt() == PROMPT


def test_cap_prompt_drops_oldest_rules_first():
    prompt = PROMPT + f"\n{RULES_HEADING}\n" + "".join(f"- rule number {i} " + "x" * 80 + "\n" for i in range(10))
    capped = cap_prompt(prompt, 400)
    assert len(capped) <= 400 and capped.startswith(PROMPT.strip())
    assert learned_rules(capped)[-1].startswith("rule number 9")
    assert "rule number 0" not in capped
    assert len(cap_prompt("para one\n\n" + "y" * 500, 100)) <= 100


def test_memory_dedup_keeps_the_newest_copy():
    entries = [{"content": "End with the Answer: line.", "cycle": 1}, {"content": "Check units."},
               {"content": "end with the answer: line", "cycle": 2}]
    assert dedup_entries(entries) == [{"content": "end with the answer: line", "cycle": 2}, {"content": "Check units."}]


def test_rendered_skill_round_trips():
    skill = make_skill("check-units", "mixed units", UNITS, {"kind": "unit_scale"})
    assert parse_skill(render_skill(skill)).metadata == {"kind": "unit_scale"}
