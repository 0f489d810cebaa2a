"""Grade inside the environment the agent acted in (task-folder benchmarks): copy the tests in, run them, read the
verdict, through the environment's file methods so one code serves both backends."""

from __future__ import annotations

import base64
import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from agent_evolve.benchmarks.support.common import fenced_blocks
from agent_evolve.benchmarks.support.pytest_output import parse_pytest_output
from agent_evolve.environments.task_env import CommandResult, TaskEnvironment
from agent_evolve.types import Feedback, Trajectory

TESTS_DIR = ".tests"
"""Where a task's tests are copied in the work tree after the agent's turn (they are not there before)."""
PUBLISHED_TESTS = "/tests"
"""Where Terminal-Bench and Harbor test scripts expect them; filled too where the backend can write it."""
REWARD_DIR = "/logs/verifier"
REWARD_FILE = f"{REWARD_DIR}/reward.txt"
REWARD_LINE = "agent-evolve-reward:"
"""Starts the first output line of the tests' command: the reward that command read (empty when none)."""
KILL_ALL = "kill -9 -1 2>/dev/null"
"""Ends every process but the caller's shell (a container's init is spared by the kernel); only in a container."""
PYTEST_RUNNER = ("import os, sys; cwd = os.getcwd(); "
                 "sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != cwd]; "
                 "import pytest; sys.path.insert(0, cwd); raise SystemExit(pytest.console_main())")
"""`python -m pytest` without the work tree shadowing pytest or its dependencies while they are imported."""
SHELL_LANGS = ("bash", "sh", "shell", "")


def put_files(environment: TaskEnvironment, files: Mapping[str, bytes]) -> None:
    """Write files of the work tree (work-tree path -> bytes); bytes that are not UTF-8 text go through base64 in a
    command."""
    for path, data in files.items():
        try:
            environment.write_file(path, data.decode("utf-8"))
        except UnicodeDecodeError:
            parent = os.path.dirname(path) or "."
            encoded = base64.b64encode(data).decode("ascii")
            done = environment.exec(f"mkdir -p {shlex.quote(parent)} && printf %s {encoded} | base64 -d > "
                                    f"{shlex.quote(path)}")
            if done.exit_code != 0:
                raise OSError(f"could not copy {path} into the task environment: {done.output.strip()[-300:]}")


def folder_files(folder: Path, prefix: str) -> dict[str, bytes]:
    """`prefix/relative path` -> bytes of every file under `folder`."""
    return {f"{prefix}/{p.relative_to(folder)}": p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def in_container(environment: TaskEnvironment) -> bool:
    """Whether the environment is a container, whose system paths and leftover processes the grader may touch (outside
    namespaces, AGENT_EVOLVE_ALLOW_UNCONFINED=1, they and `kill -1` would reach the host)."""
    return environment.backend == "docker"


def prepare_command(container: bool) -> str:
    """Before the tests are copied in: end what the agent left running and remove what it left where they go."""
    if not container:
        return f"rm -rf {TESTS_DIR}"
    return f"{KILL_ALL}; rm -rf {TESTS_DIR} {PUBLISHED_TESTS} {REWARD_DIR} 2>/dev/null; true"


def tests_command(script: str | None, container: bool, max_bytes: int = 12_000) -> str:
    """Run the task's script (or pytest on test_outputs.py) and print the reward first, in the same command; the tests
    sit beside an empty `pytest.ini` in /tmp (or in /tests of a writable container), `$TEST_DIR`, out of the agent's
    reach for configuration and conftest files (docs/security.md)."""
    run = (f'bash "$TEST_DIR/{script}"' if script else
           f'python3 -s -c {shlex.quote(PYTEST_RUNNER)} "$TEST_DIR/test_outputs.py" -rA -p no:cacheprovider')
    private = (f'cp -r {TESTS_DIR} "$scratch/tests" && printf "[pytest]\\n" > "$scratch/pytest.ini" || exit 90; '
               'export TEST_DIR="$scratch/tests"')
    if container:
        setup = (f"{KILL_ALL}; rm -rf {REWARD_DIR} 2>/dev/null && mkdir -p {REWARD_DIR} 2>/dev/null && fresh=1; "
                 f"if mkdir -p {PUBLISHED_TESTS} 2>/dev/null && cp -r {TESTS_DIR}/. {PUBLISHED_TESTS}/ "
                 f"2>/dev/null; then export TEST_DIR={PUBLISHED_TESTS}; else {private}; fi")
        ending = f"{KILL_ALL}; "
    else:
        setup, ending = private, ""
    return (f"scratch=$(mktemp -d) || exit 90; fresh=0; {setup}; ( {run} ) > \"$scratch/log\" 2>&1; "
            f"status=$?; {ending}if [ \"$fresh\" = 1 ] && [ -f {REWARD_FILE} ]; then "
            f'printf "{REWARD_LINE}%s\\n" "$(head -c 64 {REWARD_FILE} | tr -d "\\n")"; '
            f'else printf "{REWARD_LINE}\\n"; fi; tail -c {max_bytes} "$scratch/log" | '
            f'sed "s#[./]*${{scratch#/}}/tests/#{PUBLISHED_TESTS}/#g"; exit $status')


def split_reward(output: str) -> tuple[float | None, str]:
    """The reward on the first output line of `tests_command` (None when none was written) and the rest."""
    first, _, rest = output.partition("\n")
    if not first.startswith(REWARD_LINE):
        return None, output
    try:
        return float(first[len(REWARD_LINE):].strip()), rest
    except ValueError:
        return None, rest


def extract_commands(trajectory: Trajectory) -> str:
    """Shell commands of an answer given in text: `command` fields of the steps, else its shell code blocks."""
    from_steps = [step["command"] for step in trajectory.steps if isinstance(step.get("command"), str)]
    if from_steps:
        return "\n".join(from_steps)
    return "\n".join(body for lang, body in fenced_blocks(trajectory.output) if lang in SHELL_LANGS)


def feedback_from_test_run(result: CommandResult, reward: float | None, timeout: float) -> Feedback:
    """A Harbor reward file decides when present; else all parsed pytest tests must pass (partial score)."""
    report = parse_pytest_output(result.output)
    raw = {"tests": report.tests, "counts": report.counts, "reward": reward, "exit_code": result.exit_code}
    if result.timed_out:
        return Feedback(False, 0.0, f"the tests ran past {timeout:g} s and were stopped; {report.describe()}",
                        raw={**raw, "timed_out": True})
    if reward is not None:
        score = min(max(reward, 0.0), 1.0)
        return Feedback(reward >= 1.0, score, f"reward {reward:g}; {report.describe()}", raw=raw)
    success = report.all_passed
    score = 1.0 if success else (report.passed / report.total if report.total else 0.0)
    return Feedback(success, round(score, 4), report.describe(), raw=raw)
