"""The swe-mini verdict, like SWE-bench's FAIL_TO_PASS / PASS_TO_PASS: `score` is the share of hidden tests that
pass (0 when a visible test fails); `success` needs every test to pass."""

from __future__ import annotations

from collections.abc import Collection

from agent_evolve.benchmarks.support.junit_report import ReportError, disagreement, parse_junit_report
from agent_evolve.benchmarks.support.pytest_output import PytestReport, parse_pytest_output
from agent_evolve.environments.task_env import CommandResult
from agent_evolve.types import Feedback

FAILING = ("failed", "error", "xpassed")


def _file_of(test_id: str) -> str:
    """The file part of a pytest id (`tests/test_x.py::test_y[param]` -> `tests/test_x.py`)."""
    return test_id.split("::", 1)[0].removeprefix("./")


def grade_hidden(report: PytestReport, hidden_files: Collection[str], *, timed_out: bool = False) -> Feedback:
    """Score the run: hidden tests (by file) must pass, every other test must not fail."""
    hidden = {name: status for name, status in report.tests.items() if _file_of(name) in hidden_files}
    visible = {name: status for name, status in report.tests.items() if _file_of(name) not in hidden_files}
    hidden_failing = sorted(name for name, status in hidden.items() if status in FAILING)
    visible_failing = sorted(name for name, status in visible.items() if status in FAILING)
    hidden_passed = sum(status in ("passed", "xfailed") for status in hidden.values())
    raw = {"tests": report.tests, "counts": report.counts, "hidden_passed": hidden_passed,
           "hidden_total": len(hidden), "hidden_failing": hidden_failing, "visible_failing": visible_failing}
    if timed_out:
        return Feedback(False, 0.0, f"the tests ran out of time; {report.describe()}", raw={**raw, "timed_out": True})
    if not hidden:
        return Feedback(False, 0.0, f"no hidden test ran; {report.describe()}", raw=raw)
    score = 0.0 if visible_failing else hidden_passed / len(hidden)
    success = not hidden_failing and not visible_failing and hidden_passed == len(hidden)
    parts = [f"hidden tests: {hidden_passed}/{len(hidden)} passed"]
    if visible_failing:
        parts.append(f"visible tests broken: {', '.join(visible_failing)}")
    parts.append(report.describe())
    return Feedback(success, round(score, 4), "; ".join(parts), raw=raw)


def grade_isolated_run(xml: str | None, console: str, result: CommandResult, hidden_files: Collection[str]) -> Feedback:
    """Score a `fresh_grading` run: its XML report decides, and fails the run when missing or unlike the console."""
    shown = parse_pytest_output(console)
    raw = {"exit_code": result.exit_code, "test_output": console[-4000:]}
    report = shown  # what a run that timed out is graded on
    if not result.timed_out:
        try:
            if xml is None:
                raise ReportError("pytest wrote no XML report")
            report = parse_junit_report(xml)
        except ReportError as exc:
            return Feedback(False, 0.0, f"no usable test report: {exc}; {shown.describe()}", raw=raw)
        problem = disagreement(report, shown, result.exit_code)
        if problem is not None:
            return Feedback(False, 0.0, f"the test run is not consistent: {problem}",
                            raw={**raw, "tests": report.tests})
    feedback = grade_hidden(report, hidden_files, timed_out=result.timed_out)
    feedback.raw.update(raw)
    return feedback
