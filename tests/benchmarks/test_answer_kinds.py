"""Answer kinds are declared by a benchmark for all its tasks or per task, carried in served tasks, and given a
documented default in task files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_evolve.benchmarks.answer_kinds import (ANSWER_KIND_KEY, ANSWER_KINDS, UNDECLARED, declared_kind, kind_of,
                                                 short_answers)
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.adapters.jsonl import JsonlBenchmark
from agent_evolve.benchmarks.support.splits import TaskSplits, serve
from agent_evolve.benchmarks.adapters.subset_view import SubsetView
from agent_evolve.benchmarks.adapters.task_list import TaskList
from agent_evolve.errors import ConfigError
from agent_evolve.types import Task


class Declared(BenchmarkAdapter):
    answer_kind = "choice"

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        tasks = {"a": Task("a", "pick one"), "b": Task("b", "how many?", {ANSWER_KIND_KEY: "number"})}
        return serve(tasks, TaskSplits(("a", "b"), ()), split, limit, self.answer_kind)


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def kinds(bench: BenchmarkAdapter) -> dict[str, str]:
    return {t.id: t.metadata.get(ANSWER_KIND_KEY) for t in bench.get_tasks("train", None)}


def test_the_six_kinds_and_the_undeclared_default() -> None:
    assert ANSWER_KINDS == ("number", "text", "choice", "code", "free", "actions")
    assert BenchmarkAdapter.answer_kind is None and UNDECLARED == "free"
    task = Task("t", "q")
    assert declared_kind(task) is None and kind_of(task) == "free" and kind_of(task, "number") == "number"


def test_a_benchmark_declares_a_kind_for_all_tasks_and_a_task_overrides_it() -> None:
    bench = Declared()
    assert kinds(bench) == {"a": "choice", "b": "number"}
    assert bench.kind_of(Task("x", "q")) == "choice"
    assert bench.kind_of(Task("y", "q", {ANSWER_KIND_KEY: "code"})) == "code"


def test_an_unknown_kind_is_an_error_naming_the_task() -> None:
    with pytest.raises(ConfigError, match=r"task 'x'.*'essay'"):
        kind_of(Task("x", "q", {ANSWER_KIND_KEY: "essay"}))


def test_a_task_file_line_declares_its_kind_and_the_file_argument_covers_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [{"id": "a", "input": "q", "answer": "Paris"},
                                        {"id": "b", "input": "q", "answer": "B", "answer_kind": "choice"},
                                        {"id": "c", "input": "q", "answer": "x", "metadata": {"answer_kind": "free"}}])
    assert kinds(JsonlBenchmark(path, test_fraction=0.0)) == {"a": "text", "b": "choice", "c": "free"}
    assert kinds(JsonlBenchmark(path, test_fraction=0.0, answer_kind="choice")) == {
        "a": "choice", "b": "choice", "c": "free"}


def test_a_task_files_default_kind_follows_its_grader_and_answers(tmp_path: Path) -> None:
    numbers = write(tmp_path / "n.jsonl", [{"input": "q", "answer": "42"}, {"input": "q", "answer": 3.5}])
    words = write(tmp_path / "w.jsonl", [{"input": "q", "answer": "42"}, {"input": "q", "answer": "Paris"}])
    dates = write(tmp_path / "d.jsonl", [{"input": "q", "answer": "03/05/2021"}, {"input": "q", "answer": "3/4"}])
    assert set(kinds(JsonlBenchmark(numbers, grader="regex", test_fraction=0.0)).values()) == {"number"}, "all numbers"
    assert set(kinds(JsonlBenchmark(words, test_fraction=0.0)).values()) == {"text"}, "exact grader"
    assert set(kinds(JsonlBenchmark(words, grader="regex", test_fraction=0.0)).values()) == {"text"}, "short lines"
    assert set(kinds(JsonlBenchmark(numbers, grader="numeric", test_fraction=0.0)).values()) == {"number"}
    assert set(kinds(JsonlBenchmark(dates, grader="regex", test_fraction=0.0)).values()) == {"text"}, "a date"
    prose = write(tmp_path / "p.jsonl", [{"input": "q", "answer": "Paris"}, {"input": "q", "answer": "word " * 20}])
    assert set(kinds(JsonlBenchmark(prose, grader="regex", test_fraction=0.0)).values()) == {"free"}, "prose"


def test_short_one_line_answers_read_as_text_and_nothing_else_does() -> None:
    assert short_answers(["red", 4, "03/05/2021", "apple, pear, plum"])
    for answers in (["red", "a line\nand another"], ["red", "x" * 81], ["red", None], ["red", "  "], []):
        assert not short_answers(answers), answers


def test_an_exact_task_file_of_numbers_is_text_so_a_program_answer_can_match(tmp_path: Path) -> None:
    """The exact grader compares the whole reply: a number task's program answer (its code, then `Answer: 42`)
    never matches, a text task's (the printed answer alone) does."""
    from agent_evolve.agents.answering.program import answer_with_program
    from agent_evolve.types import Trajectory

    bench = JsonlBenchmark(write(tmp_path / "n.jsonl", [{"id": "a", "input": "6*7?", "answer": "42"},
                                                         {"id": "b", "input": "1+1?", "answer": 2}]),
                           test_fraction=0.0)
    assert set(kinds(bench).values()) == {"text"}
    task = bench.get_tasks("train", None)[0]
    output, _ = answer_with_program("```python\nprint(6 * 7)\n```", kind=bench.kind_of(task))
    assert bench.evaluate(task, Trajectory(task.id, output)).success, output


def test_bad_kinds_in_a_task_file_name_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.jsonl", [{"input": "q", "answer": "a"}, {"input": "q", "answer": "b",
                                                                          "answer_kind": "essay"}])
    with pytest.raises(ConfigError, match=r"bad\.jsonl, line 2.*'essay'"):
        JsonlBenchmark(path)
    with pytest.raises(ConfigError, match=r"ok\.jsonl.*'prose'"):
        JsonlBenchmark(write(tmp_path / "ok.jsonl", [{"input": "q", "answer": "a"}]), answer_kind="prose")


def test_a_task_list_and_a_subset_view_keep_the_declared_kinds(tmp_path: Path) -> None:
    listed = TaskList([{"input": "q"}, {"input": "r", "answer_kind": "code"}], lambda example, output: True,
                      answer_kind="text")
    assert kinds(listed) == {"0": "text", "1": "code"}
    assert kinds(TaskList([{"input": "q"}], lambda example, output: True)) == {"0": None}
    subset = tmp_path / "subset.json"
    subset.write_text(json.dumps({"train": ["a"], "test": []}))
    view = SubsetView(Declared(), subset)
    assert kinds(view) == {"a": "choice"} and view.kind_of(Task("z", "q")) == "choice"


def test_the_command_line_declares_a_task_files_answer_kind(tmp_path: Path) -> None:
    from agent_evolve.api import resolve_benchmark
    from agent_evolve.cli.run import build_config

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"input": "2+2?", "expected": "4"}\n{"input": "Capital of France?", "expected": "Paris"}\n')
    config = build_config(None, answer_kind="text")
    assert resolve_benchmark(f"jsonl:{tasks}", config=config).answer_kind == "text"
    with pytest.raises(ConfigError, match="answer kind 'word' is unknown"):
        resolve_benchmark(f"jsonl:{tasks}", config=build_config(None, answer_kind="word"))
    with pytest.raises(ConfigError, match="answer_kind applies to jsonl"):
        resolve_benchmark("gsm8k", config=config)
