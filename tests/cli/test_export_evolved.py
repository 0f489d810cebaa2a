"""Exports carry what evolved: the README main job's accepted change (prompts/program.md + prompts/check.yaml),
reproduced without a model, reaches CLAUDE.md / AGENTS.md with --with-prompt, or the export exits non-zero naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import agent_evolve as ae
from agent_evolve.cli.main import cli
from agent_evolve.export.coverage import HOSTS, plan_export
from agent_evolve.types import StepResult, Task, Trajectory

PROGRAM = "Write a Python program that prints the answer. EVOLVED-PROGRAM-PROMPT\n"
CHECK = "redraws: 2\ntemperature: 0.8\nanswer:\n  whole: true\n  min: 0\ncross_check: 2\n"
MANIFEST = """name: program-agent
version: 0.1.0
contract_version: "1.0"
agent:
  type: custom
  entrypoint: agent_evolve.protocol.base_agent.BaseAgent
evolvable_layers: [prompts, skills, memory, tools]
reload_strategy: hot
"""
SKILL = "---\nname: units\ndescription: TRIGGER when units mix. DO NOT TRIGGER otherwise.\n---\n\nConvert first.\n"


class ProgramAgent(ae.BaseAgent):
    """Right (the task's last word) only once the workspace has a program prompt, as the main job's agent gains."""

    def solve(self, task: Task) -> Trajectory:
        right = self.workspace.read_program_prompt() is not None
        return Trajectory(task_id=task.id, output=task.input.split()[-1] if right else "?")


class LastWordTasks(ae.BenchmarkAdapter):
    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return [Task(id=f"t{i}", input=f"say w{i}") for i in range(12)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> ae.Feedback:
        ok = trajectory.output == task.input.split()[-1]
        return ae.Feedback(success=ok, score=float(ok))


class WriteFiles(ae.EvolutionEngine):
    """Cycle 1 writes `files`, as the demos engine's cross-check candidate does."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        for rel, text in self.files.items():
            (Path(workspace.path) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(workspace.path) / rel).write_text(text)
        return StepResult(mutated=True, summary="program answers, cross-checked")


def evolved_run(path: Path, files: dict[str, str]) -> Path:
    (path / "prompts").mkdir(parents=True)
    (path / "prompts" / "system.md").write_text("Answer with the last word.\n")
    (path / "manifest.yaml").write_text(MANIFEST)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1, evolve_tools=True)
    result = ae.Evolver(ProgramAgent(path), LastWordTasks(), config, WriteFiles(files)).run(1)
    assert result.details["accepted"] == 1, result.details
    return path


@pytest.fixture(scope="module")
def main_job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run whose accepted change is the README main job's: prompts/program.md and prompts/check.yaml."""
    return evolved_run(tmp_path_factory.mktemp("main") / "ws", {"prompts/program.md": PROGRAM, "prompts/check.yaml": CHECK})


def export(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["export", *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_main_job_export_without_the_prompt_exits_non_zero_naming_the_evolved_files(main_job: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = export(str(main_job), str(out), "--to", "claude-code")
    assert code == 1
    assert "prompts/program.md" in err and "prompts/check.yaml" in err and "--with-prompt" in err
    assert not out.exists(), "nothing is written when an evolved file would be dropped"


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_with_prompt_carries_the_evolved_program_prompt_and_answer_settings(main_job: Path, tmp_path: Path, host: str) -> None:
    out = tmp_path / "out"
    code, stdout, err = export(str(main_job), str(out), "--to", host, "--with-prompt")
    assert code == 0, err
    section = (out / HOSTS[host].instructions_file).read_text()
    assert "EVOLVED-PROGRAM-PROMPT" in section, "--with-prompt writes the evolved prompt, not the original"
    assert "Answer with the last word." in section
    assert "cross_check: 2" in section and "whole number of at least 0" in section
    assert "accepted version evo-1" in stdout and "prompts/program.md" in stdout and "warning" not in err


def test_allow_partial_exports_and_warns_naming_what_it_left_out(main_job: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = export(str(main_job), str(out), "--to", "codex", "--allow-partial")
    assert code == 0
    assert "warning: evolved file not exported: prompts/program.md" in err
    assert "warning: evolved file not exported: prompts/check.yaml" in err
    assert not (out / "AGENTS.md").exists()


def test_the_export_reads_the_accepted_version_not_edits_left_in_the_folder(main_job: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(main_job, workspace)
    (workspace / "prompts" / "program.md").write_text("an edit never accepted\n")
    out = tmp_path / "out"
    assert export(str(workspace), str(out), "--to", "claude-code", "--with-prompt")[0] == 0
    assert "EVOLVED-PROGRAM-PROMPT" in (out / "CLAUDE.md").read_text()


def test_an_evolved_tool_has_no_place_in_a_host_and_is_named(tmp_path: Path) -> None:
    files = {"prompts/program.md": PROGRAM, "tools/lookup.py": "print(1)\n", "skills/units/SKILL.md": SKILL}
    workspace = evolved_run(tmp_path / "ws", files)
    out = tmp_path / "out"
    code, _, err = export(str(workspace), str(out), "--to", "claude-code", "--with-prompt")
    assert code == 1 and "tools/lookup.py" in err and "prompts/program.md" not in err
    code, stdout, err = export(str(workspace), str(out), "--to", "claude-code", "--with-prompt", "--allow-partial")
    assert code == 0 and (out / ".claude" / "skills" / "units" / "SKILL.md").is_file()
    assert "skills/units/SKILL.md" in stdout and "tools/lookup.py" in err


def test_the_plan_sorts_every_changed_path() -> None:
    changed = ["skills/units/SKILL.md", "skills/_drafts/idea.md", "prompts/fragments/demos.md", "memory/episodic.jsonl",
               "tools/registry.yaml", "skills/gone/SKILL.md", "memory/.gitkeep"]
    present = set(changed) - {"skills/gone/SKILL.md"}
    host = HOSTS["claude-code"]
    plan = plan_export(changed, present, {"units"}, host, with_prompt=False)
    assert set(plan.carried) == {"skills/units/SKILL.md"}
    assert set(plan.dropped) == {"prompts/fragments/demos.md", "memory/episodic.jsonl", "tools/registry.yaml"}
    assert set(plan.ignored) == {"skills/_drafts/idea.md", "skills/gone/SKILL.md", "memory/.gitkeep"}
    with_prompt = plan_export(changed, present, {"units"}, host, with_prompt=True)
    assert set(with_prompt.dropped) == {"tools/registry.yaml"}
    assert with_prompt.carried["prompts/fragments/demos.md"] == "CLAUDE.md section"


def test_the_workspace_is_named_with_w_as_in_every_command(main_job: Path, tmp_path: Path) -> None:
    code, stdout, err = export("-w", str(main_job), str(tmp_path / "out"), "--to", "codex", "--with-prompt")
    assert code == 0, err
    assert "accepted version evo-1" in stdout
    code, _, err = export("-w", str(main_job), str(main_job), str(tmp_path / "two"), "--to", "codex")
    assert code == 2 and "-w WORKSPACE" in err
