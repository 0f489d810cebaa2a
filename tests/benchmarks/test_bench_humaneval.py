"""HumanEval: the real 164 problems, graded in the sandbox."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent_evolve.benchmarks.adapters import humaneval
from agent_evolve.benchmarks.adapters.humaneval import HumanEvalBenchmark
from agent_evolve.benchmarks.support.splits import write_subset
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Task, Trajectory


@pytest.fixture(scope="module")
def bench() -> HumanEvalBenchmark:
    return HumanEvalBenchmark(timeout_s=5.0)


def _task(bench: HumanEvalBenchmark, task_id: str) -> Task:
    return next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == task_id)


def _grade(bench: HumanEvalBenchmark, task_id: str, output: str):
    return bench.evaluate(_task(bench, task_id), Trajectory(task_id=task_id, output=output))


def test_dataset_and_splits(bench: HumanEvalBenchmark) -> None:
    train, test = bench.get_tasks("train", None), bench.get_tasks("test", None)
    assert len(train) == len(test) == 82
    assert {t.id for t in train}.isdisjoint({t.id for t in test})
    assert len({t.id for t in train + test}) == 164
    assert [t.id for t in bench.get_tasks("train", 5)] == [t.id for t in HumanEvalBenchmark().get_tasks("train", 5)]
    assert {t.id for t in HumanEvalBenchmark(seed=1).get_tasks("test", None)} != {t.id for t in test}
    assert bench.name == "humaneval"


def test_tasks_never_carry_the_canonical_solution_or_the_tests(bench: HumanEvalBenchmark) -> None:
    for task in bench.get_tasks("train", None) + bench.get_tasks("test", None):
        assert set(task.metadata) == {"entry_point", "prompt", "answer_kind"}
        assert "def check(candidate)" not in task.input + str(task.metadata)
        assert task.metadata["prompt"] in task.input and "```python" in task.input
        solution = bench.canonical_solution(task.id)
        assert solution not in task.input and all(solution not in str(v) for v in task.metadata.values())


def test_served_tasks_are_copies_and_the_grader_ignores_their_metadata(bench: HumanEvalBenchmark) -> None:
    task = bench.get_tasks("train", 1)[0]
    task.metadata["prompt"] = "changed"
    task.metadata["test"] = "def check(candidate):\n    pass\n"
    assert bench.get_tasks("train", 1)[0].metadata["prompt"] != "changed"
    assert not bench.evaluate(task, Trajectory(task_id=task.id, output="    return None\n")).success


def test_feedback_does_not_carry_the_tests(bench: HumanEvalBenchmark) -> None:
    feedback = _grade(bench, "HumanEval/0", "    return False\n")
    assert "def check(candidate)" not in str(feedback.raw)


def test_all_164_canonical_solutions_pass(bench: HumanEvalBenchmark) -> None:
    tasks = bench.get_tasks("train", None) + bench.get_tasks("test", None)

    def grade(task: Task) -> tuple[str, bool, str]:
        feedback = bench.evaluate(task, Trajectory(task_id=task.id, output=bench.canonical_solution(task.id)))
        return task.id, feedback.success, feedback.detail

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(grade, tasks))
    failures = [(task_id, detail) for task_id, ok, detail in results if not ok]
    assert len(results) == 164 and failures == []


def test_a_full_function_in_a_fence_passes(bench: HumanEvalBenchmark) -> None:
    task = _task(bench, "HumanEval/10")  # its prompt defines a helper the completion may use
    full = task.metadata["prompt"] + bench.canonical_solution(task.id)
    feedback = _grade(bench, task.id, f"Here is my solution.\n\n```python\n{full}```\n\nDone.")
    assert feedback.success and feedback.score == 1.0 and feedback.raw["extraction"] == "function"


def test_a_wrong_solution_fails_and_says_which_test(bench: HumanEvalBenchmark) -> None:
    wrong = "```python\ndef has_close_elements(numbers, threshold):\n    return False\n```"
    feedback = _grade(bench, "HumanEval/0", wrong)
    assert not feedback.success and feedback.score == 0.0
    assert feedback.detail.startswith("a test failed at `assert candidate(")
    assert feedback.raw["error_type"] == "AssertionError"


def test_an_exception_is_named(bench: HumanEvalBenchmark) -> None:
    feedback = _grade(bench, "HumanEval/0", "    return undefined_name\n")
    assert not feedback.success
    assert "NameError" in feedback.detail and "undefined_name" in feedback.detail


def test_an_endless_loop_times_out_cleanly() -> None:
    bench = HumanEvalBenchmark(timeout_s=2.0)
    endless = "```python\ndef has_close_elements(numbers, threshold):\n    while True: pass\n```"
    feedback = _grade(bench, "HumanEval/0", endless)
    assert not feedback.success and feedback.raw["timed_out"]
    assert feedback.detail.startswith("timed out after 2s")
    assert feedback.raw["duration_s"] < 5.0


def test_there_is_no_network(bench: HumanEvalBenchmark) -> None:
    body = "    import socket\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n    return True\n"
    feedback = _grade(bench, "HumanEval/0", body)
    assert not feedback.success and "unreachable" in feedback.detail


def test_writing_outside_fails_and_leaves_nothing(bench: HumanEvalBenchmark, tmp_path: Path) -> None:
    target = tmp_path / "pwned.txt"
    body = f"    open({str(target)!r}, 'w').write('x')\n    return True\n"
    feedback = _grade(bench, "HumanEval/0", body)
    assert not feedback.success and "FileNotFoundError" in feedback.detail
    assert not target.exists()


def test_a_memory_bomb_fails(bench: HumanEvalBenchmark) -> None:
    feedback = _grade(bench, "HumanEval/0", "    x = [0] * (10 ** 10)\n    return True\n")
    assert not feedback.success and "MemoryError" in feedback.detail


def test_exiting_before_the_tests_does_not_pass(bench: HumanEvalBenchmark) -> None:
    code = "```python\nimport sys\nsys.exit(0)\ndef has_close_elements(numbers, threshold):\n    return False\n```"
    assert not _grade(bench, "HumanEval/0", code).success


def test_empty_output_has_no_code(bench: HumanEvalBenchmark) -> None:
    feedback = _grade(bench, "HumanEval/0", "")
    assert not feedback.success and feedback.detail == "no code found in output"


def test_unknown_task_is_a_config_error(bench: HumanEvalBenchmark) -> None:
    with pytest.raises(ConfigError, match="not a HumanEval task id"):
        bench.evaluate(Task(id="HumanEval/999", input=""), Trajectory(task_id="HumanEval/999", output=""))


def test_subset_file_narrows_the_tasks(tmp_path: Path) -> None:
    path = write_subset(tmp_path / "hard.json", {"train": ["HumanEval/3", "HumanEval/1"], "test": ["HumanEval/2"]})
    bench = HumanEvalBenchmark(subset=path)
    assert [t.id for t in bench.get_tasks("train", None)] == ["HumanEval/3", "HumanEval/1"]
    assert [t.id for t in bench.get_tasks("test", None)] == ["HumanEval/2"]


def test_missing_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str):
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr(humaneval.resources, "files", missing)
    with pytest.raises(MissingDependencyError, match=r"pip install 'agent-evolve\[data\]'"):
        HumanEvalBenchmark()
