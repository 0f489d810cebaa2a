"""A user's own task files (labels, an extracted string, dates, multiple choice, lists, counts) and an OpenAI-compatible
server: `run` with each engine that needs no extra, then `status`, `history`, `report` and `eval`, end to end
through the loopback model of `fake_openai_server`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai_server import serve  # noqa: E402

from agent_evolve.api import Evolver  # noqa: E402
from agent_evolve.cli.main import cli  # noqa: E402
from agent_evolve.config import EvolveConfig  # noqa: E402

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = serve(sorted(DATA.glob("*.jsonl")))
    yield f"{server.url}/v1"
    server.stop()


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def evolve(url: str, workspace: Path, tasks: str, engine: str, *options: str) -> Result:
    """Two small cycles of `engine` on a task file, the agent and the engine both on the loopback server."""
    return invoke("run", "--agent", "jsonl", "--benchmark", f"jsonl:{DATA / tasks}", "--engine", engine,
                  "--model", "openai/fake", "--base-url", url, "--evolver-model", "openai/fake",
                  "--evolver-base-url", url, "--cycles", "2", "--batch-size", "4", "-w", str(workspace), *options)


def every_version_files(workspace: Path) -> str:
    """The paths of every version the run tagged, accepted or not."""
    return subprocess.run(["git", "-C", str(workspace), "log", "--all", "--name-only", "--format="],
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("engine", ["adaptive", "adaptive_skill", "guided_synth", "skillforge", "ratchet"])
def test_engines_evolve_a_label_file_without_arithmetic_skills(url: str, tmp_path: Path, engine: str) -> None:
    result = evolve(url, tmp_path / "ws", "sentiment.jsonl", engine)
    assert result.exit_code == 0, result.output
    assert "check-each-step" not in every_version_files(tmp_path / "ws"), "an arithmetic skill for sentiment labels"


def test_demos_on_an_exact_date_file_then_the_commands_that_read_the_run(url: str, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    result = evolve(url, workspace, "dates.jsonl", "demos")
    assert result.exit_code == 0 and "learned:" in result.output, result.output
    batch = (workspace / "evolution" / "observations" / "batch_1.jsonl").read_text().splitlines()
    assert {json.loads(line)["task"]["metadata"]["answer_kind"] for line in batch} == {"text"}, "MM/DD/YYYY dates"
    search = json.loads((workspace / "evolution" / "history.jsonl").read_text().splitlines()[0])
    assert "cross-check" not in search["metadata"]["step_metadata"]["search"]["scores"]
    assert invoke("status", "-w", str(workspace)).output.startswith("finished")
    assert "accepted" in invoke("history", "-w", str(workspace)).output
    assert invoke("report", "-w", str(workspace), "-o", str(tmp_path / "r.html")).exit_code == 0
    scored = invoke("eval", "-w", str(workspace), "--benchmark", f"jsonl:{DATA / 'dates.jsonl'}", "--model",
                    "openai/fake", "--base-url", url, "--output", str(tmp_path / "eval.json"))
    assert scored.exit_code == 0 and json.loads((tmp_path / "eval.json").read_text())["score"] == 1.0, scored.output


def test_a_program_answers_an_exact_file_of_numbers(url: str, tmp_path: Path) -> None:
    """The exact grader compares the whole reply: the program prints the bare count, which it accepts."""
    result = evolve(url, tmp_path / "ws", "counts.jsonl", "demos", "--engine-param", "candidates=program")
    assert result.exit_code == 0 and "built-in switch: prompts/program.md" in result.output, result.output


def test_a_model_free_engine_builds_no_engine_model(url: str, tmp_path: Path) -> None:
    """demos calls no model: the embedded default engine model is neither built nor pre-flighted for it."""
    config = EvolveConfig(agent_model="openai/fake", agent_base_url=url)
    evolver = Evolver("jsonl", f"jsonl:{DATA / 'mcq.jsonl'}", config, "demos", str(tmp_path / "ws"))
    assert set(evolver.clients) == {"agent"}


def test_a_run_without_a_gate_reports_train_scores_as_such(url: str, tmp_path: Path) -> None:
    """holdout_ratio 0 keeps every edit unmeasured: the summary, the cycle lines and `history` say train, never a
    holdout score of 0.000 on no holdout."""
    workspace = tmp_path / "ws"
    result = evolve(url, workspace, "dates.jsonl", "demos", "--holdout-ratio", "0")
    assert result.exit_code == 0, result.output
    assert "warning: no gate" in result.stderr and "; train score " in result.stdout
    assert "baseline train score" in result.stdout and "holdout score" not in result.stdout
    history = invoke("history", "-w", str(workspace)).output
    assert "train" in history.splitlines()[1] and "holdout" not in history, history
