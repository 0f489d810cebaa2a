"""The hard-subset tool with a fake, deterministic baseline, and benchmarks loaded from its subset file."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evolve.benchmarks.adapters.gsm8k import GSM8KBenchmark
from agent_evolve.benchmarks.support.hard_subset import select_hard_subset, write_subset
from agent_evolve.benchmarks.adapters.jsonl import JsonlBenchmark
from agent_evolve.errors import ConfigError
from agent_evolve.types import Task, Trajectory


def kind(task_id: str) -> str:
    """The fake baseline's behaviour on a task, fixed by the hash of its id."""
    value = int(hashlib.sha256(task_id.encode()).hexdigest(), 16)
    return "always" if value % 2 == 0 else ("flaky" if value % 4 == 1 else "never")


def fake_solver(answer: Callable[[Task], str]) -> Callable[[Task], Trajectory]:
    """Solves 'always' tasks every time, 'flaky' ones on odd-numbered attempts, 'never' ones never."""
    attempts: Counter[str] = Counter()
    lock = threading.Lock()

    def solve(task: Task) -> Trajectory:
        with lock:
            attempts[task.id] += 1
            attempt = attempts[task.id]
        solved = kind(task.id) == "always" or (kind(task.id) == "flaky" and attempt % 2 == 1)
        return Trajectory(task_id=task.id, output=answer(task) if solved else "wrong")

    return solve


@pytest.fixture()
def bench(tmp_path: Path) -> JsonlBenchmark:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({"id": f"t{i}", "input": f"q{i}", "answer": "ok"}) + "\n" for i in range(40)))
    return JsonlBenchmark(path, test_fraction=0.5)


def ids(bench: JsonlBenchmark, split: str) -> list[str]:
    return [t.id for t in bench.get_tasks(split, None)]


def test_keeps_exactly_the_tasks_not_always_solved(bench: JsonlBenchmark) -> None:
    subset = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=3, seed=0)
    assert set(subset["train"]) == {i for i in ids(bench, "train") if kind(i) != "always"}
    assert set(subset["test"]) == {i for i in ids(bench, "test") if kind(i) != "always"}
    assert subset["train"] and subset["test"]
    rates = subset["meta"]["pass_rates"]
    assert set(rates) == set(ids(bench, "train") + ids(bench, "test"))
    assert all(rates[i] == {"always": 1.0, "flaky": 2 / 3, "never": 0.0}[kind(i)] for i in rates)
    assert {key: subset["meta"][key] for key in ("k", "seed", "benchmark")} == {"k": 3, "seed": 0, "benchmark": "jsonl"}


def test_can_drop_never_solved_tasks(bench: JsonlBenchmark) -> None:
    subset = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=3, drop_never_solved=True)
    every = ids(bench, "train") + ids(bench, "test")
    assert set(subset["train"] + subset["test"]) == {i for i in every if kind(i) == "flaky"}


def test_is_deterministic_given_the_seed_whatever_the_workers(bench: JsonlBenchmark) -> None:
    first = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=3, n_train=4, n_test=3, seed=5)
    again = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=3, n_train=4, n_test=3, seed=5, workers=4)
    assert first == again
    other = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=3, n_train=4, n_test=3, seed=6)
    assert (other["train"], other["test"]) != (first["train"], first["test"])


def test_caps_stop_probing_early(bench: JsonlBenchmark) -> None:
    subset = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=2, n_train=2, n_test=1)
    assert len(subset["train"]) == 2 and len(subset["test"]) == 1
    assert all(kind(i) != "always" for i in subset["train"] + subset["test"])
    assert set(subset["train"]) <= set(ids(bench, "train")) and set(subset["test"]) <= set(ids(bench, "test"))
    assert len(subset["meta"]["pass_rates"]) < 40


def test_pool_source_splits_the_hard_tasks_itself(bench: JsonlBenchmark) -> None:
    subset = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=3, n_train=5, n_test=3, split_source="pool")
    assert len(subset["train"]) == 5 and len(subset["test"]) == 3
    assert set(subset["train"]).isdisjoint(subset["test"])
    assert all(kind(i) != "always" for i in subset["train"] + subset["test"])


def test_bad_arguments(bench: JsonlBenchmark) -> None:
    solve = fake_solver(lambda t: "ok")
    with pytest.raises(ConfigError, match="k and workers"):
        select_hard_subset(solve, bench, k=0)
    with pytest.raises(ConfigError, match="needs both n_train and n_test"):
        select_hard_subset(solve, bench, split_source="pool", n_train=3)
    with pytest.raises(ConfigError, match="split_source"):
        select_hard_subset(solve, bench, split_source="everything")  # type: ignore[arg-type]


def test_a_benchmark_loaded_with_the_subset_serves_only_its_ids(bench: JsonlBenchmark, tmp_path: Path) -> None:
    subset = select_hard_subset(fake_solver(lambda t: "ok"), bench, k=3, seed=0)
    path = write_subset(tmp_path / "hard.json", subset)
    written = json.loads(path.read_text())
    assert written["train"] == subset["train"] and written["meta"]["k"] == 3 and "pass_rates" in written["meta"]
    narrowed = JsonlBenchmark(bench.path, test_fraction=0.5, subset=path)
    assert ids(narrowed, "train") == subset["train"] and ids(narrowed, "test") == subset["test"]
    assert ids(narrowed, "train")[:2] == [t.id for t in narrowed.get_tasks("train", 2)]


def test_works_on_a_real_benchmark(tmp_path: Path) -> None:
    gsm = GSM8KBenchmark()
    subset = select_hard_subset(fake_solver(lambda t: f"Answer: {gsm.gold(t.id)}"), gsm, k=2, n_train=3, n_test=2)
    assert all(kind(i) != "always" for i in subset["train"] + subset["test"])
    narrowed = GSM8KBenchmark(subset=write_subset(tmp_path / "gsm8k-hard.json", subset))
    assert [t.id for t in narrowed.get_tasks("train", None)] == subset["train"]
    assert [t.id for t in narrowed.get_tasks("test", None)] == subset["test"]
