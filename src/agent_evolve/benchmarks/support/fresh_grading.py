"""Grade a diff as SWE-bench's harness does: in a fresh checkout at the base, never where the agent acted, by a
pytest without plugins, cache or repository configuration whose JUnit XML report decides (docs/security.md).

Like FAIL_TO_PASS / PASS_TO_PASS, `score` is the share of hidden tests that pass (0 when a visible test fails);
`success` needs every test to pass."""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Collection, Sequence

from agent_evolve.benchmarks.support.env_grading import KILL_ALL, PYTEST_RUNNER, in_container
from agent_evolve.benchmarks.support.pytest_output import (PytestReport, ReportError, disagreement,
                                                          parse_junit_report, parse_pytest_output)
from agent_evolve.environments.task_env import EnvironmentPathError, TaskEnvironment
from agent_evolve.types import Feedback

PATCH_FILE = ".agent-evolve-fix.patch"
PYTEST_ARGS = ("-rA", "-p", "no:cacheprovider", "-c", "/dev/null", "-o", "junit_family=xunit1")
PYTEST_ENV = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1"
"""Entry-point plugins stay off; `python3 -I` already ignores PYTHON* variables and the user site."""
REPORT_NAME = "report.xml"
CONSOLE_NAME = "console.log"


def apply_patch(environment: TaskEnvironment, patch: str) -> str | None:
    """`git apply` the diff in the work tree; None when it applied (or is empty), else git's message."""
    if not patch.strip():
        return None
    environment.write_file(PATCH_FILE, patch)
    applied = environment.exec(f"git apply --whitespace=nowarn {PATCH_FILE}; status=$?; rm -f {PATCH_FILE}; "
                               "exit $status")
    return None if applied.exit_code == 0 else (applied.output.strip() or f"exit code {applied.exit_code}")


def isolated_pytest_command(targets: Sequence[str], folder: str, container: bool) -> str:
    """The shell command of one isolated run writing into `folder` (made fresh here); its exit status is pytest's."""
    quoted = shlex.quote(folder)
    args = " ".join(shlex.quote(a) for a in (*PYTEST_ARGS, "--junitxml", f"{folder}/{REPORT_NAME}", *targets))
    run = f'{PYTEST_ENV} python3 -I -c {shlex.quote(PYTEST_RUNNER)} --rootdir "$PWD" {args}'
    ending = f"{KILL_ALL}; " if container else ""
    return (f"rm -rf {quoted} && mkdir {quoted} || exit 90; ( {run} ) > {quoted}/{CONSOLE_NAME} 2>&1; "
            f"status=$?; {ending}exit $status")


def _read_or_none(environment: TaskEnvironment, path: str) -> str | None:
    """A work-tree file's text, None when it is not there or not a regular file of the work tree."""
    try:
        return environment.read_file(path)
    except (FileNotFoundError, IsADirectoryError, EnvironmentPathError):
        return None


def _file_of(test_id: str) -> str:
    """The file part of a pytest id (`tests/test_x.py::test_y[param]` -> `tests/test_x.py`)."""
    return test_id.split("::", 1)[0].removeprefix("./")


def grade_hidden(report: PytestReport, hidden_files: Collection[str], *, timed_out: bool = False) -> Feedback:
    """Score the run: hidden tests (by file) must pass, every other test must not fail."""
    hidden = {name: status for name, status in report.tests.items() if _file_of(name) in hidden_files}
    hidden_failing = sorted(name for name in report.failing if name in hidden)
    visible_failing = sorted(name for name in report.failing if name not in hidden)
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


def grade_isolated_pytest(environment: TaskEnvironment, targets: Sequence[str], hidden_files: Collection[str],
                          timeout_s: float) -> Feedback:
    """Run the targets isolated in the (fresh) environment and score the run: its XML report decides, and fails the
    run when missing or unlike the console log."""
    folder = f".agent-evolve-grading-{uuid.uuid4().hex}"
    command = isolated_pytest_command(targets, folder, in_container(environment))
    result = environment.exec(command, timeout_s=timeout_s)
    console = _read_or_none(environment, f"{folder}/{CONSOLE_NAME}") or result.output
    xml = _read_or_none(environment, f"{folder}/{REPORT_NAME}")
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
