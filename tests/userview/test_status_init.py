"""status while a run is live (a real subprocess) and after it stopped; init from every template."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_evolve.cli.main import cli
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.userview.init import TEMPLATES

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(HERE), os.environ.get("PYTHONPATH", "")])}


def cli_status(workspace: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", "from agent_evolve.cli.main import main; main()", "status", str(workspace), "--json"],
        env=ENV, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def status_here(workspace: Path) -> dict:
    result = CliRunner().invoke(cli, ["status", str(workspace), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_status_reads_a_live_run_without_disturbing_it(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    run = subprocess.Popen(
        [sys.executable, str(HERE / "userview_fakes.py"), str(workspace), "2"],
        env={**ENV, "USERVIEW_SOLVE_DELAY": "0.15"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    seen: list[dict] = []
    deadline = time.monotonic() + 120
    while run.poll() is None and time.monotonic() < deadline:
        if (workspace / "evolution" / "journal.jsonl").exists():
            seen.append(status_here(workspace))  # in this process: a poll costs no interpreter start
        time.sleep(0.1)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    live = [s for s in seen if s["live"]]
    assert live, "status saw the run while it was live"
    assert any(s["cycle"] >= 1 and s["tasks_done"] >= 0 for s in live)
    assert {s["phase"] for s in live} - {"scoring the baseline"}, "a phase past the baseline was seen"
    final = cli_status(workspace)
    assert final["live"] is False and final["cycles_recorded"] == 2 and final["tasks_done"] == 8
    assert final["finished"] and final["phase"] == "finished: all cycles done" and final["cycle"] == 2


def test_status_tolerates_a_torn_last_line(run_copy: Path) -> None:
    with (run_copy / "evolution" / "journal.jsonl").open("a") as handle:
        handle.write('{"cycle": 4, "phase": "sol')
    result = CliRunner().invoke(cli, ["status", str(run_copy), "--json"])
    assert result.exit_code == 0, result.output
    status = json.loads(result.output)
    assert status["cycle"] == 4 and status["accepted_tag"] == "evo-3" and status["accepted_score"] == 1.0


@pytest.mark.parametrize("template", TEMPLATES)
def test_init_makes_a_valid_workspace_with_a_readme(tmp_path: Path, template: str) -> None:
    target = tmp_path / template
    result = CliRunner().invoke(cli, ["init", str(target), "--template", template])
    assert result.exit_code == 0, result.output
    assert validate_workspace(target) == []
    readme = (target / "README.md").read_text()
    assert f"`{template}` template" in readme and "`manifest.yaml`" in readme and "skills/<name>/SKILL.md" in readme


def test_init_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["init", str(tmp_path), "--template", "gsm8k"])
    assert result.exit_code == 1 and "refusing to overwrite" in result.output
    assert (tmp_path / "notes.txt").read_text() == "mine"
