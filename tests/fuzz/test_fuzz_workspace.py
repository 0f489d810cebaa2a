"""Workspace loaders and writers on hostile files: our errors only, and a call that raised changed no file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import counted, fuzz, json_values, jsonl_bytes, skill_text, yaml_text

from agent_evolve.agents.tools import load_tool_entries
from agent_evolve.config import EvolveConfig
from agent_evolve.contract import AgentWorkspace, validate_workspace
from agent_evolve.contract.jsonl import jsonl_problems, read_jsonl
from agent_evolve.errors import ConfigError, WorkspaceError

MANIFEST = ('name: fuzz\ncontract_version: "1.0"\nagent: {entrypoint: pkg.mod.Agent}\n'
            "evolvable_layers: [prompts, skills, memory, tools]\n")


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} | {
        str(p.relative_to(root)) + "/": b"" for p in root.rglob("*") if p.is_dir()}


@pytest.fixture
def ws(tmp_path: Path) -> AgentWorkspace:
    (tmp_path / "skills" / "good").mkdir(parents=True)
    (tmp_path / "skills" / "good" / "SKILL.md").write_text("---\nname: good\ndescription: fine\n---\n\nbody\n")
    (tmp_path / "skills" / "odd").mkdir()
    (tmp_path / "memory").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "t.py").write_text("def run(arguments):\n    return 'ok'\n")
    (tmp_path / "manifest.yaml").write_text(MANIFEST)
    return AgentWorkspace(tmp_path)


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@fuzz(800)
@given(skill=skill_text(), manifest=yaml_text(), memory=jsonl_bytes(), registry=yaml_text())
def test_hostile_files_give_problems_and_our_errors_and_change_nothing(
    ws: AgentWorkspace, skill: str, manifest: str, memory: bytes, registry: str
) -> None:
    counted()
    root = ws.path
    (root / "skills" / "odd" / "SKILL.md").write_bytes(encode(skill))
    (root / "manifest.yaml").write_bytes(encode(manifest))
    (root / "memory" / "episodic.jsonl").write_bytes(memory)
    (root / "tools" / "registry.yaml").write_bytes(encode(registry))
    before = snapshot(root)
    problems = validate_workspace(root)
    assert all(isinstance(p, str) and str(root) in p for p in problems)
    assert "good" in [s.name for s in ws.list_skills()]  # one bad skill never hides the others
    for call in (ws.manifest, ws.read_memories, ws.read_tool_registry, lambda: load_tool_entries(ws)):
        try:
            call()
        except WorkspaceError:
            pass
    assert snapshot(root) == before


@fuzz(700)
@given(name=st.sampled_from(["good", "new-skill", "odd"]), text=skill_text())
def test_write_skill_writes_a_valid_skill_or_changes_nothing(ws: AgentWorkspace, name: str, text: str) -> None:
    counted()
    before = snapshot(ws.path)
    try:
        ws.write_skill(name, text)
    except WorkspaceError:
        assert snapshot(ws.path) == before
        return
    assert not [p for p in validate_workspace(ws.path) if f"skills/{name}/" in p]


@fuzz(500)
@given(entry=st.one_of(st.dictionaries(st.text(max_size=5), json_values, max_size=4), json_values))
def test_add_memory_appends_one_line_or_changes_nothing(ws: AgentWorkspace, entry: object) -> None:
    counted()
    before = snapshot(ws.path)
    count = len(ws.read_memories(limit=None))
    try:
        ws.add_memory(entry)  # type: ignore[arg-type]
    except WorkspaceError:
        assert snapshot(ws.path) == before
        return
    assert len(ws.read_memories(limit=None)) == count + 1


@fuzz(600)
@given(data=jsonl_bytes())
def test_read_jsonl_lists_objects_or_names_the_bad_line(tmp_path: Path, data: bytes) -> None:
    counted()
    path = tmp_path / "records.jsonl"
    path.write_bytes(data)
    try:
        rows = read_jsonl(path)
    except WorkspaceError as exc:
        assert str(path) in str(exc) and jsonl_problems(path)
    else:
        assert all(isinstance(r, dict) for r in rows) and not jsonl_problems(path)
    assert path.read_bytes() == data


@fuzz(500)
@given(data=st.one_of(yaml_text().map(encode), st.binary(max_size=80)))
def test_config_files_load_or_raise_a_config_error_naming_the_file(tmp_path: Path, data: bytes) -> None:
    counted()
    path = tmp_path / "run.yaml"
    path.write_bytes(data)
    try:
        EvolveConfig.from_yaml(path)
    except ConfigError as exc:
        assert str(path) in str(exc)
    assert path.read_bytes() == data
