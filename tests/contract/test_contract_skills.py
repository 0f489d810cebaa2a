from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_evolve.contract.skills import (
    Skill,
    parse_skill,
    render_skill,
    split_frontmatter,
    strip_frontmatter,
    validate_skill,
)
from agent_evolve.errors import SkillFormatError, WorkspaceError

FULL = """\
---
name: pdf-tools
description: Extract text from PDF files.
license: Apache-2.0
compatibility: needs poppler
allowed-tools: Bash(pdftotext:*) Read
metadata:
  intent: read pdfs
  guidance: {applies_when: a pdf is given, key_insight: use pdftotext}
  status: ACTIVE
  evidence: {successes: 3, failures: 1}
---

# PDF tools

Run pdftotext.
"""


def test_parse_full_skill() -> None:
    skill = parse_skill(FULL, path="skills/pdf-tools/SKILL.md")
    assert skill.name == "pdf-tools"
    assert skill.description == "Extract text from PDF files."
    assert skill.license == "Apache-2.0"
    assert skill.compatibility == "needs poppler"
    assert skill.allowed_tools == "Bash(pdftotext:*) Read"
    assert skill.metadata["evidence"] == {"successes": 3, "failures": 1}
    assert skill.body == "# PDF tools\n\nRun pdftotext.\n"
    assert skill.path == "skills/pdf-tools/SKILL.md"
    assert validate_skill(skill, dir_name="pdf-tools") == []


def test_render_then_parse_full_skill() -> None:
    skill = parse_skill(FULL)
    again = parse_skill(render_skill(skill))
    assert again == skill
    assert render_skill(skill).startswith("---\nname: pdf-tools\n")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("no frontmatter here", "no YAML frontmatter"),
        ("---\nname: x\ndescription: y\n", "not closed"),
        ("---\nname: [unclosed\n---\nbody", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "must be a YAML mapping"),
        ("---\n---\nbody", "frontmatter is empty"),
        ("---\ndescription: y\n---\n", "missing required key 'name'"),
        ("---\nname: x\n---\n", "missing required key 'description'"),
        ("---\nname: 12\ndescription: y\n---\n", "'name' must be a string"),
        ("---\nname: x\ndescription: [a]\n---\n", "'description' must be a string"),
        ("---\nname: x\ndescription: y\nlicense: 3\n---\n", "'license' must be a string"),
        ("---\nname: x\ndescription: y\nmetadata: [1]\n---\n", "'metadata' must be a mapping"),
    ],
)
def test_parse_errors_name_path_and_problem(text: str, problem: str) -> None:
    with pytest.raises(SkillFormatError) as info:
        parse_skill(text, path="skills/x/SKILL.md")
    assert "skills/x/SKILL.md" in str(info.value)
    assert problem in str(info.value)
    assert isinstance(info.value, WorkspaceError)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "name is empty"),
        ("Upper", "lowercase"),
        ("-lead", "hyphen"),
        ("trail-", "hyphen"),
        ("dou--ble", "hyphen"),
        ("under_score", "lowercase"),
        ("a" * 65, "limit is 64"),
    ],
)
def test_bad_names(name: str, problem: str) -> None:
    problems = validate_skill(Skill(name=name, description="d"))
    assert any(problem in p for p in problems), problems


def test_good_names() -> None:
    for name in ("a", "a1", "pdf-tools", "x" * 64, "v2-fast-path"):
        assert validate_skill(Skill(name=name, description="d"), dir_name=name) == []


def test_directory_mismatch() -> None:
    problems = validate_skill(Skill(name="alpha", description="d"), dir_name="beta")
    assert problems == ["name 'alpha' does not match its directory name 'beta'"]


def test_description_and_other_rules() -> None:
    assert any("description is empty" in p for p in validate_skill(Skill(name="a", description="  ")))
    assert any("limit is 1024" in p for p in validate_skill(Skill(name="a", description="d" * 1025)))
    assert validate_skill(Skill(name="a", description="d" * 1024)) == []
    assert any("compatibility" in p for p in validate_skill(Skill(name="a", description="d", compatibility="c" * 501)))
    assert any("metadata must be a mapping" in p for p in validate_skill(Skill(name="a", description="d", metadata=[])))  # type: ignore[arg-type]


def test_unknown_top_level_keys_reported() -> None:
    skill = parse_skill("---\nname: a\ndescription: d\nintent: x\nstatus: ACTIVE\n---\n")
    problems = validate_skill(skill)
    assert len(problems) == 1 and "unknown frontmatter keys: intent, status" in problems[0]
    assert "metadata" in problems[0]
    assert parse_skill(render_skill(skill)).extra == {"intent": "x", "status": "ACTIVE"}


def test_strip_frontmatter() -> None:
    assert strip_frontmatter(FULL) == "# PDF tools\n\nRun pdftotext.\n"
    assert strip_frontmatter("plain text\n") == "plain text\n"
    assert strip_frontmatter("---\nname: a\n---\nbody") == "body"
    assert strip_frontmatter("---\r\nname: a\r\n---\r\n\r\nbody\r\n") == "body\r\n"
    assert split_frontmatter("---\nunclosed") is None


def test_body_may_contain_rulers() -> None:
    skill = Skill(name="a", description="d", body="one\n---\ntwo\n---\n")
    assert parse_skill(render_skill(skill)).body == skill.body


# ----- property: render/parse round trip ------------------------------------------------------------------

names = st.from_regex(r"\A[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,6}\Z")
# YAML cannot carry control characters or surrogates; a skill's text never needs them.
text_chars = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff") | st.sampled_from("\n\t")
descriptions = st.text(text_chars, min_size=1, max_size=300).filter(lambda s: s.strip())
pieces = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
bodies = st.lists(pieces | st.sampled_from(["\n", "\r\n", "---", "\n---\n", "\n\n", "#"]), max_size=15).map("".join)
meta_values = st.one_of(st.integers(), st.booleans(), st.text(text_chars, max_size=30), st.none())
metadatas = st.dictionaries(st.from_regex(r"\A[a-z_]{1,10}\Z"), meta_values, max_size=4)


@settings(max_examples=300, deadline=None)
@given(name=names, description=descriptions, body=bodies, metadata=metadatas)
@example(name="a", description="d", body="\n\nstarts blank", metadata={})
@example(name="a", description="multi\nline: yes", body="\r\n---\r\n", metadata={"k": "---"})
def test_render_parse_round_trip(name: str, description: str, body: str, metadata: dict) -> None:
    skill = Skill(name=name, description=description, body=body, metadata=metadata)
    assert validate_skill(skill, dir_name=name) == []
    again = parse_skill(render_skill(skill))
    assert again == skill
