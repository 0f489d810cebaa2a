"""A scripted model drives the swe seed's tool loop on a swe-mini task: a right fix passes, a wrong one fails."""

from __future__ import annotations

from pathlib import Path

from agent_evolve.benchmarks.suites.swe_mini import SweMiniBenchmark
from agent_evolve.engine.solving import attempt
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Observation

BUG = "return total // per_page + 1"
TESTS = "python -m pytest -q -p no:cacheprovider tests"


def _solve(scripted_agent, tmp_path: Path, new_text: str) -> tuple[Observation, ScriptedLLM]:
    bench = SweMiniBenchmark(repos_dir=tmp_path / "repos")
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None)
                if t.id == "pagekit-last-page")
    agent, llm = scripted_agent("swe", [
        ("bash", {"command": f"ls && {TESTS}"}),
        ("view", {"path": "pagekit/pages.py"}),
        ("edit", {"path": "pagekit/pages.py", "old_text": BUG, "new_text": new_text}),
        ("bash", {"command": TESTS}),
        ("submit", {"summary": "page_count rounds up now"}),
    ])
    return attempt(agent, bench, task), llm


def test_the_right_fix_is_graded_a_success(scripted_agent, tmp_path: Path) -> None:
    observation, llm = _solve(scripted_agent, tmp_path, "return (total + per_page - 1) // per_page")
    calls = [s for s in observation.trajectory.steps if s["type"] == "tool_call"]
    assert [c["name"] for c in calls] == ["bash", "view", "edit", "bash", "submit"]
    assert "pagekit" in calls[0]["output"] and "passed" in calls[3]["output"]
    assert "page_count" in llm.calls[0].messages[1].content
    feedback = observation.feedback
    assert feedback.success and feedback.score == 1.0, feedback.detail
    assert feedback.raw["hidden_passed"] == feedback.raw["hidden_total"] == 3


def test_a_wrong_fix_is_graded_a_failure(scripted_agent, tmp_path: Path) -> None:
    observation, _ = _solve(scripted_agent, tmp_path, "return total // per_page")
    feedback = observation.feedback
    assert not feedback.success and feedback.score == 0.0
    assert "tests/test_pages.py::test_partial_last_page" in feedback.raw["visible_failing"]
