from __future__ import annotations

from pathlib import Path


from agent_evolve.contract import validate_workspace


def test_valid_workspace_has_no_problems(ws_dir: Path, snap) -> None:
    before = snap(ws_dir)
    assert validate_workspace(ws_dir) == []
    assert snap(ws_dir) == before


def test_missing_directory(tmp_path: Path) -> None:
    assert validate_workspace(tmp_path / "nope") == [f"{tmp_path / 'nope'}: workspace directory does not exist"]


def test_collects_every_problem_and_writes_nothing(ws_dir: Path, snap) -> None:
    (ws_dir / "manifest.yaml").write_text("name: x\ncontract_version: '1.0'\nagent: {entrypoint: a.B}\nevolvable_layers: [dna]\n")
    (ws_dir / "skills" / "bad-yaml").mkdir()
    (ws_dir / "skills" / "bad-yaml" / "SKILL.md").write_text("---\nname: [x\n---\n")
    (ws_dir / "skills" / "mismatch").mkdir()
    (ws_dir / "skills" / "mismatch" / "SKILL.md").write_text("---\nname: other\ndescription: d\n---\n")
    (ws_dir / "skills" / "no-file").mkdir()
    (ws_dir / "skills" / "_drafts").mkdir()
    (ws_dir / "skills" / "_drafts" / "junk.md").write_text("drafts are not checked")
    (ws_dir / "memory" / "semantic.jsonl").write_text('{"ok": 1}\nnot json\n')
    (ws_dir / "tools").mkdir()
    (ws_dir / "tools" / "registry.yaml").write_text("a: 1\n")
    before = snap(ws_dir)
    problems = validate_workspace(ws_dir)
    assert snap(ws_dir) == before
    joined = "\n".join(problems)
    assert len(problems) == 6, joined
    assert "manifest.yaml: key 'evolvable_layers'" in problems[0]
    assert "bad-yaml/SKILL.md (frontmatter): not valid YAML" in joined
    assert "mismatch/SKILL.md: name 'other' does not match its directory name 'mismatch'" in joined
    assert "no-file/SKILL.md: skill folder 'no-file' has no SKILL.md" in joined
    assert "semantic.jsonl:2: not valid JSON" in joined
    assert "registry.yaml: the tool registry must be a list of mappings" in joined


def test_an_unreadable_skill_and_a_broken_memory_line_are_reported(ws_dir: Path) -> None:
    (ws_dir / "skills" / "check-units" / "SKILL.md").write_text("plain")
    (ws_dir / "memory" / "episodic.jsonl").write_text("{}\n{}\n{oops\n")
    problems = "\n".join(validate_workspace(ws_dir))
    assert "check-units/SKILL.md: no YAML frontmatter" in problems and "episodic.jsonl:3:" in problems


def test_missing_manifest_reported(ws_dir: Path) -> None:
    (ws_dir / "manifest.yaml").unlink()
    assert any("manifest.yaml: manifest not found" in p for p in validate_workspace(ws_dir))


def test_symlinked_skill_outside_reported(ws_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "SKILL.md").write_text("---\nname: ext\ndescription: d\n---\n")
    (ws_dir / "skills" / "ext").symlink_to(tmp_path / "out")
    assert any("escapes" in p for p in validate_workspace(ws_dir))


def test_missing_manifest_is_allowed_only_when_not_required(tmp_path) -> None:
    from agent_evolve.contract.validate import validate_workspace

    (tmp_path / "prompts").mkdir()
    assert any("manifest.yaml" in p for p in validate_workspace(tmp_path))
    assert validate_workspace(tmp_path, require_manifest=False) == []
    (tmp_path / "manifest.yaml").write_text("name: x\n")
    assert any("manifest.yaml" in p for p in validate_workspace(tmp_path, require_manifest=False))


def test_dangling_skill_symlink_reported_not_skipped(ws_dir: Path, tmp_path: Path, caplog) -> None:
    from agent_evolve.contract.workspace import AgentWorkspace

    (ws_dir / "skills" / "gone").symlink_to(tmp_path / "deleted-skill")
    (tmp_path / "a-file").write_text("x")
    (ws_dir / "skills" / "filelink").symlink_to(tmp_path / "a-file")
    problems = validate_workspace(ws_dir)
    assert any("skills/gone" in p and "does not exist" in p for p in problems), problems
    assert any("skills/filelink" in p and "is not a folder" in p for p in problems), problems
    names = [meta.name for meta in AgentWorkspace(ws_dir).list_skills()]
    assert "gone" not in names and "filelink" not in names
    assert "skills/gone" in caplog.text
