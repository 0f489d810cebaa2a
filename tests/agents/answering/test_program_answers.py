"""Program-of-thought answers: the reply's program runs confined, its printed number becomes the answer the
grader reads, and a reply whose program fails still stands as a text answer."""

from __future__ import annotations

from pathlib import Path

from agent_evolve.agents import ReferenceAgent
from agent_evolve.agents.answering.program import (PROGRAM_CLOSING, PROGRAM_STOP, answer_with_program, last_program,
                                                   worked_solution)
from agent_evolve.benchmarks.support.answers import extract_number
from agent_evolve.environments import Limits
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

TASK = Task("t1", "Tom has 3 boxes of 64 crayons and sells each crayon for $1.50. How much does he earn?")
PROGRAM_REPLY = "Plan: crayons times price.\n```python\nboxes = 3\ncrayons = boxes * 64\nprint(crayons * 1.5)"
WRONG_PROSE = "3 x 64 = 182, and 182 x 1.5 = 273.\nAnswer: 273"


def test_the_last_block_is_the_program_even_when_a_stop_cut_its_closing_fence() -> None:
    reply = "```python\nprint(1)\n```\nthen\n```py\nx = 2\nprint(x)"
    assert last_program(reply) == "x = 2\nprint(x)"
    assert last_program("no code here, Answer: 4") is None
    assert last_program("```python\n\n```") is None


def test_the_printed_result_becomes_the_answer_the_grader_reads() -> None:
    output, run = answer_with_program(PROGRAM_REPLY, kind="number")
    assert run.printed == "288.0" and run.error == ""
    assert output.startswith(PROGRAM_REPLY) and extract_number(output) == "288.0"


def test_a_task_that_declares_no_kind_gets_the_printed_answer_alone() -> None:
    """An evolved agent asked a question directly (no benchmark declares its kind) answers what the program printed."""
    output, run = answer_with_program(PROGRAM_REPLY)
    assert output == run.printed == "288.0"


def test_a_failing_or_silent_program_leaves_the_text_answer_and_says_why() -> None:
    reply = "Answer: 288\n```python\nprint(1 / 0)\n```"
    output, run = answer_with_program(reply)
    assert output == reply and run.printed is None and "ZeroDivisionError" in run.error
    silent, quiet = answer_with_program("```python\nx = 5\n```")
    assert quiet.error == "the program printed nothing" and silent == "```python\nx = 5\n```"


def test_the_program_runs_confined_without_files_network_or_unbounded_time(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("42")
    _, read = answer_with_program(f"```python\nprint(open({str(secret)!r}).read())\n```")
    assert read.printed is None and "FileNotFoundError" in read.error
    _, net = answer_with_program("```python\nimport socket\nsocket.create_connection(('192.0.2.1', 80), 2)\n"
                                 "print('connected')\n```")
    assert net.printed is None
    _, slow = answer_with_program("```python\nwhile True:\n    pass\n```", Limits(timeout_s=1.0))
    assert slow.printed is None and "did not finish within 1s" in slow.error


def test_a_workspace_with_a_program_prompt_answers_with_the_programs_result(make_ws) -> None:
    root = make_ws({"skill_mode": "none"}, prompt="Reason in prose.\n")
    (root / "prompts" / "program.md").write_text("Write a Python program that prints the answer.\n")
    llm = ScriptedLLM([PROGRAM_REPLY])
    trajectory = ReferenceAgent(root, llm=llm).solve(TASK)
    call = llm.calls[0]
    assert call.messages[0].content.startswith("Write a Python program") and "prose" not in call.messages[0].content
    assert call.stop == list(PROGRAM_STOP)
    assert extract_number(trajectory.output) == "288.0"
    assert trajectory.steps[-1] == {"type": "program", "ran": True, "printed": "288.0", "error": ""}


def test_without_a_program_prompt_the_reply_is_not_run(make_ws) -> None:
    root = make_ws({"skill_mode": "none"})
    reply = WRONG_PROSE + "\n```python\nprint(288)\n```"
    llm = ScriptedLLM([reply])
    trajectory = ReferenceAgent(root, llm=llm).solve(TASK)
    assert llm.calls[0].stop is None and trajectory.output == reply and "Answer: 288" not in trajectory.output
    assert llm.calls[0].messages[-1].content == TASK.input
    assert all(step["type"] != "program" for step in trajectory.steps)


def test_the_program_request_comes_after_the_tasks_own_answer_format(make_ws) -> None:
    """A task that says "answer with the word only" is still asked for a program, last, so the model writes one."""
    task = Task("w1", "Write the word 'forest' backwards. Answer with the reversed word only.", {"answer_kind": "text"})
    root = make_ws({"skill_mode": "none"})
    (root / "prompts" / "program.md").write_text("Write a Python program that prints the answer.\n")
    llm = ScriptedLLM(["```python\nprint('forest'[::-1])\n```"])
    trajectory = ReferenceAgent(root, llm=llm).solve(task)
    assert llm.calls[0].messages[-1].content == f"{task.input}\n\n{PROGRAM_CLOSING}"
    assert trajectory.output == "tserof"


def test_a_number_answer_and_a_text_reply_are_shown_as_they_are() -> None:
    reply = "```python\nprint(3 * 4)\n```"
    steps = [{"type": "program", "ran": True, "printed": "12"}]
    conversation = [{"role": "assistant", "content": reply}]
    assert worked_solution(f"{reply}\nAnswer: 12", steps, conversation) == f"{reply}\nAnswer: 12"
    assert worked_solution("twelve", [{"type": "answer"}], [{"role": "assistant", "content": "twelve"}]) == "twelve"
    assert worked_solution("11", steps, conversation) == "11", "an output the program did not print"
