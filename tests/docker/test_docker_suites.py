"""The shipped suites and the task-folder benchmarks in real containers: acted on, then graded in the container."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

import _pytest
import iniconfig
import packaging
import pluggy
import py
import pygments
from agent_evolve.benchmarks.adapters.skill_bench import SkillBenchBenchmark
from agent_evolve.benchmarks.suites.swe_mini import SweMiniBenchmark
from agent_evolve.benchmarks.suites.terminal_mini import DATA_DIR as TERMINAL_MINI
from agent_evolve.benchmarks.adapters.terminal2 import Terminal2Benchmark
from agent_evolve.environments import open_environment
from agent_evolve.types import Trajectory

PYTEST_TAG = "agent-evolve-test/python-pytest:3"
SKILL = "---\nname: conf-files\ndescription: Edit key = value files in place with sed.\n---\n\nUse sed -i.\n"


@pytest.fixture(scope="module")
def pytest_image(python_image: str, docker_client: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The python image with this interpreter's pytest copied in (pure Python; nothing is downloaded).

    `py` is pytest's one-file shim (`py.py`, imported by `_pytest.compat` since pytest 7.2), so single-file
    modules are copied as files and packages as folders.
    """
    if docker_client.images.list(name=PYTEST_TAG):
        return PYTEST_TAG
    context = tmp_path_factory.mktemp("pytest-image")
    (context / "site").mkdir()
    for module in (pytest, _pytest, py, pluggy, iniconfig, packaging, pygments):
        source = Path(str(module.__file__))
        if source.name == "__init__.py":
            shutil.copytree(source.parent, context / "site" / module.__name__)
        else:
            shutil.copy2(source, context / "site" / source.name)
        site = source.parent.parent if source.name == "__init__.py" else source.parent
        for info in site.glob("*.dist-info"):  # metadata too: pluggy 1.6+ reads its version from it
            if info.name.lower().startswith(module.__name__.lower() + "-"):
                shutil.copytree(info, context / "site" / info.name, dirs_exist_ok=True)
    (context / "Dockerfile").write_text(f"FROM {python_image}\nCOPY site/ /usr/local/lib/python3.11/dist-packages/\n")
    docker_client.images.build(path=str(context), tag=PYTEST_TAG, rm=True)
    return PYTEST_TAG


def test_a_swe_mini_fix_made_in_the_container_is_graded_there(pytest_image: str, containers: Any,
                                                              tmp_path: Path) -> None:
    bench = SweMiniBenchmark("docker", image=pytest_image, repos_dir=tmp_path / "repos")
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "tally-top-ties")
    with open_environment(bench.environment(task)) as env:
        assert env.backend == "docker" and env.exec("git rev-parse HEAD").output.strip() == task.metadata["base_commit"]
        source = env.read_file("tally/counts.py")
        env.write_file("tally/counts.py", source.replace("n: int = 3", "n: int = 2"))
        wrong = bench.evaluate_in(task, Trajectory(task.id, ""), env)
        env.write_file("tally/counts.py", source.replace("n: int = 3", "n: int | None = None").replace(
            "return ordered[:n]", "return ordered if n is None else ordered[:n]"))
        right = bench.evaluate_in(task, Trajectory(task.id, ""), env)
    assert not wrong.success and wrong.score == 0.0
    assert right.success and right.score == 1.0, right.detail


@pytest.fixture
def task_folder(pytest_image: str, tmp_path: Path) -> Path:
    """terminal-mini's config-edit task on the test image, with a skill of its own."""
    root = Path(shutil.copytree(TERMINAL_MINI / "config-edit", tmp_path / "tasks" / "config-edit"))
    (root / "environment" / "Dockerfile").write_text(f"FROM {pytest_image}\nWORKDIR /app\nCOPY server.conf /app/\n")
    (root / "environment" / "skills" / "conf-files").mkdir(parents=True)
    (root / "environment" / "skills" / "conf-files" / "SKILL.md").write_text(SKILL)
    return root.parent


