"""Grade a diff as SWE-bench's harness does: in a fresh checkout at the base, never where the agent acted.

`run_isolated_pytest` runs pytest without plugins, cache or repository configuration and reads the verdict from
a JUnit XML report in a folder the same command makes fresh (see docs/security.md).
"""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from agent_evolve.benchmarks.support.env_grading import PYTEST_RUNNER, end_leftovers
from agent_evolve.environments.task_env import CommandResult, EnvironmentPathError, TaskEnvironment

PATCH_FILE = ".agent-evolve-fix.patch"
PYTEST_ARGS = ("-rA", "-p", "no:cacheprovider", "-c", "/dev/null", "-o", "junit_family=xunit1")
PYTEST_ENV = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1"
"""Entry-point plugins stay off; `python3 -I` already ignores PYTHON* variables and the user site."""
REPORT_NAME = "report.xml"
CONSOLE_NAME = "console.log"


@dataclass(frozen=True)
class IsolatedRun:
    """One isolated pytest run: how its command ended, the console log, and the XML report (None if none)."""

    result: CommandResult
    console: str
    xml: str | None


def apply_patch(environment: TaskEnvironment, patch: str) -> str | None:
    """`git apply` the diff in the work tree; None when it applied (or is empty), else git's message."""
    if not patch.strip():
        return None
    environment.write_file(PATCH_FILE, patch)
    applied = environment.exec(f"git apply --whitespace=nowarn {PATCH_FILE}; status=$?; rm -f {PATCH_FILE}; "
                               "exit $status")
    return None if applied.exit_code == 0 else (applied.output.strip() or f"exit code {applied.exit_code}")


def isolated_pytest_command(targets: Sequence[str], folder: str, kill_leftovers: str) -> str:
    """The shell command of one isolated run writing into `folder` (made fresh here); its exit status is pytest's."""
    quoted = shlex.quote(folder)
    args = " ".join(shlex.quote(a) for a in (*PYTEST_ARGS, "--junitxml", f"{folder}/{REPORT_NAME}", *targets))
    run = f'{PYTEST_ENV} python3 -I -c {shlex.quote(PYTEST_RUNNER)} --rootdir "$PWD" {args}'
    ending = f"{kill_leftovers}; " if kill_leftovers else ""
    return (f"rm -rf {quoted} && mkdir {quoted} || exit 90; ( {run} ) > {quoted}/{CONSOLE_NAME} 2>&1; "
            f"status=$?; {ending}exit $status")


def run_isolated_pytest(environment: TaskEnvironment, targets: Sequence[str], timeout_s: float) -> IsolatedRun:
    """Run the targets in the (fresh) environment and read back the console log and the XML report."""
    folder = f".agent-evolve-grading-{uuid.uuid4().hex}"
    result = environment.exec(isolated_pytest_command(targets, folder, end_leftovers(environment)),
                              timeout_s=timeout_s)
    return IsolatedRun(result, _read_or_none(environment, f"{folder}/{CONSOLE_NAME}") or result.output,
                       _read_or_none(environment, f"{folder}/{REPORT_NAME}"))


def _read_or_none(environment: TaskEnvironment, path: str) -> str | None:
    """A work-tree file's text, None when it is not there or not a regular file of the work tree."""
    try:
        return environment.read_file(path)
    except (FileNotFoundError, IsADirectoryError, EnvironmentPathError):
        return None
