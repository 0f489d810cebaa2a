"""The answering strategies behind one protocol: each answers a question or refines the answer so far, records
its steps after those before it, and a chain of them, composed by hand, answers as the reference agent does."""

from __future__ import annotations

from agent_evolve.agents.answering import (Answer, AnsweringStrategy, CrossCheck, Plain, ProgramAnswer, Question,
                                           Redraw, reply_check)
from agent_evolve.agents.answering.program import PROGRAM_STOP
from agent_evolve.contract.check_settings import AnswerForm, CheckSettings
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

TASK = Task("gsm8k/x", "Tom has 3 bags of 4 apples. How many apples?", {"answer_kind": "number"})
FORM = AnswerForm(whole=True, min=0.0)


def program(expression: str) -> str:
    return f"Count them.\n```python\nprint({expression})\n```"


def run(chain: list[AnsweringStrategy], llm: ScriptedLLM) -> Answer:
    answer = Answer(steps=[{"type": "skills"}])
    question = Question(TASK, llm, "Solve it.", max_tokens=64, temperature=0.0)
    for strategy in chain:
        answer = strategy.answer(question, answer)
    return answer


def test_plain_answers_once_after_the_steps_before_it() -> None:
    llm = ScriptedLLM(["Answer: 12"])
    answer = run([Plain(["\n\n"])], llm)
    assert answer.output == "Answer: 12" and [s["type"] for s in answer.steps] == ["skills", "answer"]
    assert [(m.role, m.content) for m in answer.conversation] == [
        ("system", "Solve it."), ("user", TASK.input), ("assistant", "Answer: 12")]
    assert (llm.calls[0].stop, llm.calls[0].max_tokens) == (["\n\n"], 64)


def test_a_program_answer_is_redrawn_until_its_answer_keeps_the_form() -> None:
    llm = ScriptedLLM([program("3 - 15"), program("3 * 4")])
    settings = CheckSettings(redraws=2, answer=FORM)
    check = reply_check(TASK, settings)
    assert check is not None and check.kind == "answer_check"
    first = ProgramAnswer("number")
    answer = run([first, Redraw(check, settings, list(PROGRAM_STOP), first.finish)], llm)
    assert answer.output.endswith("Answer: 12") and answer.conversation[-1].content == answer.output
    assert [s["type"] for s in answer.steps] == ["skills", "answer", "program", "answer_check"]
    assert answer.steps[-1]["kept"] == 1 and [c.stop for c in llm.calls] == [list(PROGRAM_STOP)] * 2


def test_a_cross_check_that_agrees_keeps_the_program_answer() -> None:
    llm = ScriptedLLM([program("3 * 4"), "Answer: 12"])
    answer = run([ProgramAnswer("number"), CrossCheck("Reason in prose.", CheckSettings(cross_check=2, answer=FORM))], llm)
    assert "```python" in answer.output and answer.output.endswith("Answer: 12")
    assert answer.steps[-1] == {"type": "cross_check", "answers": ["12", "12"], "drawn": 0, "kept": 0,
                                "usage": answer.steps[-1]["usage"]}
    assert llm.calls[1].messages[0].content == "Reason in prose."
