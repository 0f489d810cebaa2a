"""Ratchet skills on disk are valid Agent Skills that round-trip; YAML banks import with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evolve.algorithms.ratchet.records import RatchetSkill
from agent_evolve.algorithms.ratchet.skill_forms import (
    from_agent_skill,
    load_yaml_bank,
    read_skills,
    render_skill_md,
    skill_name,
    write_skills,
)
from agent_evolve.contract.skills import parse_skill, read_skill_file, validate_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import SkillFormatError

RATCHET_YAML = """\
id: sliding_window
name: sliding_window
version: 0.2.1
description: tasks over a fixed-size contiguous span of a list
intent: maintain a running window
signals_match: [sliding_window, fixed_length_span]
tags: [auto]
preconditions: [input is a list]
status: active
author: synthesized
guidance:
  applies_when: tasks over a fixed-size contiguous span
  key_insight: maintain a running window; slide by one on each step
  common_pitfalls:
    - off-by-one on the window edge
    - forgetting to shrink on mismatch
  verify_before_returning: window length stays constant; start <= end
"""


def sample(name: str = "sliding-window", **changes: object) -> RatchetSkill:
    skill = RatchetSkill(
        name=name, description="Fixed-size spans of a list.", intent="Keep a running window",
        signals_match=["window", "span"], applies_when="a contiguous span of fixed size",
        key_insight="slide by one", common_pitfalls=["off by one at the edge"],
        verify_before_returning=["the window length never changes"], body="Extra notes.\n\nMore.",
        do_not_retire=True, origin="imported", created_round=3,
    )
    for key, value in changes.items():
        setattr(skill, key, value)
    return skill


@pytest.fixture
def ws(tmp_path: Path) -> AgentWorkspace:
    (tmp_path / "ws" / "skills").mkdir(parents=True)
    return AgentWorkspace(tmp_path / "ws")


def test_an_active_skill_on_disk_is_a_valid_agent_skill_that_round_trips(ws: AgentWorkspace) -> None:
    skill = sample()
    write_skills(ws, [skill])
    path = ws.path / "skills" / "sliding-window" / "SKILL.md"
    on_disk = read_skill_file(path)
    assert validate_skill(on_disk, dir_name="sliding-window") == []
    assert on_disk.metadata["ratchet"]["intent"] == "Keep a running window"
    assert on_disk.metadata["ratchet"]["guidance"]["common_pitfalls"] == ["off by one at the edge"]
    assert "Key insight: slide by one" in on_disk.body and "- the window length never changes" in on_disk.body
    assert on_disk.body.endswith("Extra notes.\n\nMore.")
    assert read_skills(ws) == [skill]


@pytest.mark.parametrize("body", ["", "x", "\nleading blank line"])
def test_bodies_round_trip_exactly(body: str) -> None:
    skill = sample(body=body, applies_when="", common_pitfalls=[])
    assert from_agent_skill(parse_skill(render_skill_md(skill))) == skill


def test_a_hand_edited_guidance_is_kept_whole_in_the_body() -> None:
    text = render_skill_md(sample()).replace("Key insight: slide by one", "Key insight: slide by two")
    parsed = from_agent_skill(parse_skill(text))
    assert parsed.key_insight == "slide by one" and "slide by two" in parsed.body


def test_a_plain_agent_skill_reads_as_an_active_seed_skill() -> None:
    plain = parse_skill("---\nname: check-units\ndescription: Mixed units.\n---\n\nConvert first.\n")
    assert from_agent_skill(plain) == RatchetSkill("check-units", "Mixed units.", "Mixed units.", [], "", "", [], [],
                                                   "Convert first.\n", origin="seed")


def test_retired_skills_leave_the_disk_and_other_skills_stay(ws: AgentWorkspace) -> None:
    ws.write_skill("mine", "---\nname: mine\ndescription: Not Ratchet's.\n---\n\nBody.\n")
    write_skills(ws, [sample(), sample("other")])
    write_skills(ws, [sample(status="DEPRECATED"), sample("other")])
    assert sorted(p.name for p in (ws.path / "skills").iterdir()) == ["mine", "other"]


def test_bad_ratchet_metadata_names_the_file(tmp_path: Path) -> None:
    text = render_skill_md(sample()).replace("status: ACTIVE", "status: RETIRED")
    with pytest.raises(SkillFormatError, match=r"x/SKILL.md: metadata.ratchet.status is 'RETIRED'"):
        from_agent_skill(parse_skill(text, path="x/SKILL.md"))


def test_a_ratchet_yaml_skill_imports_losslessly(tmp_path: Path) -> None:
    """version, tags, preconditions and author are kept, on the skill and through its SKILL.md."""
    bank = tmp_path / "bank.yaml"
    bank.write_text(RATCHET_YAML)
    [skill] = load_yaml_bank(bank)
    assert skill == RatchetSkill(
        name="sliding-window", description="tasks over a fixed-size contiguous span of a list",
        intent="maintain a running window", signals_match=["sliding_window", "fixed_length_span"],
        applies_when="tasks over a fixed-size contiguous span",
        key_insight="maintain a running window; slide by one on each step",
        common_pitfalls=["off-by-one on the window edge", "forgetting to shrink on mismatch"],
        verify_before_returning=["window length stays constant; start <= end"], body="", origin="imported",
        version="0.2.1", tags=["auto"], preconditions=["input is a list"], author="synthesized",
    )
    assert validate_skill(parse_skill(render_skill_md(skill)), dir_name="sliding-window") == []
    assert from_agent_skill(parse_skill(render_skill_md(skill))) == skill


def test_lists_folders_and_missing_optional_fields(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("skills:\n  - {id: Sum_Numbers, intent: Sum a list, description: sums,"
                                     " do_not_retire: true}\n  - {id: b, intent: i, description: d}\n")
    (tmp_path / "c.yml").write_text("- {name: c, intent: i, description: d, status: candidate}\n")
    (tmp_path / "notes.txt").write_text("ignored")
    skills = load_yaml_bank(tmp_path)
    assert [(s.name, s.status, s.do_not_retire) for s in skills] == [
        ("sum-numbers", "ACTIVE", True), ("b", "ACTIVE", False), ("c", "CANDIDATE", False)]
    assert skills[0].signals_match == [] and skills[0].common_pitfalls == [] and skills[0].applies_when == ""


def test_a_skill_with_both_is_keyed_by_its_id_as_in_ratchet(tmp_path: Path) -> None:
    """Ratchet keys skills by `id`; `name` is a label that two skills may share."""
    (tmp_path / "bank.yaml").write_text("- {id: sliding_window, name: Windows, intent: i, description: d}\n"
                                        "- {id: two_pointers, name: Windows, intent: i, description: d}\n")
    assert [s.name for s in load_yaml_bank(tmp_path / "bank.yaml")] == ["sliding-window", "two-pointers"]


@pytest.mark.parametrize(("text", "message"), [
    ("- {id: a, intent: i, description: d}\n- {id: b, description: d}\n",
     r"bank.yaml: skill 2 \('b'\): missing required field 'intent'"),
    ("{id: a, intent: i}\n", r"bank.yaml: skill 1 \('a'\): missing required field 'description'"),
    ("{intent: i, description: d}\n", r"bank.yaml: skill 1: needs an 'id' or 'name'"),
    ("- {id: a, intent: i, description: d}\n- {id: A, intent: i, description: d}\n",
     r"bank.yaml: skill 2 \('a'\) has the same name as .*bank.yaml: skill 1"),
    ("{id: a, intent: i, description: d, signals_match: {x: 1}}\n", r"signals_match must be a string or a list"),
    ("{id: a, intent: i, description: d, status: gone}\n", r"status is 'GONE'"),
    ("[]\n", r"bank.yaml: a skill bank must be"),
    ("{id: a, intent: [unclosed\n", r"bank.yaml"),
])
def test_bad_banks_are_refused_naming_the_file_and_skill(tmp_path: Path, text: str, message: str) -> None:
    bank = tmp_path / "bank.yaml"
    bank.write_text(text)
    with pytest.raises(SkillFormatError, match=message):
        load_yaml_bank(bank)
    assert bank.read_text() == text


def test_a_missing_bank_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SkillFormatError, match="no such skill bank"):
        load_yaml_bank(tmp_path / "none.yaml")


def test_skill_names_from_ratchet_ids() -> None:
    assert skill_name("sliding_window") == "sliding-window"
    assert skill_name("  Two  Words!! ") == "two-words"
    assert skill_name("___") == ""
    assert len(skill_name("a" * 100)) == 64
