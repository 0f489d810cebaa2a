"""Workspace tools: registry validation, subprocess execution, and the agent's tool loop."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_evolve.agents import ReferenceAgent, ToolRunError
from agent_evolve.agents.tools import load_tool_entries, run_tool_file, workspace_tools
from agent_evolve.contract import AgentWorkspace
from agent_evolve.errors import WorkspaceError
from agent_evolve.llm.base import Completion, Message, ToolCall
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

ADD = (
    {"description": "Add two integers.",
     "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"]}},
    "def run(arguments):\n    print('noise that must not reach the result')\n"
    "    return str(arguments['a'] + arguments['b'])\n",
)
HANG = ({"description": "Never returns."}, "import time\n\ndef run(arguments):\n    time.sleep(60)\n")
CRASH = ({"description": "Always fails."}, "def run(arguments):\n    raise ValueError('bad input here')\n")
LOUD = ({"description": "Prints a lot."}, "def run(arguments):\n    return 'x' * 100000\n")


def _call(name: str, arguments: dict) -> Completion:
    return Completion(text="", tool_calls=[ToolCall("c1", name, arguments)], finish_reason="tool_calls")


def test_agent_runs_a_workspace_tool_and_the_model_sees_its_result(make_ws) -> None:
    ws = make_ws({"skill_mode": "none", "use_tools": True}, tools={"add": ADD})

    def final(messages: list[Message]) -> str:
        assert messages[-1].role == "tool" and messages[-1].content == "5"
        return "The sum is 5."

    llm = ScriptedLLM([_call("add", {"a": 2, "b": 3}), final])
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t", "What is 2 + 3?"))
    assert trajectory.output == "The sum is 5."
    assert llm.calls[0].tools is not None and [t.name for t in llm.calls[0].tools] == ["add"]
    tool_steps = [s for s in trajectory.steps if s["type"] == "tool_call"]
    assert tool_steps == [{"type": "tool_call", "name": "add", "arguments": {"a": 2, "b": 3}, "output": "5",
                           "error": False}]
    assert trajectory.steps[-1]["type"] == "answer" and trajectory.steps[-1]["turns"] == 2
    assert [m["role"] for m in trajectory.conversation] == ["system", "user", "assistant", "tool", "assistant"]


def test_tools_are_off_unless_enabled(make_ws) -> None:
    llm = ScriptedLLM(["plain"])
    ReferenceAgent(make_ws({"skill_mode": "none"}, tools={"add": ADD}), llm=llm).solve(Task("t", "x"))
    assert llm.calls[0].tools is None


def test_a_hanging_tool_is_cut_off(make_ws) -> None:
    ws = make_ws({"skill_mode": "none", "use_tools": True, "tool_timeout_s": 0.5}, tools={"hang": HANG})
    llm = ScriptedLLM([_call("hang", {}), "gave up"])
    started = time.monotonic()
    trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t", "x"))
    assert time.monotonic() - started < 10
    step = next(s for s in trajectory.steps if s["type"] == "tool_call")
    assert step["error"] and "did not finish within 0.5s" in step["output"]
    assert "did not finish" in llm.calls[1].messages[-1].content
    assert trajectory.output == "gave up"


def test_a_crashing_tool_reports_its_error(tmp_path: Path) -> None:
    path = tmp_path / "crash.py"
    path.write_text(CRASH[1])
    with pytest.raises(ToolRunError, match="ValueError: bad input here"):
        run_tool_file(path, {})


def test_output_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "loud.py"
    path.write_text(LOUD[1])
    result = run_tool_file(path, {}, max_output_chars=100)
    assert result.startswith("x" * 100) and "99900 more characters cut" in result and len(result) < 200


def test_workspace_tools_wrap_the_registry(make_ws) -> None:
    tools = workspace_tools(AgentWorkspace(make_ws(tools={"add": ADD})))
    assert [t.name for t in tools] == ["add"] and tools[0].fn({"a": 40, "b": 2}) == "42"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "bad name!", "file": "t.py"}, "key 'name'"),
        ({"name": "t", "file": "missing.py"}, "does not exist"),
        ({"name": "t", "file": "t.txt"}, "key 'file'"),
        ({"name": "t", "file": "t.py", "parameters": {"type": "string"}}, "key 'parameters'"),
        ({"name": "t", "file": "t.py", "color": "red"}, "unknown key"),
        ({"name": "t", "file": "../t.py"}, "escapes the workspace"),
    ],
)
def test_bad_registry_entries_name_the_registry(make_ws, entry: dict, message: str) -> None:
    ws = make_ws()
    (ws / "tools" / "t.py").write_text("def run(arguments):\n    return ''\n")
    AgentWorkspace(ws).write_tool_registry([entry])
    with pytest.raises(WorkspaceError, match=message) as info:
        load_tool_entries(AgentWorkspace(ws))
    assert "registry.yaml: entry 1" in str(info.value)
