"""reasoning-mini: tasks generated deterministically from a seed, every family graded by its own mode, disjoint
splits, declared answer kinds, and nothing fetched from anywhere."""

from __future__ import annotations

import socket

import pytest

from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.suites.reasoning_families import FAMILIES, Puzzle
from agent_evolve.benchmarks.suites.reasoning_mini import (ReasoningMiniBenchmark, final_answer, generate, grade,
                                                           parse_date)
from agent_evolve.errors import ConfigError
from agent_evolve.task_order import is_dev
from agent_evolve.types import Trajectory


@pytest.fixture(scope="module")
def bench() -> ReasoningMiniBenchmark:
    return ReasoningMiniBenchmark()


def all_tasks(bench: ReasoningMiniBenchmark) -> list:
    return bench.get_tasks("train", None) + bench.get_tasks("test", None)


def wrong_answer(puzzle: Puzzle, others: list[Puzzle]) -> str:
    """An answer the grader must refuse: the reversed list, or another puzzle's answer that differs."""
    if puzzle.grading == "list":
        return ", ".join(reversed(puzzle.answer.split(", ")))
    return next(p.answer for p in others if not grade(puzzle, f"Answer: {p.answer}")[0])


def test_the_same_seed_gives_the_same_tasks_and_another_seed_others() -> None:
    first, again = ReasoningMiniBenchmark(per_family=20), ReasoningMiniBenchmark(per_family=20)
    assert all_tasks(first) == all_tasks(again)
    assert [first.puzzle(t.id) for t in all_tasks(first)] == [again.puzzle(t.id) for t in all_tasks(again)]
    other = ReasoningMiniBenchmark(per_family=20, data_seed=1)
    assert {t.input for t in all_tasks(other)} != {t.input for t in all_tasks(first)}
    assert generate("date", 30)[:20] == generate("date", 20), "more tasks keep the first ones"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_familys_grader_accepts_its_answers_and_rejects_wrong_ones(family: str) -> None:
    puzzles = generate(family, 40)
    assert len({p.question for p in puzzles}) == 40, "no question twice"
    for puzzle in puzzles:
        assert grade(puzzle, f"Step one.\nStep two.\nAnswer: {puzzle.answer}")[0], puzzle
        assert grade(puzzle, puzzle.answer)[0], "a bare answer (a program's printed text) is read too"
        assert grade(puzzle, f"**Answer:** {puzzle.answer.upper()}.")[0] or puzzle.grading == "date"
        wrong = wrong_answer(puzzle, puzzles)
        assert not grade(puzzle, f"Answer: {wrong}")[0], (puzzle, wrong)
        assert not grade(puzzle, f"Answer: {puzzle.answer}\nAnswer: {wrong}")[0], "the last answer line counts"


def test_grading_reads_common_forms_of_dates_names_and_lists() -> None:
    date = Puzzle("q", "2021-03-05", "date")
    assert all(grade(date, f"Answer: {form}")[0] for form in ("2021-03-05", "March 5, 2021", "5 March 2021",
                                                              "03/05/2021", "2021-3-5"))
    assert not grade(date, "Answer: 2021-05-03")[0] and parse_date("February 30, 2021") is None
    ball = Puzzle("q", "red", "text", ("red ball",))
    assert grade(ball, "Answer: the red ball")[0] and grade(ball, "Answer: Red")[0]
    assert not grade(ball, "Answer: reddish")[0]
    words = Puzzle("q", "apple, fig, pear", "list")
    assert grade(words, "Answer: [apple, fig, pear]")[0] and grade(words, "Answer: apple fig pear")[0]
    assert not grade(words, "Answer: apple, pear, fig")[0] and not grade(words, "Answer: apple, fig")[0]
    assert final_answer("work\nThe answer is: \\boxed{12}") == "12"


def test_splits_are_disjoint_cover_every_task_and_hold_a_few_hundred_each(bench: ReasoningMiniBenchmark) -> None:
    train, test = bench.get_tasks("train", None), bench.get_tasks("test", None)
    assert not {t.id for t in train} & {t.id for t in test}
    assert not {t.input for t in train} & {t.input for t in test}, "no question in both splits"
    assert len(train) + len(test) == 60 * len(FAMILIES) and min(len(train), len(test)) >= 200
    assert any(is_dev(t.id) for t in train) and len({t.metadata["family"] for t in test}) == len(FAMILIES)
    reseeded = ReasoningMiniBenchmark(seed=1)
    assert {t.id for t in reseeded.get_tasks("test", None)} != {t.id for t in test}


def test_tasks_declare_number_or_text_and_never_carry_their_answer(bench: ReasoningMiniBenchmark) -> None:
    kinds = {}
    for task in all_tasks(bench):
        puzzle = bench.puzzle(task.id)
        kinds[task.id] = task.metadata["answer_kind"]
        assert kinds[task.id] == ("number" if puzzle.grading == "number" else "text")
        assert "Answer: <answer>" in task.input and puzzle.question in task.input
        assert "answer" not in task.metadata
    assert set(kinds.values()) == {"number", "text"}


def test_feedback_says_what_was_expected_and_what_was_read(bench: ReasoningMiniBenchmark) -> None:
    task = bench.get_tasks("train", 1)[0]
    puzzle = bench.puzzle(task.id)
    right = bench.evaluate(task, Trajectory(task.id, f"Answer: {puzzle.answer}"))
    assert right.success and right.score == 1.0 and right.raw["expected"] == puzzle.answer
    wrong = bench.evaluate(task, Trajectory(task.id, "Answer: nothing like it"))
    assert not wrong.success and puzzle.answer in wrong.detail and wrong.raw["family"] == task.metadata["family"]
    with pytest.raises(ConfigError, match="not a reasoning-mini task"):
        bench.puzzle("reasoning/none/0")


def test_it_is_registered_and_narrows_to_named_families() -> None:
    narrowed = resolve_benchmark("reasoning-mini:date,weekday")
    assert {t.metadata["family"] for t in all_tasks(narrowed)} == {"date", "weekday"}
    with pytest.raises(ConfigError, match="unknown families"):
        ReasoningMiniBenchmark("date,poetry")


def test_it_builds_and_grades_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("reasoning-mini opened a network connection")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    offline = ReasoningMiniBenchmark(per_family=5)
    offline.check_ready()
    task = offline.get_tasks("test", 1)[0]
    assert offline.evaluate(task, Trajectory(task.id, f"Answer: {offline.puzzle(task.id).answer}")).success

