"""Fail fast through the real command line: a run that cannot work exits non-zero in seconds, naming the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
TERMINAL2_TASKS = Path(__file__).resolve().parents[1] / "benchmarks" / "external" / "fixtures" / "terminal2" / "tasks"


def agent_evolve(args: list[str], cwd: Path, *, extra_path: Path | None = None, path_env: str | None = None,
                 drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run `python -m agent_evolve.cli.main ARGS` in a fresh process with a controlled environment."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (extra_path, SRC) if p is not None)
    env["AGENT_EVOLVE_CACHE"] = str(cwd / "cache")
    if path_env is not None:
        env["PATH"] = path_env
    return subprocess.run([sys.executable, "-m", "agent_evolve.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "input": f"{i}+1", "answer": str(i + 1)}) + "\n"
                            for i in range(12)))
    return path


def assert_failed_cleanly(done: subprocess.CompletedProcess[str], workspace: Path, *names: str) -> None:
    assert done.returncode == 1, done.stdout + done.stderr
    error_lines = [line for line in done.stderr.splitlines() if line.startswith("agent-evolve: error:")]
    assert len(error_lines) == 1, done.stderr
    for name in names:
        assert name in error_lines[0], error_lines[0]
    assert not (workspace / "evolution" / "journal.jsonl").exists(), "nothing may be recorded"
    assert not list(workspace.glob("evolution/observations/*")), "no task result may be recorded"


def test_openai_model_without_a_key_names_openai_api_key(tmp_path: Path, tasks: Path) -> None:
    workspace = tmp_path / "ws"
    started = time.monotonic()
    done = agent_evolve(["run", "--agent", "jsonl", "--benchmark", f"jsonl:{tasks}", "--workspace", str(workspace),
                         "--model", "openai/gpt-4.1-mini", "--cycles", "1"], tmp_path,
                        drop=("OPENAI_API_KEY", "OPENAI_BASE_URL"))
    assert time.monotonic() - started < 60
    assert_failed_cleanly(done, workspace, "OPENAI_API_KEY")


def test_local_model_not_installed_names_the_local_extra(tmp_path: Path, tasks: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "llama_cpp.py").write_text('raise ImportError("simulated: llama-cpp-python is not installed")\n')
    workspace = tmp_path / "ws"
    done = agent_evolve(["run", "--agent", "jsonl", "--benchmark", f"jsonl:{tasks}", "--workspace", str(workspace),
                         "--model", "local/qwen2.5-coder-1.5b", "--cycles", "1"], tmp_path, extra_path=broken)
    assert_failed_cleanly(done, workspace, "[local]", "agent model local/qwen2.5-coder-1.5b")


def test_docker_benchmark_without_docker_names_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    no_docker = tmp_path / "bin"
    no_docker.mkdir()
    (no_docker / "git").symlink_to(subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip())
    workspace = tmp_path / "ws"
    done = agent_evolve(["run", "--agent", "terminal", "--benchmark", f"terminal2:{TERMINAL2_TASKS}",
                         "--workspace", str(workspace), "--cycles", "1"], tmp_path, path_env=str(no_docker))
    assert_failed_cleanly(done, workspace, "Docker", "benchmark terminal2")


def test_a_configuration_error_exits_with_status_2_on_one_line(tmp_path: Path, tasks: Path) -> None:
    done = agent_evolve(["run", "--agent", "jsonl", "--benchmark", f"jsonl:{tasks}", "--workspace",
                         str(tmp_path / "ws"), "--engine-param", "no_such_param=1", "--engine", "adaptive"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("agent-evolve: error:") == 1 and "no_such_param" in done.stderr
