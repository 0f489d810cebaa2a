"""A scripted model drives the terminal seed's tool loop on a terminal-mini task; the task's tests decide."""

from __future__ import annotations

import pytest

from agent_evolve.benchmarks.suites.terminal_mini import TerminalMiniBenchmark
from agent_evolve.engine.solving import attempt
from agent_evolve.types import Task

PORT = "sed -i 's/^port = .*/port = 9090/' server.conf"
DEBUG = "sed -i 's/^debug = .*/debug = false/' server.conf"


@pytest.fixture
def task() -> tuple[TerminalMiniBenchmark, Task]:
    bench = TerminalMiniBenchmark()
    return bench, next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None)
                       if t.id == "config-edit")


def test_the_agent_acts_until_it_submits_and_passes(scripted_agent, task: tuple[TerminalMiniBenchmark, Task]) -> None:
    bench, config_edit = task
    agent, llm = scripted_agent("terminal", [
        ("bash", {"command": "pwd && cat server.conf"}),
        ("bash", {"command": f"{PORT} && {DEBUG}"}),
        ("view", {"path": "server.conf"}),
        ("submit", {"summary": "port and debug changed"}),
    ])
    observation = attempt(agent, bench, config_edit)
    calls = [s for s in observation.trajectory.steps if s["type"] == "tool_call"]
    assert calls[0]["output"].startswith("/app\n# server settings") and "port = 9090" in calls[2]["output"]
    assert len(llm.calls) == 4 and observation.feedback.success and observation.feedback.score == 1.0


def test_an_unfinished_job_fails(scripted_agent, task: tuple[TerminalMiniBenchmark, Task]) -> None:
    bench, config_edit = task
    agent, _ = scripted_agent("terminal", [("bash", {"command": PORT}), ("submit", {"summary": "done"})])
    feedback = attempt(agent, bench, config_edit).feedback
    assert not feedback.success and feedback.score == 0.0 and "test_settings_changed_rest_kept" in feedback.detail
