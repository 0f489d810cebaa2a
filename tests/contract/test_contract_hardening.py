"""Regression tests for hostile input: each names the file and key, is refused fast, and loses nothing."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agent_evolve.config import EvolveConfig
from agent_evolve.contract import AgentWorkspace, validate_workspace
from agent_evolve.contract import skills as skills_module
from agent_evolve.contract.jsonl import append_line, read_jsonl, repair_tail
from agent_evolve.contract.skills import read_skill_file
from agent_evolve.engine.journal import Journal
from agent_evolve.engine.records import append_jsonl
from agent_evolve.errors import ConfigError, ManifestError, SkillFormatError, WorkspaceError
from agent_evolve.io.safe_json import MAX_JSON_DEPTH, parse_json
from agent_evolve.io.safe_yaml import MAX_YAML_DEPTH, load_yaml

BOMB = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{n}: &{n} [{', '.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True))


def skill_doc(name: str, description: str = "TRIGGER when testing.", extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\nbody\n"


def test_the_alias_bomb_is_refused_in_milliseconds() -> None:
    assert len(BOMB) < 500
    started = time.perf_counter()
    with pytest.raises(SkillFormatError, match="aliases expand to more than"):
        skills_module.parse_skill("---\nname: x\ndescription: y\nmetadata:\n  " + BOMB.rstrip().replace("\n", "\n  ") + "\n---\n")
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(("value", "explained"), [("2024-13-45", "month must be in 1..12"),
                                                   ("!!bool x", "not a valid value for its tag"),
                                                   ("!!int x", "invalid literal"),
                                                   ("1" + "0" * 5000, "4300 digits")])
def test_unbuildable_values_name_the_file_and_the_key(value: str, explained: str) -> None:
    with pytest.raises(WorkspaceError) as info:
        load_yaml(f"name: n\nmetadata:\n  created: {value}\n", "skills/n/SKILL.md")
    assert str(info.value).startswith("skills/n/SKILL.md: key 'metadata.created' (line 3)")
    assert explained in str(info.value)


def test_deep_nesting_and_self_reference_are_refused_without_crashing() -> None:
    with pytest.raises(WorkspaceError, match="^deep.yaml: "):  # refused by our bound or PyYAML's (6.0.4+) first
        load_yaml("a: " + "[" * 100_000 + "]" * 100_000, "deep.yaml")  # libyaml alone segfaults on this
    with pytest.raises(WorkspaceError, match=f"nested deeper than {MAX_YAML_DEPTH}"):
        load_yaml("- " * 100_000 + "x", "deep.yaml")
    with pytest.raises(WorkspaceError, match="refers to itself"):
        load_yaml("a: &a [*a]", "loop.yaml")
    assert load_yaml("a: &x [1, 2]\nb: *x\n", "ok.yaml") == {"a": [1, 2], "b": [1, 2]}


def test_a_key_given_twice_is_refused_naming_it_and_its_line() -> None:
    """The first `batch_size` was silently dropped; a merge key (`<<`) still overrides as YAML says."""
    with pytest.raises(WorkspaceError, match="^run.yaml: line 3: .*'batch_size' appears twice"):
        load_yaml("batch_size: 4\nseed: 1\nbatch_size: 8\n", "run.yaml")
    with pytest.raises(WorkspaceError, match="key 'metadata' \\(line 4\\).*'a' appears twice"):
        load_yaml("name: n\nmetadata:\n  a: 1\n  a: 2\n", "SKILL.md")
    assert load_yaml("base: &b {a: 1}\nover: {<<: *b, a: 2}\n", "ok.yaml")["over"] == {"a": 2}


def test_json_limits_give_our_error() -> None:
    with pytest.raises(WorkspaceError, match=f"nested deeper than {MAX_JSON_DEPTH}"):
        parse_json("[" * 100_000 + "]" * 100_000, "m.json")
    with pytest.raises(WorkspaceError, match=f"nested deeper than {MAX_JSON_DEPTH}"):
        parse_json("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "m.json")
    with pytest.raises(WorkspaceError, match="m.json: not valid JSON.*4300"):
        parse_json('{"a": ' + "1" * 5000 + "}", "m.json")


def test_memory_files_with_deep_or_huge_values_name_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    memory = tmp_path / "memory" / "episodic.jsonl"
    memory.write_text('{"ok": 1}\n{"n": ' + "9" * 5000 + '}\n{"ok": 2}\n')
    with pytest.raises(WorkspaceError, match="episodic.jsonl:2: not valid JSON"):
        AgentWorkspace(tmp_path).read_memories()
    assert any("episodic.jsonl:2" in p for p in validate_workspace(tmp_path, require_manifest=False))


@pytest.mark.parametrize(("text", "problem"), [("extra: 5\n", "key 'extra' must be a mapping"),
                                                ("holdout_ratio: .nan\n", "key 'holdout_ratio' must be a finite"),
                                                ("egl_threshold: .inf\n", "key 'egl_threshold' must be a finite"),
                                                ("seed: 2024-13-45\n", "key 'seed' (line 1)"),
                                                ("- 1\n", "expected a mapping"),
                                                ("1: 2\n", "keys must be names")])
def test_bad_config_values_are_config_errors_naming_file_and_key(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        EvolveConfig.from_yaml(path)
    assert str(path) in str(info.value) and problem in str(info.value)


def test_a_non_utf8_config_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_bytes(b"batch_size: 3\nname: \xff\xfe\n")
    with pytest.raises(ConfigError, match=f"{path}: not UTF-8"):
        EvolveConfig.from_yaml(path)


def test_a_bad_manifest_value_is_a_manifest_error(tmp_path: Path) -> None:
    (tmp_path / "manifest.yaml").write_text("name: x\nversion: !!float x\n")
    with pytest.raises(ManifestError, match="manifest.yaml: key 'version' \\(line 2\\)"):
        AgentWorkspace(tmp_path).manifest()


def test_validate_workspace_lists_a_skill_with_a_bad_date_instead_of_raising(tmp_path: Path) -> None:
    (tmp_path / "skills" / "dated").mkdir(parents=True)
    (tmp_path / "skills" / "dated" / "SKILL.md").write_text(skill_doc("dated", extra="metadata: {at: 2024-13-45}\n"))
    (tmp_path / "skills" / "fine").mkdir()
    (tmp_path / "skills" / "fine" / "SKILL.md").write_text(skill_doc("fine"))
    problems = validate_workspace(tmp_path, require_manifest=False)
    assert len(problems) == 1 and "key 'metadata.at'" in problems[0]
    assert [s.name for s in AgentWorkspace(tmp_path).list_skills()] == ["fine"]


def test_a_skill_with_a_lone_surrogate_is_refused_and_leaves_no_folder(tmp_path: Path) -> None:
    (tmp_path / "skills").mkdir()
    ws = AgentWorkspace(tmp_path)
    with pytest.raises(WorkspaceError, match="lone surrogate"):
        ws.write_skill("new-one", skill_doc("new-one", "TRIGGER when \udc80 appears."))
    assert list((tmp_path / "skills").iterdir()) == []
    assert validate_workspace(tmp_path, require_manifest=False) == []


def test_the_skill_bank_is_parsed_once_per_file_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(skill_doc("cached"))
    parses = []
    real = skills_module.parse_skill
    monkeypatch.setattr(skills_module, "parse_skill", lambda text, path=None: parses.append(1) or real(text, path))
    first = read_skill_file(path)
    first.metadata["mutated"] = True  # a caller's copy: the cache must not see this
    assert read_skill_file(path).metadata == {} and len(parses) == 1
    path.write_text(skill_doc("cached", "TRIGGER when changed."))
    assert read_skill_file(path).description == "TRIGGER when changed." and len(parses) == 2


def test_repair_tail_drops_a_torn_line_and_ends_a_whole_one(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2, "b"')
    assert repair_tail(path) and path.read_bytes() == b'{"a": 1}\n'
    path.write_bytes(b'{"a": 1}\n{"a": 2}')
    assert repair_tail(path) and path.read_bytes() == b'{"a": 1}\n{"a": 2}\n'
    assert not repair_tail(path)
    path.write_bytes(b'{"torn')
    append_line(path, {"a": 3})
    assert read_jsonl(path) == [{"a": 3}]


def test_only_the_journal_pays_for_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    append_jsonl(tmp_path / "history.jsonl", {"cycle": 1})
    AgentWorkspace(tmp_path).add_memory({"content": "x"})
    assert synced == []
    journal = Journal(tmp_path / "journal.jsonl")
    journal.record(1, "solved", batch="b")
    assert len(synced) == 1
    assert json.loads((tmp_path / "journal.jsonl").read_text()) == {"batch": "b", "cycle": 1, "phase": "solved"}
