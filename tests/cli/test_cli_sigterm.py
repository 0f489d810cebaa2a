"""SIGTERM stops a run the way Ctrl-C does: its task environment is closed, the lock released, the run resumable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_evolve.engine.records import RunRecords, run_is_live

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from wire_servers import Reply, WireServer  # noqa: E402 - the shared loopback model server

SRC = Path(__file__).resolve().parents[2] / "src"


def test_sigterm_mid_task_closes_its_environment_and_exits_143(tmp_path: Path) -> None:
    server = WireServer(lambda request: Reply(hang=True)).start()  # every model call waits: the run is mid-task
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(SRC), "TMPDIR": str(scratch), "OPENAI_API_KEY": "sk-test",
           "AGENT_EVOLVE_CACHE": str(tmp_path / "cache")}
    workspace = tmp_path / "ws"
    command = [sys.executable, "-m", "agent_evolve.cli.main", "run", "--agent", "terminal", "--benchmark",
               "terminal-mini", "--workspace", str(workspace), "--model", "openai/test-model", "--base-url",
               server.url + "/v1", "--concurrency", "1", "--cycles", "1", "--no-preflight"]
    proc = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert server.requests, "the run never asked the model"
        opened = list(scratch.glob("agent-evolve-task-*"))
        assert opened, "the task's environment is open while its model call waits"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.stop()
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert "stopped by SIGTERM" in stderr
    assert not list(scratch.glob("agent-evolve-task-*")), "the task environment was closed"
    assert not run_is_live(RunRecords(workspace)), "the run lock was released"
