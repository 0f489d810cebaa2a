"""JsonlBenchmark: a user's tasks file, every grader, and errors that name the file and line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent_evolve.benchmarks.adapters.jsonl import JsonlBenchmark
from agent_evolve.benchmarks.support.splits import load_subset
from agent_evolve.errors import AgentEvolveError, ConfigError
from agent_evolve.types import Feedback, Task, Trajectory

FIXTURES = Path(__file__).parent / "fixtures"


def _grade(bench: JsonlBenchmark, task_id: str, output: str) -> Feedback:
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == task_id)
    return bench.evaluate(task, Trajectory(task_id=task_id, output=output))


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_loading_ids_splits_and_metadata() -> None:
    bench = JsonlBenchmark(FIXTURES / "tasks.jsonl", test_fraction=0.0)
    train, test = bench.get_tasks("train", None), bench.get_tasks("test", None)
    assert bench.name == "jsonl"
    assert [t.id for t in test] == ["capital-jp"]  # its own "split" wins even at fraction 0
    assert {t.id for t in train} == {"capital-fr", "7", "5"}  # 7 from an int id, 5 from its line number
    task = next(t for t in train if t.id == "capital-fr")
    assert task.input == "What is the capital of France?"
    assert task.metadata == {"topic": "geography", "answer_kind": "text"}
    assert all("answer" not in t.metadata for t in train + test)
    assert bench.answer("7") == "Red"


def test_seeded_split_of_rows_without_a_split(tmp_path: Path) -> None:
    path = _write(tmp_path, *(f'{{"input": "q{i}", "answer": "a{i}"}}' for i in range(50)))
    bench = JsonlBenchmark(path)
    assert len(bench.get_tasks("test", None)) == 10
    assert bench.get_tasks("test", None) == JsonlBenchmark(path).get_tasks("test", None)
    assert {t.id for t in JsonlBenchmark(path, seed=1).get_tasks("test", None)} != {
        t.id for t in bench.get_tasks("test", None)
    }


def test_exact_grader_trims_and_optionally_ignores_case() -> None:
    bench = JsonlBenchmark(FIXTURES / "tasks.jsonl")
    assert _grade(bench, "capital-fr", "  Paris\n").success
    wrong = _grade(bench, "capital-fr", "paris")
    assert not wrong.success and wrong.detail == "expected 'Paris', got 'paris'"
    assert _grade(JsonlBenchmark(FIXTURES / "tasks.jsonl", ignore_case=True), "capital-fr", "PARIS ").success


def test_regex_grader() -> None:
    bench = JsonlBenchmark(FIXTURES / "regex.jsonl", grader="regex")
    assert _grade(bench, "date", "It was 2024-03-15, a Friday.").success
    miss = _grade(bench, "date", "March 15th")
    assert not miss.success and "does not match" in miss.detail
    assert not _grade(bench, "greeting", "Hello there").success
    ignoring_case = JsonlBenchmark(FIXTURES / "regex.jsonl", grader="regex", ignore_case=True)
    assert _grade(ignoring_case, "greeting", "Hello").success


def test_numeric_grader() -> None:
    bench = JsonlBenchmark(FIXTURES / "numeric.jsonl", grader="numeric")
    assert _grade(bench, "add", "2 + 2 = 4").success
    assert _grade(bench, "money", "The answer is $1,234.50.").success
    assert _grade(bench, "neg", "Answer: -5").success
    wrong = _grade(bench, "neg", "Answer: 5")
    assert not wrong.success and wrong.detail == "expected -5, got 5"
    assert _grade(bench, "add", "four").detail == "no number found in output"


def test_callable_grader_gets_the_answer_and_may_return_bool_float_or_feedback() -> None:
    seen: list[Task] = []

    def contains(task: Task, output: str) -> bool:
        seen.append(task)
        return task.metadata["answer"] in output

    bench = JsonlBenchmark(FIXTURES / "tasks.jsonl", grader=contains)
    assert _grade(bench, "capital-fr", "It is Paris.").success
    assert seen[0].metadata == {"topic": "geography", "answer": "Paris"}
    assert bench.get_tasks("train", None)[0].metadata.get("answer") is None

    half = JsonlBenchmark(FIXTURES / "tasks.jsonl", grader=lambda task, output: 0.5)
    partial = _grade(half, "capital-fr", "x")
    assert (partial.success, partial.score) == (False, 0.5)
    full = _grade(JsonlBenchmark(FIXTURES / "tasks.jsonl", grader=lambda task, output: 1.0), "capital-fr", "x")
    assert (full.success, full.score) == (True, 1.0)
    custom = Feedback(True, 0.9, "close enough")
    assert _grade(JsonlBenchmark(FIXTURES / "tasks.jsonl", grader=lambda t, o: custom), "capital-fr", "x") is custom


def test_python_grader_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_graders.py").write_text(
        "def starts_with_answer(task, output):\n    return output.startswith(task.metadata['answer'])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    bench = JsonlBenchmark(FIXTURES / "tasks.jsonl", grader="python:my_graders:starts_with_answer")
    assert _grade(bench, "capital-fr", "Paris, of course").success
    assert not _grade(bench, "capital-fr", "Of course Paris").success
    sys.modules.pop("my_graders", None)


def test_grader_misbehaviour_is_reported() -> None:
    bad_value = JsonlBenchmark(FIXTURES / "tasks.jsonl", grader=lambda t, o: "yes")
    with pytest.raises(AgentEvolveError, match="returned 'yes'"):
        _grade(bad_value, "capital-fr", "x")

    def broken(task: Task, output: str) -> bool:
        raise KeyError("oops")

    with pytest.raises(AgentEvolveError, match="grader broken failed on task 'capital-fr'"):
        _grade(JsonlBenchmark(FIXTURES / "tasks.jsonl", grader=broken), "capital-fr", "x")


@pytest.mark.parametrize(
    ("grader", "message"),
    [
        ("fuzzy", "unknown grader 'fuzzy'"),
        ("python:no_such_module_xyz:f", "cannot load 'f' from module 'no_such_module_xyz'"),
        ("python:json:no_such_function", "cannot load 'no_such_function'"),
        ("python:json:__doc__", "is not callable"),
        ("python:json", "unknown grader"),
    ],
)
def test_bad_grader_specs(grader: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        JsonlBenchmark(FIXTURES / "tasks.jsonl", grader=grader)


GOOD = '{"id": "ok", "input": "q", "answer": "1"}'


@pytest.mark.parametrize(
    ("bad_line", "grader", "message"),
    [
        ('{"input": "q", "answer": ', "exact", "not valid JSON"),
        ('["q", "a"]', "exact", "expected a JSON object, got list"),
        ('{"answer": "a"}', "exact", "missing 'input'"),
        ('{"input": "  ", "answer": "a"}', "exact", "missing 'input'"),
        ('{"input": "q"}', "exact", "missing 'answer' \\(or 'expected'\\)"),
        ('{"input": "q", "answer": "a", "expected": "a"}', "exact", "give either 'answer' or 'expected'"),
        ('{"input": "q", "answer": "a", "split": "holdout"}', "exact", "'split' must be one of"),
        ('{"input": "q", "answer": "a", "metadata": [1]}', "exact", "'metadata' must be a JSON object"),
        ('{"input": "q", "answer": "a", "inptu": "typo"}', "exact", "unknown keys \\['inptu'\\]"),
        ('{"id": null, "input": "q", "answer": "a"}', "exact", "'id' must be"),
        ('{"input": "q", "answer": "(unclosed"}', "regex", "'answer' is not a valid regular expression"),
        ('{"input": "q", "answer": "many"}', "numeric", "'answer' 'many' is not a number"),
        ('{"input": "q", "answer": ["fig", "pear"]}', "exact",
         "'answer' must be a string or a number for the 'exact' grader, got \\[\"fig\", \"pear\"\\]; write a list"),
        ('{"input": "q", "answer": true}', "exact", "'answer' must be a string or a number .*, got true"),
        ('{"input": "q", "answer": {"a": 1}}', "regex", "'answer' must be a string or a number for the 'regex'"),
        ('{"input": "q", "answer": NaN}', "numeric", "'answer' must be a finite number for the 'numeric' grader"),
        ('{"input": "q", "answer": -Infinity}', "exact", "'answer' must be a finite number .*, got -inf"),
        ('{"input": "q", "answer": "a", "metadata": {"x": ' + "[" * 200 + "]" * 200 + "}}", "exact", "JSON nested deeper"),
        ('{"input": "q", "answer": ' + "9" * 5000 + "}", "exact", "not valid JSON"),
    ],
)
def test_bad_lines_name_the_file_and_line(tmp_path: Path, bad_line: str, grader: str, message: str) -> None:
    path = _write(tmp_path, GOOD, "", bad_line)
    with pytest.raises(ConfigError, match=f"tasks.jsonl, line 3: {message}") as caught:
        JsonlBenchmark(path, grader=grader)
    assert str(path) in str(caught.value)


def test_a_pretty_printed_json_file_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{"input": "q", "answer": "a"}], indent=2))
    with pytest.raises(ConfigError, match=r"tasks\.json, line 1: not valid JSON: .*one whole JSON object per line"):
        JsonlBenchmark(path)


def test_duplicate_ids_are_rejected_with_both_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD, '{"input": "q2", "answer": "b"}', '{"id": "ok", "input": "q3", "answer": "c"}')
    with pytest.raises(ConfigError, match=r"tasks\.jsonl, line 3: duplicate id 'ok' \(first on line 1\)"):
        JsonlBenchmark(path)
    clash = _write(tmp_path, '{"id": 2, "input": "q", "answer": "a"}', '{"input": "q2", "answer": "b"}')
    with pytest.raises(ConfigError, match=r"line 2: duplicate id '2'"):
        JsonlBenchmark(clash)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read tasks file .*nope\.jsonl"):
        JsonlBenchmark(tmp_path / "nope.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(ConfigError, match=r"empty\.jsonl holds no tasks"):
        JsonlBenchmark(empty)


def test_a_task_file_and_a_subset_file_saved_with_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    """Windows editors often save UTF-8 with a BOM; the files are read as if it were not there."""
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(GOOD + "\n" + '{"id": "two", "input": "q2", "answer": "b"}\n', encoding="utf-8-sig")
    assert tasks.read_bytes().startswith(b"\xef\xbb\xbf")
    bench = JsonlBenchmark(tasks, test_fraction=0.0)
    assert sorted(t.id for t in bench.get_tasks("train", limit=None)) == ["ok", "two"]
    subset = tmp_path / "subset.json"
    subset.write_text(json.dumps({"train": ["ok"], "test": []}), encoding="utf-8-sig")
    assert load_subset(subset)["train"] == ["ok"]


def test_the_python_grader_of_the_benchmarks_page_grades_as_it_says(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    (tmp_path / "my_graders.py").write_text(page.split("```python\n", 1)[1].split("```", 1)[0])
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_graders", raising=False)
    bench = JsonlBenchmark(FIXTURES / "tasks.jsonl", grader="python:my_graders:grade")
    assert _grade(bench, "capital-fr", " paris").success
    partial = _grade(bench, "capital-fr", "It is Paris, I think.")
    assert (partial.success, partial.score, partial.detail) == (False, 0.5, "expected paris")
    assert _grade(bench, "capital-fr", "Lyon").score == 0.0


def test_a_line_of_the_readme_shape_input_and_expected_without_an_id_loads_and_grades(tmp_path: Path) -> None:
    bench = JsonlBenchmark(_write(tmp_path, '{"input": "Capital of France?", "expected": "Paris"}',
                                  '{"input": "17 * 3?", "expected": 51}'), test_fraction=0.0)
    assert [t.id for t in bench.get_tasks("train", None)] == ["1", "2"]
    assert _grade(bench, "1", "Paris").success and _grade(bench, "2", "51").success
