"""A program answer cross-checked by a text answer: agreement keeps the program's reply, a disagreement is settled
by a vote with sampled programs, answers that break the answer form do not vote, and check.yaml turns it on."""

from __future__ import annotations

from fractions import Fraction

import pytest
import yaml

from agent_evolve.agents import ReferenceAgent
from agent_evolve.agents.answering.cross_check import settle
from agent_evolve.agents.answering.program import PROGRAM_CLOSING, PROGRAM_STOP
from agent_evolve.contract.check_settings import AnswerForm, CheckSettings, parse_check_settings
from agent_evolve.errors import WorkspaceError
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

TASK = Task("gsm8k/x", "Tom has 3 bags of 4 apples. How many apples?", {"answer_kind": "number"})
WHOLE = AnswerForm(whole=True, min=0.0)


def program(expression: str) -> str:
    return f"Count them.\n```python\napples = {expression}\nprint(apples)\n```"


def values(*numbers: float | None) -> list[Fraction | None]:
    return [None if n is None else Fraction(n) for n in numbers]


def test_the_most_common_answer_keeping_the_form_wins_and_ties_go_to_the_earliest() -> None:
    assert settle(values(10, 12, 12, 10), None) == 0, "a tie: the program's answer comes first"
    assert settle(values(10, 12, 12, 9), None) == 1
    assert settle(values(-3, -3, 4), WHOLE) == 2, "answers breaking the form do not vote"
    assert settle(values(-3, 2.5, None), WHOLE) == 0, "no answer keeps the form: the program's reply stands"
    assert settle(values(None, 7), None) == 1


def test_cross_check_is_read_strictly_from_check_yaml() -> None:
    settings = CheckSettings(cross_check=4, answer=WHOLE)
    assert parse_check_settings(yaml.safe_load(settings.to_yaml())) == settings
    assert "cross_check" not in CheckSettings().to_yaml()
    for bad in (-1, 17, True, "4"):
        with pytest.raises(WorkspaceError, match="ws/check.yaml: cross_check must"):
            parse_check_settings({"cross_check": bad}, "ws/check.yaml")


def cross_checking(make_ws, samples: int):
    root = make_ws({"skill_mode": "none"}, prompt="Reason in prose.\n")
    (root / "prompts" / "program.md").write_text("Write a Python program that prints the answer.\n")
    (root / "prompts" / "check.yaml").write_text(CheckSettings(cross_check=samples, answer=WHOLE).to_yaml())
    return root


def test_a_disagreement_is_settled_by_sampled_programs(make_ws) -> None:
    llm = ScriptedLLM([program("3 + 4"), "3 bags of 4 is 12.\nAnswer: 12", program("3 * 4"), program("4 - 5")])
    trajectory = ReferenceAgent(cross_checking(make_ws, 2), llm=llm).solve(TASK)
    assert trajectory.output == "3 bags of 4 is 12.\nAnswer: 12", "12 has two votes, 7 one, -1 breaks the form"
    systems = [call.messages[0].content for call in llm.calls]
    assert systems[1] == "Reason in prose.\n" and all(s.startswith("Write a Python") for s in systems[::2])
    users = [call.messages[-1].content for call in llm.calls]
    assert users[1] == TASK.input and all(u == f"{TASK.input}\n\n{PROGRAM_CLOSING}" for u in users[::2])
    assert [(c.temperature, c.stop) for c in llm.calls] == [
        (0.0, list(PROGRAM_STOP)), (0.0, None), (0.8, list(PROGRAM_STOP)), (0.8, list(PROGRAM_STOP))]
    step = trajectory.steps[-1]
    assert step["type"] == "cross_check" and step["answers"] == ["7", "12", "12", "-1"] and step["kept"] == 1
    assert trajectory.conversation[-1]["content"] == trajectory.output


def test_agreement_keeps_the_program_reply_and_samples_nothing(make_ws) -> None:
    llm = ScriptedLLM([program("3 * 4"), "Answer: 12"])
    trajectory = ReferenceAgent(cross_checking(make_ws, 4), llm=llm).solve(TASK)
    assert len(llm.calls) == 2 and trajectory.output.endswith("Answer: 12") and "```python" in trajectory.output
    assert trajectory.steps[-1]["drawn"] == 0 and trajectory.steps[-1]["kept"] == 0
