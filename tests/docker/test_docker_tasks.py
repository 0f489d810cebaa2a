"""Tasks solved inside real containers by a scripted agent that reads what its commands printed, then graded.

The agent is the reference agent's acting loop (`agents.acting.act`: bash, view, edit, create, search, submit)
driven by a ScriptedLLM whose later replies are computed from the observations the loop fed back.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from agent_evolve.agents.acting import ActingLimits, ActingResult, OutputMode, act
from agent_evolve.environments.task_env import CommandResult, EnvironmentSpec, TaskEnvironment, open_environment
from agent_evolve.llm.base import Completion, Message, ToolCall
from agent_evolve.testing import ScriptedLLM

BUGGY = "def mean(values):\n    return sum(values) / (len(values) + 1)\n"
HIDDEN_TEST = ("import unittest\nfrom stats import mean\n\n\nclass T(unittest.TestCase):\n"
               "    def test_mean(self):\n        self.assertEqual(mean([1, 2, 3]), 2)\n")
Reply = Completion | Callable[[list[Message]], Completion]


def call(name: str, **arguments: str) -> Completion:
    return Completion(text="", tool_calls=[ToolCall(id=f"c-{name}", name=name, arguments=dict(arguments))])


def last_observation(messages: list[Message]) -> str:
    return next(m.content for m in reversed(messages) if m.role == "tool")


def solve(env: TaskEnvironment, task: str, script: list[Reply], output: OutputMode = "answer") -> ActingResult:
    model = ScriptedLLM([*script, call("submit", summary="done")])
    return act(model, "You act in the task's environment.", task, env, ActingLimits(max_turns=len(script) + 1),
               output=output)


def grade(env: TaskEnvironment, tests: dict[str, str], command: str) -> CommandResult:
    """Copy the task's tests in after the agent is done and run them in the same container."""
    for path, content in tests.items():
        env.write_file(path, content)
    return env.exec(command)


def test_a_terminal_task_is_solved_in_the_container_and_graded_by_its_tests(busybox_image: str,
                                                                          tmp_path: Path) -> None:
    (tmp_path / "numbers.txt").write_text("17\n25\n8\n")
    instruction = "numbers.txt holds integers, one a line. Write their sum to answer.txt."
    check = 'test "$(cat answer.txt)" = "$(awk \'{s+=$1} END {print s}\' numbers.txt)" && echo PASS'

    def sum_what_was_seen(messages: list[Message]) -> Completion:
        seen = [int(n) for n in re.findall(r"^(\d+)$", last_observation(messages), re.M)]
        return call("bash", command=f"echo {sum(seen)} > answer.txt")

    spec = EnvironmentSpec(backend="docker", image=busybox_image, source_dir=str(tmp_path))
    with open_environment(spec) as env:
        before = grade(env, {"tests/check.sh": check}, "sh tests/check.sh")
        env.exec("rm -r tests")
        result = solve(env, instruction, [call("bash", command="cat numbers.txt"), sum_what_was_seen])
        outcome = grade(env, {"tests/check.sh": check}, "sh tests/check.sh")
    assert before.exit_code != 0, "the task is not solved before the agent acts"
    assert [step["name"] for step in result.steps] == ["bash", "bash", "submit"] and result.submitted
    assert "17\n25\n8\n" in result.steps[0]["output"] and "[exit code 0]" in result.steps[0]["output"]
    assert outcome.exit_code == 0 and outcome.output == "PASS\n"


def _repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "stats.py").write_text(BUGGY)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    return repo, subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def _grade_patch(image: str, repo: Path, commit: str, patch: str) -> CommandResult:
    """A fresh checkout at the base commit, the patch applied with git, the hidden tests run."""
    spec = EnvironmentSpec(backend="docker", image=image, git_repo=str(repo), commit=commit, workdir="/repo")
    with open_environment(spec) as env:
        if patch:
            env.write_file("fix.patch", patch)
            applied = env.exec("git apply fix.patch && rm fix.patch")
            assert applied.exit_code == 0, applied.output
        return grade(env, {"test_stats.py": HIDDEN_TEST}, "python3 -m unittest -q test_stats")


def test_a_swe_task_diff_is_applied_and_graded(python_image: str, tmp_path: Path) -> None:
    repo, base = _repo(tmp_path)
    issue = "mean([1, 2, 3]) returns 1.5 instead of 2."

    def fix_what_was_viewed(messages: list[Message]) -> Completion:
        line = next(x for x in last_observation(messages).splitlines() if "return" in x)
        old = line.split("return", 1)[1].strip()
        return call("edit", path="stats.py", old_text=old, new_text=old.replace("(len(values) + 1)", "len(values)"))

    spec = EnvironmentSpec(backend="docker", image=python_image, git_repo=str(repo), commit=base, workdir="/repo")
    with open_environment(spec) as env:
        check = call("bash", command="python3 -c 'from stats import mean; print(mean([1, 2, 3]))'")
        result = solve(env, issue, [check, call("view", path="stats.py"), fix_what_was_viewed, check], "diff")
        patch = result.output
    assert "1.5" in result.steps[0]["output"] and "2.0" in result.steps[3]["output"]
    assert patch.count("diff --git") == 1, "bytecode is left out of the diff"
    assert patch.startswith("diff --git a/stats.py b/stats.py") and "+    return sum(values) / len(values)" in patch
    assert _grade_patch(python_image, repo, base, "").exit_code != 0, "the hidden test fails before the fix"
    graded = _grade_patch(python_image, repo, base, patch)
    assert graded.exit_code == 0, graded.output