def test_a_terminal_task_is_built_acted_on_and_graded_in_its_container(task_folder: Path, containers: Any) -> None:
    bench = Terminal2Benchmark(data_path=str(task_folder), backend="docker")
    task = (bench.get_tasks("train", None) + bench.get_tasks("test", None))[0]
    solution = (task_folder / "config-edit" / "solution" / "solve.sh").read_text()
    with open_environment(bench.environment(task)) as env:
        assert env.backend == "docker" and env.workdir == "/app" and "tests/test.sh" not in env.list_files()
        untouched = bench.evaluate_in(task, Trajectory(task.id, ""), env)
    with open_environment(bench.environment(task)) as env:
        assert env.exec(f"bash -c {shlex.quote(solution)}").exit_code == 0
        solved = bench.evaluate_in(task, Trajectory(task.id, "done"), env)
    assert not untouched.success and untouched.raw["backend"] == "docker"
    assert solved.success and solved.score == 1.0, solved.detail


def test_skill_bench_skills_are_in_the_container_workdir(task_folder: Path, containers: Any) -> None:
    bench = SkillBenchBenchmark(data_path=str(task_folder), backend="docker")
    task = (bench.get_tasks("train", None) + bench.get_tasks("test", None))[0]
    assert "(/app/.claude/skills/conf-files/SKILL.md)" in task.input
    with open_environment(bench.environment(task)) as env:
        shown = env.exec("cat /app/.claude/skills/conf-files/SKILL.md && ls /app")
    assert shown.exit_code == 0 and "Use sed -i." in shown.output and "server.conf" in shown.output


PASS_EVERYTHING = ("import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                   "    outcome = yield\n    report = outcome.get_result()\n"
                   "    report.outcome, report.longrepr = 'passed', None\n")
LEFT_RUNNING = ("nohup sh -c 'while :; do mkdir -p .tests; "
                "printf \"def test_ok():\\n    pass\\n\" > .tests/test_outputs.py; "
                "echo \"==== 3 passed in 0.01s ====\" >> /tmp/agent-evolve-tests.log; sleep 0.02; done' "
                "> /dev/null 2>&1 < /dev/null &")
"""What an agent may leave running in its container: a writer of the copied tests and of the old fixed log path."""


def test_a_swe_mini_container_with_steering_and_a_process_left_running_earns_nothing(
        pytest_image: str, containers: Any, tmp_path: Path) -> None:
    bench = SweMiniBenchmark("docker", image=pytest_image, repos_dir=tmp_path / "repos")
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "tally-top-ties")
    with open_environment(bench.environment(task)) as env:
        env.write_file("conftest.py", PASS_EVERYTHING)
        env.write_file("pytest.ini", "[pytest]\naddopts = -p forge\n")
        env.write_file("forge.py", PASS_EVERYTHING)
        assert env.exec(LEFT_RUNNING).exit_code == 0
        feedback = bench.evaluate_in(task, Trajectory(task.id, ""), env)
    assert not feedback.success and feedback.score < 1.0, feedback.detail
    assert {"conftest.py", "pytest.ini"} <= set(feedback.raw["dropped"])


def test_a_terminal_container_with_a_process_left_running_and_planted_config_earns_nothing(
        task_folder: Path, containers: Any) -> None:
    bench = Terminal2Benchmark(data_path=str(task_folder), backend="docker")
    task = (bench.get_tasks("train", None) + bench.get_tasks("test", None))[0]
    with open_environment(bench.environment(task)) as env:
        for folder in ("/tmp", "/app"):
            env.exec(f"printf '%s' {shlex.quote(PASS_EVERYTHING)} > {folder}/conftest.py")
        assert env.exec(LEFT_RUNNING).exit_code == 0
        feedback = bench.evaluate_in(task, Trajectory(task.id, ""), env)
        survivors = env.exec("sleep 0.5; for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done "
                             "| grep -c 'agent-evolve-tests[.]log'")
    assert not feedback.success and feedback.score < 1.0 and feedback.raw["reward"] is None, feedback.detail
    assert survivors.output.strip() == "0", "the agent's writer outlived the grading"
