"""swe-mini: every shipped repository is a valid task (visible tests pass, hidden ones fail, the fix passes)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.suites.swe_mini import DATA_DIR, SweMiniBenchmark, load_swe_tasks
from agent_evolve.environments import open_environment
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.registry import benchmark_class
from agent_evolve.types import Trajectory

TASK_IDS = sorted(p.name for p in DATA_DIR.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> SweMiniBenchmark:
    return SweMiniBenchmark(repos_dir=tmp_path_factory.mktemp("repos"))


def test_the_suite_is_registered_and_large_enough() -> None:
    assert benchmark_class("swe-mini") is SweMiniBenchmark
    tasks = load_swe_tasks(DATA_DIR)
    assert len(tasks) >= 15 and len({t.kind for t in tasks}) >= 10


def test_splits_are_deterministic_and_disjoint(bench: SweMiniBenchmark) -> None:
    train, test = bench.get_tasks("train", None), bench.get_tasks("test", None)
    assert {t.id for t in train} | {t.id for t in test} == set(TASK_IDS)
    assert not {t.id for t in train} & {t.id for t in test} and len(test) == round(len(TASK_IDS) * 0.3)
    again = SweMiniBenchmark(repos_dir=bench.repos_dir)
    assert [t.id for t in again.get_tasks("train", None)] == [t.id for t in train]
    assert [t.id for t in SweMiniBenchmark(seed=1, repos_dir=bench.repos_dir).get_tasks("test", None)] != \
        [t.id for t in test]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_hidden_tests_fail_at_the_base_and_pass_after_the_reference_fix(bench: SweMiniBenchmark, task_id: str) -> None:
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == task_id)
    record = bench._index.get(task_id, bench.name)
    with open_environment(bench.environment(task)) as env:
        assert env.diff() == "" and not set(record.hidden_tests()) & set(env.list_files())
        at_base = bench.evaluate_in(task, Trajectory(task.id, ""), env)
        visible_passed = [name for name, status in at_base.raw["tests"].items()
                          if status == "passed" and name.split("::")[0] in record.visible_tests()]
        assert visible_passed and not at_base.raw["visible_failing"], at_base.detail
        assert not at_base.success and at_base.raw["hidden_passed"] < at_base.raw["hidden_total"]
        env.write_file("fix.patch", (record.root / "fix.patch").read_text())
        assert env.exec("git apply fix.patch && rm fix.patch").exit_code == 0
        fixed = bench.evaluate_in(task, Trajectory(task.id, ""), env)
    assert fixed.success and fixed.score == 1.0, fixed.detail


def test_a_diff_answered_in_text_is_applied_and_graded(bench: SweMiniBenchmark) -> None:
    task = bench.get_tasks("test", 1)[0]
    patch = (bench._index.get(task.id, bench.name).root / "fix.patch").read_text()
    feedback = bench.evaluate(task, Trajectory(task.id, f"Here is the fix:\n```diff\n{patch}```"))
    assert feedback.success and feedback.score == 1.0, feedback.detail


def test_the_agent_never_sees_the_hidden_tests(bench: SweMiniBenchmark) -> None:
    for task in bench.get_tasks("train", None) + bench.get_tasks("test", None):
        hidden = bench._index.get(task.id, bench.name).hidden_tests()
        shown = task.input + repr(task.metadata)
        assert not any(path in shown or text.strip() in shown for path, text in hidden.items())
        assert task.metadata["visible_tests"] and task.input.startswith("# ")


def test_the_checkout_is_a_git_repository_at_the_base_commit(bench: SweMiniBenchmark) -> None:
    task = bench.get_tasks("train", 1)[0]
    with open_environment(bench.environment(task)) as env:
        head = env.exec("git rev-parse HEAD")
        assert head.exit_code == 0 and head.output.strip() == task.metadata["base_commit"]
        env.write_file("notes.txt", "new\n")
        assert "notes.txt" in env.diff()


def test_base_commits_are_the_same_on_every_build(bench: SweMiniBenchmark, tmp_path: Path) -> None:
    other = SweMiniBenchmark(repos_dir=tmp_path / "elsewhere")
    assert [t.metadata["base_commit"] for t in other.get_tasks("test", None)] == \
        [t.metadata["base_commit"] for t in bench.get_tasks("test", None)]


def test_a_fix_that_breaks_a_visible_test_scores_zero(bench: SweMiniBenchmark) -> None:
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None)
                if t.id == "pagekit-last-page")
    with open_environment(bench.environment(task)) as env:
        source = env.read_file("pagekit/pages.py")
        env.write_file("pagekit/pages.py", source.replace("return total // per_page + 1",
                                                          "return max(1, -(-total // per_page)) if total != 11 else 0"))
        env.write_file("tests/test_pages.py", "def test_nothing():\n    pass\n")
        feedback = bench.evaluate_in(task, Trajectory(task.id, ""), env)
    assert not feedback.success and feedback.score == 0.0
    assert feedback.raw["visible_failing"] == ["tests/test_pages.py::test_partial_last_page"]


def test_an_answer_without_a_diff_or_with_a_bad_one_fails(bench: SweMiniBenchmark) -> None:
    task = bench.get_tasks("train", 1)[0]
    assert bench.evaluate(task, Trajectory(task.id, "I fixed it.")).detail == "the answer holds no diff to apply"
    bad = "```diff\n--- a/nope.py\n+++ b/nope.py\n@@ -1,1 +1,1 @@\n-x\n+y\n```"
    feedback = bench.evaluate(task, Trajectory(task.id, bad))
    assert not feedback.success and feedback.detail.startswith("the diff does not apply")


def test_the_preflight_names_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SweMiniBenchmark(repos_dir=tmp_path / "r").check_ready()
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(MissingDependencyError, match="swe-mini needs `git`"):
        SweMiniBenchmark(repos_dir=tmp_path / "r").check_ready()


def test_backend_choice_and_errors(tmp_path: Path) -> None:
    docker = SweMiniBenchmark("docker", image="my/python:1", repos_dir=tmp_path / "r")
    spec = docker.environment(docker.get_tasks("train", 1)[0])
    assert (spec.backend, spec.image, spec.commit is not None) == ("docker", "my/python:1", True)
    with pytest.raises(ConfigError, match=r"unknown environment backend 'podman'"):
        SweMiniBenchmark("podman")


def test_a_broken_task_folder_is_named(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR / TASK_IDS[0], data / "one")
    (data / "one" / "fix.patch").unlink()
    with pytest.raises(ConfigError, match=r"one/fix.patch: missing"):
        SweMiniBenchmark(data_dir=data).get_tasks()
    shutil.rmtree(data / "one" / "hidden")
    (data / "one" / "hidden").mkdir()
    (data / "one" / "fix.patch").write_text("")
    with pytest.raises(ConfigError, match=r"one/hidden: holds no test file"):
        SweMiniBenchmark(data_dir=data).get_tasks()


def test_a_subset_keeps_the_environment(bench: SweMiniBenchmark, tmp_path: Path) -> None:
    subset = tmp_path / "subset.json"
    subset.write_text('{"train": ["pagekit-last-page"], "test": ["tally-top-ties"]}')
    view = resolve_benchmark(bench, subset=str(subset))
    task = view.get_tasks("train")[0]
    spec = view.environment(task)
    assert spec is not None and spec.commit == task.metadata["base_commit"]
