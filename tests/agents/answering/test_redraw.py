"""Drawing again when a reply fails a check the agent runs itself (code its docstring's examples, a numeric answer
the form of right ones): the examples read, the checks run, prompts/check.yaml read strictly, and a failed reply
replaced only by a draw that passes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent_evolve.agents import ReferenceAgent
from agent_evolve.agents.answering.checks import CodeTask, answer_failure, code_task, docstring_examples, first_failure
from agent_evolve.agents.answering.program import PROGRAM_STOP
from agent_evolve.contract.check_settings import AnswerForm, CheckSettings, parse_check_settings
from agent_evolve.errors import WorkspaceError
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

PROMPT = '''def double(x: int) -> int:
    """Twice x.
    >>> double(2)
    4
    double(5) ==> 10
    double(y) ==> 2 * y
    """
'''
TASK = Task("HumanEval/x", f"Complete the function.\n```python\n{PROMPT}```", {"prompt": PROMPT, "entry_point": "double"})
RIGHT = "```python\ndef double(x: int) -> int:\n    return 2 * x\n```"
WRONG = "```python\ndef double(x: int) -> int:\n    return x + 2\n```"  # right for 2, wrong for 5


def test_only_literal_examples_are_read() -> None:
    examples = docstring_examples(PROMPT, "double")
    assert [(e.call, e.want) for e in examples] == [("double(2)", "4"), ("double(5)", "10")]


def test_the_function_comes_from_metadata_or_else_the_last_code_block() -> None:
    assert code_task(TASK) == CodeTask(PROMPT, "double")
    bare = Task("t", f"Write it.\n```python\n{PROMPT}```")
    assert code_task(bare) == CodeTask(PROMPT, "double")
    assert code_task(Task("g", "Tom has 3 apples. How many?")) is None


def test_a_reply_is_checked_on_every_example_and_the_first_failure_says_what_it_gave() -> None:
    code = code_task(TASK)
    assert code is not None
    assert first_failure(code, RIGHT) is None
    failure = first_failure(code, WRONG)
    assert failure is not None and failure.example.call == "double(5)" and "returned 7" in failure.describe()
    assert first_failure(code, "I cannot do this.") is not None, "prose is no passing code"
    assert first_failure(CodeTask("def f(x):\n    pass\n", "f"), WRONG) is None, "no example: nothing to fail"


def test_check_settings_are_read_strictly_naming_the_file() -> None:
    assert parse_check_settings(None) == CheckSettings()
    assert parse_check_settings({"redraws": 2, "temperature": 0.5}) == CheckSettings(2, 0.5)
    assert parse_check_settings(yaml.safe_load(CheckSettings(3, 0.7).to_yaml())) == CheckSettings(3, 0.7)
    form = CheckSettings(answer=AnswerForm(whole=True, min=0.0))
    assert parse_check_settings(yaml.safe_load(form.to_yaml())) == form
    assert parse_check_settings({"answer": {"whole": True}}).answer == AnswerForm(whole=True)
    for bad, why in (({"draws": 2}, "unknown key"), ({"redraws": 0}, "redraws must"), ({"redraws": True}, "redraws"),
                     ({"temperature": 0}, "temperature must"), ([1], "must be a mapping"),
                     ({"answer": 5}, "answer: must be a mapping"), ({"answer": {"max": 3}}, "answer: unknown key"),
                     ({"answer": {"whole": "yes"}}, "answer.whole must"),
                     ({"answer": {"min": "0"}}, "answer.min must")):
        with pytest.raises(WorkspaceError, match=f"ws/prompts/check.yaml: .*{why}"):
            parse_check_settings(bad, "ws/prompts/check.yaml")


def with_check(make_ws, text: str | None) -> Path:
    root = make_ws({"skill_mode": "none"})
    if text is not None:
        (root / "prompts" / "check.yaml").write_text(text)
    return root


def test_a_reply_failing_an_example_is_replaced_by_the_first_draw_that_passes(make_ws) -> None:
    llm = ScriptedLLM([WRONG, WRONG, RIGHT, RIGHT])
    trajectory = ReferenceAgent(with_check(make_ws, "redraws: 3\ntemperature: 0.6\n"), llm=llm).solve(TASK)
    assert trajectory.output == RIGHT and len(llm.calls) == 3, "the draws stop at the first that passes"
    assert [c.temperature for c in llm.calls] == [0.0, 0.6, 0.6]
    step = trajectory.steps[-1]
    assert step["type"] == "example_check" and step["drawn"] == 2 and step["kept"] == 2
    assert "double(5)" in step["failure"]
    assert trajectory.conversation[-1]["content"] == RIGHT


def test_when_no_draw_passes_the_first_reply_stands(make_ws) -> None:
    llm = ScriptedLLM([WRONG, WRONG, WRONG])
    trajectory = ReferenceAgent(with_check(make_ws, "redraws: 2\n"), llm=llm).solve(TASK)
    assert trajectory.output == WRONG and len(llm.calls) == 3
    assert trajectory.steps[-1]["kept"] is None and trajectory.steps[-1]["drawn"] == 2


def test_a_passing_reply_or_a_workspace_without_check_yaml_draws_nothing(make_ws) -> None:
    passing = ScriptedLLM([RIGHT])
    assert ReferenceAgent(with_check(make_ws, ""), llm=passing).solve(TASK).output == RIGHT
    assert len(passing.calls) == 1
    unchecked = ScriptedLLM([WRONG])
    trajectory = ReferenceAgent(with_check(make_ws, None), llm=unchecked).solve(TASK)
    assert trajectory.output == WRONG and len(unchecked.calls) == 1
    assert all(step["type"] != "example_check" for step in trajectory.steps)


def test_a_bad_check_yaml_is_an_error_naming_the_file(make_ws) -> None:
    root = with_check(make_ws, "redraws: lots\n")
    with pytest.raises(WorkspaceError, match=r"check\.yaml: redraws must"):
        ReferenceAgent(root, llm=ScriptedLLM([RIGHT])).solve(TASK)


def test_an_answer_is_checked_against_its_form() -> None:
    form = AnswerForm(whole=True, min=0.0)
    assert answer_failure("so 12 apples.\nAnswer: 12", form) is None
    assert answer_failure("Answer: -3", form) == "the answer -3 is below 0"
    assert answer_failure("Answer: 2.5", form) == "the answer 2.5 is not a whole number"
    assert answer_failure("I cannot tell.", form) == "the reply gives no numeric answer"
    assert answer_failure("Answer: -2.5", AnswerForm()) is None, "an empty form only asks for a number"


GSM = Task("gsm8k/x", "Tom has 3 bags of 4 apples. How many apples?", {"answer_kind": "number"})


def program_reply(printed: str) -> str:
    return f"Count them.\n```python\napples = {printed}\nprint(apples)\n```"


def test_a_program_answer_breaking_the_form_is_drawn_again_and_each_draw_runs_its_program(make_ws) -> None:
    root = with_check(make_ws, "answer:\n  whole: true\n  min: 0\n")
    (root / "prompts" / "program.md").write_text("Write a Python program that prints the answer.\n")
    llm = ScriptedLLM([program_reply("3 - 15"), program_reply("12 / 8"), program_reply("3 * 4")])
    trajectory = ReferenceAgent(root, llm=llm).solve(GSM)
    assert trajectory.output.endswith("Answer: 12") and len(llm.calls) == 3
    assert [(c.temperature, c.stop) for c in llm.calls] == [(0.0, list(PROGRAM_STOP))] + [(0.8, list(PROGRAM_STOP))] * 2
    step = trajectory.steps[-1]
    assert step["type"] == "answer_check" and step["failure"] == "the answer -12 is below 0"
    assert step["drawn"] == 2 and step["kept"] == 2


def test_a_plain_answer_is_checked_only_when_check_yaml_gives_a_form(make_ws) -> None:
    formed = ScriptedLLM(["Answer: -12", "Answer: 12"])
    trajectory = ReferenceAgent(with_check(make_ws, "answer:\n  min: 0\n"), llm=formed).solve(GSM)
    assert trajectory.output == "Answer: 12" and len(formed.calls) == 2
    unformed = ScriptedLLM(["Answer: -12"])
    trajectory = ReferenceAgent(with_check(make_ws, "redraws: 2\n"), llm=unformed).solve(GSM)
    assert trajectory.output == "Answer: -12" and len(unformed.calls) == 1
    assert all(step["type"] != "answer_check" for step in trajectory.steps)
