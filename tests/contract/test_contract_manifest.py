from __future__ import annotations

from pathlib import Path

import pytest

from agent_evolve.contract import LAYER_PATHS, load_manifest
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.errors import ManifestError


def test_load_valid_manifest(ws_dir: Path) -> None:
    m = load_manifest(ws_dir)
    assert (m.name, m.version, m.contract_version) == ("gsm8k-solver", "0.1.0", "1.0")
    assert (m.agent_type, m.entrypoint) == ("reference", "agent_evolve.agents.reference.ReferenceAgent")
    assert m.agent_config == {"temperature": 0}
    assert m.evolvable_layers == ["prompts", "skills", "memory"]
    assert m.reload_strategy == "hot"
    assert m.raw["agent"]["type"] == "reference"


def test_defaults(ws_dir: Path) -> None:
    (ws_dir / "manifest.yaml").write_text(
        'name: x\ncontract_version: "1.0"\nagent: {entrypoint: pkg.mod.Agent}\nevolvable_layers: [tools]\n'
    )
    m = load_manifest(ws_dir)
    assert (m.version, m.agent_type, m.agent_config, m.reload_strategy) == ("0.0.0", "custom", {}, "hot")


def test_layer_paths() -> None:
    assert LAYER_PATHS == {"prompts": "prompts", "skills": "skills", "memory": "memory", "tools": "tools"}


def test_missing_manifest(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"manifest\.yaml: manifest not found"):
        load_manifest(tmp_path)


MANIFEST = """\
name: gsm8k-solver
version: 0.1.0
contract_version: "1.0"
agent:
  type: reference
  entrypoint: agent_evolve.agents.reference.ReferenceAgent
  config: {temperature: 0}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


BAD = [
    ("no-entrypoint", _edit(MANIFEST, "  entrypoint: agent_evolve.agents.reference.ReferenceAgent\n", ""), "agent.entrypoint"),
    ("bad-entrypoint", _edit(MANIFEST, "agent_evolve.agents.reference.ReferenceAgent", "NoDots"), "agent.entrypoint"),
    ("path-entrypoint", _edit(MANIFEST, "agent_evolve.agents.reference.ReferenceAgent", "pkg/mod.py:Agent"), "agent.entrypoint"),
    ("bad-reload", _edit(MANIFEST, "reload_strategy: hot", "reload_strategy: warm"), "reload_strategy"),
    ("unknown-layer", _edit(MANIFEST, "[prompts, skills, memory]", "[prompts, weights]"), "evolvable_layers"),
    ("empty-layers", _edit(MANIFEST, "[prompts, skills, memory]", "[]"), "evolvable_layers"),
    ("dup-layers", _edit(MANIFEST, "[prompts, skills, memory]", "[skills, skills]"), "evolvable_layers"),
    ("layers-str", _edit(MANIFEST, "[prompts, skills, memory]", "prompts"), "evolvable_layers"),
    ("no-layers", _edit(MANIFEST, "evolvable_layers: [prompts, skills, memory]\n", ""), "evolvable_layers"),
    ("bad-contract", _edit(MANIFEST, '"1.0"', '"2.0"'), "contract_version"),
    ("no-contract", _edit(MANIFEST, 'contract_version: "1.0"\n', ""), "contract_version"),
    ("no-name", _edit(MANIFEST, "name: gsm8k-solver\n", ""), "'name'"),
    ("name-list", _edit(MANIFEST, "name: gsm8k-solver", "name: [a]"), "'name'"),
    ("agent-type", _edit(MANIFEST, "type: reference", "type: magic"), "agent.type"),
    ("agent-config", _edit(MANIFEST, "config: {temperature: 0}", "config: [1]"), "agent.config"),
    ("agent-str", "name: x\ncontract_version: '1.0'\nagent: pkg.Agent\nevolvable_layers: [skills]\n", "'agent'"),
]


@pytest.mark.parametrize(("text", "key"), [(t, k) for _, t, k in BAD], ids=[i for i, _, _ in BAD])
def test_bad_field_names_file_and_key_and_writes_nothing(ws_dir: Path, snap, text: str, key: str) -> None:
    (ws_dir / "manifest.yaml").write_text(text, encoding="utf-8")
    before = snap(ws_dir)
    with pytest.raises(ManifestError) as info:
        load_manifest(ws_dir)
    message = str(info.value)
    assert "manifest.yaml" in message and key in message, message
    problems = validate_workspace(ws_dir)
    assert any("manifest.yaml" in p and key in p for p in problems), problems
    assert snap(ws_dir) == before


@pytest.mark.parametrize(
    ("text", "problem"),
    [("name: [unclosed\n", "not valid YAML"), ("", "is empty"), ("- a\n", "must be a YAML mapping")],
)
def test_unreadable_manifest(ws_dir: Path, text: str, problem: str) -> None:
    (ws_dir / "manifest.yaml").write_text(text)
    with pytest.raises(ManifestError, match=problem) as info:
        load_manifest(ws_dir)
    assert "manifest.yaml" in str(info.value)


def test_several_problems_all_reported(ws_dir: Path) -> None:
    (ws_dir / "manifest.yaml").write_text("name: x\nagent: {}\nevolvable_layers: [weights]\nreload_strategy: warm\n")
    with pytest.raises(ManifestError) as info:
        load_manifest(ws_dir)
    for key in ("contract_version", "agent.entrypoint", "evolvable_layers", "reload_strategy"):
        assert key in str(info.value)


def test_unquoted_contract_version_accepted(ws_dir: Path) -> None:
    assert (ws_dir / "manifest.yaml").read_text() == MANIFEST
    (ws_dir / "manifest.yaml").write_text(MANIFEST.replace('"1.0"', "1.0"))
    assert load_manifest(ws_dir).contract_version == "1.0"
