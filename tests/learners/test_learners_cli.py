"""The CLI learner end to end with a stand-in CLI, confined; the presets' command lines and missing-CLI error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from learner_fakes import KeywordAgent, KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.algorithms.cli_learner import CliLearnerEngine
from agent_evolve.algorithms.cli_learner.engine import PROMPT, preset_command
from agent_evolve.algorithms.cli_learner.material import write_material
from agent_evolve.environments import ConfinementUnavailable, backend_for_untrusted_code, python_executable
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Feedback, Observation, Task, Trajectory

HERE = Path(__file__).parent.resolve()
CONFIG = dict(batch_size=4, holdout_ratio=0.2, concurrency=1)


def confined() -> bool:
    try:
        return backend_for_untrusted_code().name != "unconfined"
    except ConfinementUnavailable:
        return False


needs_confinement = pytest.mark.skipif(not confined(), reason="no namespaces here: the learner would be refused")


def run(tmp_path: Path, mode: str, prompt: str = "start\n") -> tuple[Path, ae.EvolutionResult, dict]:
    workspace = make_workspace(tmp_path / "ws", prompt=prompt)
    engine = CliLearnerEngine(command=[python_executable(), str(HERE / "standin_learner.py"), mode],
                              binds=[str(HERE)], timeout_s=60)
    result = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(**CONFIG), engine).run(1)
    log = (workspace / "evolution" / "engine" / "output" / "cycle_1" / "learner.log").read_text()
    return workspace, result, json.loads(log.splitlines()[1])


@needs_confinement
def test_the_stand_in_edits_a_skill_from_the_material_and_the_gate_keeps_it(tmp_path: Path) -> None:
    workspace, result, seen = run(tmp_path, "skill")
    assert "k0 and k1" in (workspace / "skills" / "keywords" / "SKILL.md").read_text()
    assert result.details["accepted"] == 1
    batch = [o.task.id for o in ae.EvolutionHistory(workspace).get_observations()]
    assert sorted(seen["tasks"]) == sorted(batch)                       # the cycle's train batch, nothing else
    assert seen["check_spec"] == [0, "check_spec: OK, the workspace is valid"]
    assert not seen["evolution"] and not seen["git"] and not seen["manifest_writable"]
    assert (workspace / "manifest.yaml").read_text().startswith("name: keywords")


@needs_confinement
def test_the_gate_rejects_a_harmful_edit(tmp_path: Path) -> None:
    workspace, result, _ = run(tmp_path, "harm", prompt="start k0\n")
    assert result.details["accepted"] == 0 and result.details["rejected"] == 1
    assert (workspace / "prompts" / "system.md").read_text() == "start k0\n"


@needs_confinement
def test_check_spec_reports_an_invalid_skill(tmp_path: Path) -> None:
    workspace, result, seen = run(tmp_path, "bad-skill")
    assert seen["check_spec"][0] == 1 and "problem" in seen["check_spec"][1]
    assert not (workspace / "skills" / "Bad_Name").exists() and result.details["accepted"] == 0


def test_material_archives_earlier_steps(tmp_path: Path) -> None:
    obs = [Observation(Task("a/1", "q"), Trajectory("a/1", "out"), Feedback(False, 0.0, "wrong"))]
    write_material(tmp_path, 1, obs, hidden=False)
    write_material(tmp_path, 2, obs, hidden=True)
    assert json.loads((tmp_path / "step_0001" / "summary.json").read_text())["mean_score"] == 0.0
    current = json.loads((tmp_path / "current" / "tasks" / "a_1.json").read_text())
    assert current["output"] == "out" and "judge" not in current                     # hidden scores stay hidden
    assert json.loads((tmp_path / "current" / "summary.json").read_text()) == {"step": 2, "tasks": 1}


@pytest.mark.parametrize("name,expected", [("claude", ["-p", PROMPT, "--permission-mode", "acceptEdits"]),
                                           ("codex", ["exec", "--skip-git-repo-check", "--full-auto", PROMPT])])
def test_presets_build_the_real_command_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                                             expected: list[str]) -> None:
    fake = tmp_path / name
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    argv = preset_command(name)
    assert argv[0] == str(fake) and argv[1:1 + len(expected)] == expected


def test_a_missing_cli_is_a_missing_dependency_naming_the_install(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingDependencyError, match="npm install -g @anthropic-ai/claude-code"):
        preset_command("claude")
    with pytest.raises(ConfigError, match="preset"):
        preset_command("cursor")


def test_a_preset_engine_without_its_cli_fails_when_built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingDependencyError, match="codex"):
        CliLearnerEngine(preset="codex")
