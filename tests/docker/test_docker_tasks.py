"""Tasks solved inside real containers by a scripted agent that reads what its commands printed, then graded.

The agent is the package's tool loop (`run_tool_loop`) driven by a ScriptedLLM whose later replies are computed
from the observations the loop fed back; its tools call the docker task environment.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from agent_evolve.environments.task_env import CommandResult, EnvironmentSpec, TaskEnvironment, open_environment
from agent_evolve.llm.base import Completion, Message, ToolCall, ToolSpec
from agent_evolve.llm.tool_loop import Tool, ToolLoopResult, run_tool_loop
from agent_evolve.testing import ScriptedLLM

BUGGY = "def mean(values):\n    return sum(values) / (len(values) + 1)\n"
HIDDEN_TEST = ("import unittest\nfrom stats import mean\n\n\nclass T(unittest.TestCase):\n"
               "    def test_mean(self):\n        self.assertEqual(mean([1, 2, 3]), 2)\n")


def tools(env: TaskEnvironment) -> list[Tool]:
    """bash, read and write over the environment, as an acting agent has them."""
    def obj(**props: str) -> dict[str, object]:
        return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}, "required": list(props)}

    return [Tool(ToolSpec("bash", "Run a shell command in the task", obj(command="string")),
                 lambda a: env.exec(a["command"]).render()),
            Tool(ToolSpec("read", "Read a file", obj(path="string")), lambda a: env.read_file(a["path"])),
            Tool(ToolSpec("write", "Write a file", obj(path="string", content="string")),
                 lambda a: (env.write_file(a["path"], a["content"]), "written")[1])]


def call(name: str, **arguments: str) -> Completion:
    return Completion(text="", tool_calls=[ToolCall(id=f"c-{name}", name=name, arguments=dict(arguments))])


def last_observation(messages: list[Message]) -> str:
    return next(m.content for m in reversed(messages) if m.role == "tool")


def act(env: TaskEnvironment, task: str, script: list[object]) -> ToolLoopResult:
    return run_tool_loop(ScriptedLLM(script), [Message("user", task)], tools(env), max_turns=len(script))  # type: ignore[arg-type]


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
        result = act(env, instruction, [call("bash", command="cat numbers.txt"), sum_what_was_seen, "Done."])
        outcome = grade(env, {"tests/check.sh": check}, "sh tests/check.sh")
    assert before.exit_code != 0, "the task is not solved before the agent acts"
    assert [e.call.name for e in result.executed] == ["bash", "bash"] and result.stop_reason == "final"
    assert "17\n25\n8\n" in result.executed[0].output and "[exit code 0]" in result.executed[0].output
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

    def fix_what_was_read(messages: list[Message]) -> Completion:
        source = last_observation(messages)
        return call("write", path="stats.py", content=source.replace("(len(values) + 1)", "len(values)"))

    spec = EnvironmentSpec(backend="docker", image=python_image, git_repo=str(repo), commit=base, workdir="/repo")
    with open_environment(spec) as env:
        script = [call("bash", command="python3 -c 'from stats import mean; print(mean([1, 2, 3]))'"),
                  call("read", path="stats.py"), fix_what_was_read,
                  call("bash", command="python3 -c 'from stats import mean; print(mean([1, 2, 3]))'"), "Fixed."]
        result = act(env, issue, script)
        patch = env.diff()
    assert "1.5" in result.executed[0].output and "2.0" in result.executed[3].output
    assert patch.count("diff --git") == 1, "bytecode is left out of the diff"
    assert patch.startswith("diff --git a/stats.py b/stats.py") and "+    return sum(values) / len(values)" in patch
    assert _grade_patch(python_image, repo, base, "").exit_code != 0, "the hidden test fails before the fix"
    graded = _grade_patch(python_image, repo, base, patch)
    assert graded.exit_code == 0, graded.output
