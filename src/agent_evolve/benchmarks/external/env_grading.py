"""Grade inside the environment the agent acted in: copy test files in after its turn, run them, read the verdict.

Shared by the task-folder benchmarks (terminal2, skill-bench, terminal-mini) and swe-mini. Files go in through
the environment's own file methods, so the same code serves the local and the docker backend.
"""

from __future__ import annotations

import base64
import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from agent_evolve.environments.task_env import TaskEnvironment

TESTS_DIR = ".tests"
"""Where a task's tests are copied in the work tree after the agent's turn (they are not there before)."""
PUBLISHED_TESTS = "/tests"
"""Where Terminal-Bench and Harbor test scripts expect them; filled too where the backend can write it."""
REWARD_FILE = "/logs/verifier/reward.txt"


def put_file(environment: TaskEnvironment, path: str, data: bytes) -> None:
    """Write one file of the work tree; bytes that are not UTF-8 text go through base64 in a command."""
    try:
        environment.write_file(path, data.decode("utf-8"))
        return
    except UnicodeDecodeError:
        pass
    parent = os.path.dirname(path) or "."
    encoded = base64.b64encode(data).decode("ascii")
    done = environment.exec(f"mkdir -p {shlex.quote(parent)} && printf %s {encoded} | base64 -d > {shlex.quote(path)}")
    if done.exit_code != 0:
        raise OSError(f"could not copy {path} into the task environment: {done.output.strip()[-300:]}")


def put_files(environment: TaskEnvironment, files: Mapping[str, bytes]) -> None:
    """Write several files of the work tree (work-tree path -> bytes)."""
    for path, data in files.items():
        put_file(environment, path, data)


def folder_files(folder: Path, prefix: str) -> dict[str, bytes]:
    """`prefix/relative path` -> bytes of every file under `folder`."""
    return {f"{prefix}/{p.relative_to(folder)}": p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def tests_command(script: str | None) -> str:
    """Put the copied tests at /tests where the backend can write there (docker), then run the task's script.

    Published test scripts read `$TEST_DIR` or `/tests` and may write the Harbor reward file; in the local backend
    only the work tree is writable, so the tests stay in `.tests/` and `$TEST_DIR` points there.
    """
    run = f'bash "$TEST_DIR/{script}"' if script else 'python3 -m pytest "$TEST_DIR/test_outputs.py" -rA'
    return (f"rm -f {REWARD_FILE} 2>/dev/null; "
            f"if mkdir -p {PUBLISHED_TESTS} /logs/verifier 2>/dev/null && cp -r {TESTS_DIR}/. {PUBLISHED_TESTS}/ "
            f'2>/dev/null; then export TEST_DIR={PUBLISHED_TESTS}; else export TEST_DIR="$PWD/{TESTS_DIR}"; fi; '
            f"{run}")


def read_reward(environment: TaskEnvironment) -> float | None:
    """The Harbor verifier's reward, when the test script wrote one."""
    found = environment.exec(f"cat {REWARD_FILE}", timeout_s=30)
    if found.exit_code != 0:
        return None
    try:
        return float(found.output.strip())
    except ValueError:
        return None


def keep_tail(command: str, max_bytes: int = 12_000) -> str:
    """`command` with only the end of its output shown (where pytest's summary is), its exit status kept."""
    log = "/tmp/agent-evolve-tests.log"
    return f"( {command} ) > {log} 2>&1; status=$?; tail -c {max_bytes} {log}; exit $status"
