"""The live display in a real terminal (tmux): the baseline score is shown, and the clock ticks while a slow
phase sends no events."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
MANIFEST = """name: slow-word
version: 0.1.0
contract_version: "1.0"
agent: {type: custom, entrypoint: cli_fakes.SlowLastWordAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""
LIVE_LINE = re.compile(r"solving train tasks (\d+)/3 tasks .*\| (\d+)s")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_live_line_ticks_and_shows_the_baseline(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "system.md").write_text("quiet\n")
    (agent / "manifest.yaml").write_text(MANIFEST)
    rows = [{"id": f"q{i}", "input": f"say word{i}", "answer": f"WORD{i}"} for i in range(20)]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    command = shlex.join([sys.executable, "-m", "agent_evolve.cli.main", "run", "--agent", str(agent), "--benchmark",
                          f"jsonl:{tmp_path / 'tasks.jsonl'}", "--engine", "demos", "--cycles", "1", "--batch-size",
                          "3", "--holdout-limit", "2", "--concurrency", "1", "--no-preflight"])
    env = f"PYTHONPATH={shlex.quote(os.pathsep.join([str(SRC), str(HERE)]))} AGENT_EVOLVE_CACHE={tmp_path / 'cache'}"
    tmux = ["tmux", "-L", f"ae-{uuid.uuid4().hex[:8]}"]
    subprocess.run([*tmux, "new-session", "-d", "-x", "160", "-y", "40", f"cd {tmp_path} && env {env} {command}; sleep 60"],
                   check=True)
    seen: dict[int, set[int]] = {}
    screen = ""
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any(len(s) > 1 for s in seen.values()):
            if "evolution summary" in screen:
                break  # the run ended
            screen = subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout or screen
            for done, seconds in LIVE_LINE.findall(screen):
                seen.setdefault(int(done), set()).add(int(seconds))
            time.sleep(0.2)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    assert any(len(clock) > 1 for clock in seen.values()), f"the clock never moved between events: {seen}\n{screen}"
    assert "baseline holdout score 0.000 (2 tasks)" in screen, screen
