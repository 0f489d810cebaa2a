"""Export to Claude Code, Codex and Agent Skills layouts: strictly valid skills, refusals, round trip."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from userview_fakes import make_workspace

from agent_evolve.cli.main import cli
from agent_evolve.contract.skills import parse_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.export.portable import SKILL_FILE, skill_file_problems

RICH_SKILL = """---
name: check-units
description: "TRIGGER when: a problem mixes units. DO NOT TRIGGER: pure arithmetic."
license: MIT
metadata:
  intent: convert first
  uses: 7
  evidence: {solved: 3, failed: 1}
  tags: [units, numbers]
---

Convert every quantity to one unit before computing.
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = make_workspace(tmp_path / "ws")
    agent = AgentWorkspace(ws)
    agent.write_skill("check-units", RICH_SKILL)
    agent.write_skill("plain", "---\nname: plain\ndescription: TRIGGER when plain.\n---\n\nBody.\n")
    (ws / "skills" / "check-units" / "scripts").mkdir()
    (ws / "skills" / "check-units" / "scripts" / "convert.py").write_text("print('km')\n")
    agent.write_prompt("Answer with units.\n")
    agent.add_memory({"content": "km is 1000 m"}, category="semantic")
    return ws


def skills_of(folder: Path) -> dict[str, object]:
    return {p.parent.name: _without_path(parse_skill(p.read_text(), p)) for p in sorted(folder.glob("*/SKILL.md"))}


def _without_path(skill: object) -> object:
    skill.path = None  # type: ignore[attr-defined]
    return skill


@pytest.mark.parametrize(
    ("host", "skills_dir", "instructions"),
    [("claude-code", ".claude/skills", "CLAUDE.md"), ("codex", ".agents/skills", "AGENTS.md"), ("agent-skills", "", "AGENTS.md")],
)
def test_export_writes_strictly_valid_skills_where_the_host_looks(
    workspace: Path, tmp_path: Path, host: str, skills_dir: str, instructions: str
) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["export", str(workspace), str(out), "--to", host, "--with-prompt"])
    assert result.exit_code == 0, result.output
    root = out / skills_dir
    assert sorted(p.name for p in root.iterdir() if p.is_dir()) == ["check-units", "plain"]
    for folder in ("check-units", "plain"):
        assert skill_file_problems((root / folder / SKILL_FILE).read_text(), folder) == []
    assert (root / "check-units" / "scripts" / "convert.py").read_text() == "print('km')\n"
    section = (out / instructions).read_text()
    assert "Answer with units." in section and "- km is 1000 m" in section


def test_export_never_overwrites_a_skill_folder_it_did_not_write_unless_told(workspace: Path, tmp_path: Path) -> None:
    """A host's own skill of the same name, or files added or edited since the last export, were deleted by it."""
    out, root = tmp_path / "out", tmp_path / "out" / ".claude" / "skills"
    export = ["export", str(workspace), str(out), "--to", "claude-code"]
    (root / "plain").mkdir(parents=True)
    (root / "plain" / "SKILL.md").write_text("the host's own skill\n")
    refused = CliRunner().invoke(cli, export)
    assert refused.exit_code == 1 and "plain" in refused.output and "--replace" in refused.output, refused.output
    assert (root / "plain" / "SKILL.md").read_text() == "the host's own skill\n" and not (root / "check-units").exists()
    assert CliRunner().invoke(cli, [*export, "--replace"]).exit_code == 0
    assert CliRunner().invoke(cli, export).exit_code == 0, "an untouched earlier export is replaced without a word"
    (root / "check-units" / "notes.md").write_text("mine\n")
    assert CliRunner().invoke(cli, export).exit_code == 1 and (root / "check-units" / "notes.md").exists()


def test_the_validator_rejects_what_strict_hosts_reject() -> None:
    ok = "---\nname: a-b\ndescription: d\n---\nbody"
    assert skill_file_problems(ok, "a-b") == []
    assert any("unknown frontmatter keys" in p for p in skill_file_problems(ok.replace("d\n", "d\nversion: 2\n"), "a-b"))
    assert any("does not match its directory name" in p for p in skill_file_problems(ok, "other"))
    assert any("single hyphens" in p for p in skill_file_problems(ok.replace("a-b", "a--b"), "a--b"))
    assert any("single hyphens" in p for p in skill_file_problems(ok.replace("a-b", "A-b"), "A-b"))
    assert any("the limit is 64" in p for p in skill_file_problems(ok.replace("a-b", "a" * 65), "a" * 65))
    assert any("the limit is 1024" in p for p in skill_file_problems(ok.replace(": d", ": " + "x" * 1025), "a-b"))
    assert any("description is empty" in p for p in skill_file_problems(ok.replace(": d", ': ""'), "a-b"))
    assert any("string to a string" in p for p in skill_file_problems(ok.replace("d\n", "d\nmetadata: {n: 1}\n"), "a-b"))


def test_the_exporter_refuses_a_skill_it_cannot_make_valid_naming_it(workspace: Path, tmp_path: Path) -> None:
    bad = workspace / "skills" / "too-long"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: too-long\ndescription: " + "x" * 1100 + "\n---\nbody\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["export", str(workspace), str(out), "--to", "codex"])
    assert result.exit_code == 1
    assert "cannot export skill 'too-long'" in result.output and "1100 characters" in result.output
    assert not out.exists(), "nothing is written when one skill is refused"


def test_export_then_import_gives_the_same_skills(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert CliRunner().invoke(cli, ["export", str(workspace), str(out), "--to", "claude-code"]).exit_code == 0
    exported = (out / ".claude" / "skills" / "check-units" / "SKILL.md").read_text()
    assert "agent-evolve-json" in exported and "uses: '7'" in exported
    fresh = make_workspace(tmp_path / "fresh")
    result = CliRunner().invoke(cli, ["import-skills", str(out), str(fresh)])
    assert result.exit_code == 0, result.output
    assert skills_of(fresh / "skills") == skills_of(workspace / "skills")
    assert (fresh / "skills" / "check-units" / "scripts" / "convert.py").exists()


@pytest.mark.parametrize("bad", ["---\nname: [b\n---\nbody\n", "---\nname: other\ndescription: B.\n---\nbody\n"])
def test_an_import_with_one_bad_skill_writes_none(workspace: Path, tmp_path: Path, bad: str) -> None:
    """The skills before the bad one were written, a partial import the user had not asked for."""
    for name, text in (("a-good", "---\nname: a-good\ndescription: A.\n---\nbody\n"), ("b-bad", bad)):
        (tmp_path / "host" / name).mkdir(parents=True)
        (tmp_path / "host" / name / "SKILL.md").write_text(text)
    before = skills_of(workspace / "skills")
    result = CliRunner().invoke(cli, ["import-skills", "-w", str(workspace), str(tmp_path / "host")])
    assert result.exit_code == 1 and "b-bad/SKILL.md" in result.output
    assert skills_of(workspace / "skills") == before


def test_with_prompt_keeps_the_users_own_instructions(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "CLAUDE.md").write_text("# My project\n\nUse tabs.\n")
    for _ in range(2):
        assert CliRunner().invoke(cli, ["export", str(workspace), str(out), "--to", "claude-code", "--with-prompt"]).exit_code == 0
    text = (out / "CLAUDE.md").read_text()
    assert text.startswith("# My project\n\nUse tabs.\n") and text.count("agent-evolve:begin") == 1
