"""The reference agent in a task environment: it explores, edits, runs the tests and submits, every step recorded."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_evolve.agents import ReferenceAgent
from agent_evolve.environments import EnvironmentSpec, TaskEnvironment, open_environment
from agent_evolve.llm.base import Completion, Message, ToolCall
from agent_evolve.protocol.acting import bound_environment
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

_ids = itertools.count()
BUGGY = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def call(name: str, **arguments: object) -> Completion:
    return Completion(text="", tool_calls=[ToolCall(f"c{next(_ids)}", name, dict(arguments))],
                      finish_reason="tool_calls")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_text(BUGGY)
    (root / "test_calc.py").write_text(TESTS)
    return root


@pytest.fixture
def environment(repo: Path) -> Iterator[TaskEnvironment]:
    with open_environment(EnvironmentSpec(source_dir=str(repo))) as env, bound_environment(env):
        yield env


def test_a_scripted_model_explores_edits_tests_and_submits_the_diff(make_ws, environment: TaskEnvironment) -> None:
    ws = make_ws({"skill_mode": "none", "acting_output": "diff", "max_tool_turns": 10,
                  "tool_timeout_s": 120})
    llm = ScriptedLLM([
        call("bash", command="ls"),
        call("view", path="calc.py"),
        call("edit", path="calc.py", old_text="return a - b", new_text="return a + b"),
        call("bash", command="python -m pytest -q -p no:cacheprovider test_calc.py"),
        call("submit", summary="add() subtracted; it adds now"),
    ])
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t1", "add(2, 3) returns -1; fix it."))
    assert "-    return a - b\n+    return a + b" in trajectory.output
    assert environment.read_file("calc.py") == "def add(a, b):\n    return a + b\n"
    calls = [s for s in trajectory.steps if s["type"] == "tool_call"]
    assert [c["name"] for c in calls] == ["bash", "view", "edit", "bash", "submit"]
    assert "calc.py" in calls[0]["output"] and "test_calc.py" in calls[0]["output"]
    assert "     2\t    return a - b" in calls[1]["output"]
    assert "     2\t    return a + b" in calls[2]["output"]
    assert "1 passed" in calls[3]["output"] and calls[3]["output"].endswith("[exit code 0]")
    assert not any(c["error"] for c in calls)
    answer = trajectory.steps[-1]
    assert answer["submitted"] and answer["stop_reason"] == "stopped" and answer["turns"] == 5
    tool_messages = [m for m in trajectory.conversation if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == [c["output"] for c in calls]
    assert "/task" in llm.calls[0].messages[1].content and "fix it" in llm.calls[0].messages[1].content
    assert [t.name for t in llm.calls[0].tools or []] == ["bash", "view", "edit", "create", "search", "submit"]


def test_the_turn_limit_is_respected(make_ws, environment: TaskEnvironment) -> None:
    ws = make_ws({"skill_mode": "none", "max_tool_turns": 3})
    llm = ScriptedLLM([call("bash", command=f"echo {n}") for n in range(10)])
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t1", "loop"))
    assert len(llm.calls) == 3 and trajectory.steps[-1]["stop_reason"] == "max_turns"
    assert not trajectory.steps[-1]["submitted"]
    assert [s["output"].split("\n")[0] for s in trajectory.steps if s["type"] == "tool_call"] == ["0", "1", "2"]


def test_a_model_that_answers_in_text_still_acts(make_ws, environment: TaskEnvironment) -> None:
    def after_command(messages: list[Message]) -> str:
        assert messages[-2].role == "tool" and "hello from the tree" in messages[-2].content
        assert messages[-1].role == "user" and messages[-1].content.startswith("Next step: call one tool")
        return "The file says hello."

    ws = make_ws({"skill_mode": "none"})
    environment.write_file("note.txt", "hello from the tree\n")
    llm = ScriptedLLM(["I will read it.\n```bash\ncat note.txt\n```", after_command,
                       call("submit", summary="It says hello.")])
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t1", "What does note.txt say?"))
    assert trajectory.output == "It says hello."
    assert [s["type"] for s in trajectory.steps[1:]] == ["tool_call", "reminder", "tool_call", "answer"]
    assert trajectory.steps[1]["name"] == "bash" and trajectory.steps[-1]["stop_reason"] == "stopped"
    assert llm.calls[2].messages[-1].content.startswith("You have not submitted yet.")


def test_a_model_that_keeps_talking_is_reminded_twice_then_its_last_reply_is_the_answer(
        make_ws, environment: TaskEnvironment) -> None:
    llm = ScriptedLLM(["Let me think.", "Still thinking.", "The answer is 7."])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "none"}), llm=llm).solve(Task("t1", "think"))
    assert trajectory.output == "The answer is 7." and len(llm.calls) == 3
    assert [s["type"] for s in trajectory.steps[1:]] == ["reminder", "reminder", "answer"]
    assert trajectory.steps[-1]["turns"] == 3 and not trajectory.steps[-1]["submitted"]


def test_observations_are_bounded(make_ws, environment: TaskEnvironment) -> None:
    ws = make_ws({"skill_mode": "none", "max_observation_chars": 500})
    llm = ScriptedLLM([call("bash", command="seq 1 5000"), call("submit")])
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t1", "count"))
    output = trajectory.steps[1]["output"]
    assert len(output) < 600 and "characters cut" in output and output.rstrip().endswith("[exit code 0]")


def test_without_an_environment_the_agent_answers_as_before(make_ws) -> None:
    llm = ScriptedLLM(["42"])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "none"}), llm=llm).solve(Task("t1", "6 * 7?"))
    assert trajectory.output == "42" and llm.calls[0].tools is None


def test_skills_and_memories_reach_an_acting_agent(make_ws, environment: TaskEnvironment) -> None:
    ws = make_ws({"skill_mode": "all"}, memories=[{"content": "run the tests before submitting"}])
    llm = ScriptedLLM([call("submit", summary="nothing to do")])
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t1", "check"))
    system = llm.calls[0].messages[0].content
    assert "Convert every quantity to one unit" in system and "run the tests before submitting" in system
    assert trajectory.output == "nothing to do"
