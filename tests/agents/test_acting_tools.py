"""The acting tools one by one, the replies read for calls, the bounded context, and workspace tools as a layer."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from agent_evolve.agents import ReferenceAgent
from agent_evolve.agents.acting import (ActingClient, ActingLimits, ActionError, EnvironmentTools, Submission, act,
                                       calls_in_text, compact)
from agent_evolve.agents.acting.replies import NEXT_STEP
from agent_evolve.config import EvolveConfig
from agent_evolve.contract import AgentWorkspace
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.engine.base import EngineContext, EvolutionEngine
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.engine.stepping import StepOutcome, guarded_step
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.environments import EnvironmentPathError, EnvironmentSpec, TaskEnvironment, open_environment
from agent_evolve.llm.base import Completion, Message, ToolCall, ToolSpec
from agent_evolve.llm.tool_loop import Tool
from agent_evolve.protocol.acting import bound_environment
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import StepResult, Task

_ids = itertools.count()
SOURCE = "def f(x):\n    return x\n\n\ndef g(x):\n    return x\n"


def call(name: str, **arguments: object) -> Completion:
    return Completion(text="", tool_calls=[ToolCall(f"c{next(_ids)}", name, dict(arguments))],
                      finish_reason="tool_calls")


@pytest.fixture
def env(tmp_path: Path) -> Iterator[TaskEnvironment]:
    source = tmp_path / "src"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text(SOURCE)
    (source / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 501)))
    with open_environment(EnvironmentSpec(source_dir=str(source))) as environment:
        yield environment


@pytest.fixture
def tools(env: TaskEnvironment) -> EnvironmentTools:
    return EnvironmentTools(env, Submission(), timeout_s=30.0, max_observation_chars=4000)


def test_view_numbers_lines_shows_ranges_and_lists_folders(tools: EnvironmentTools) -> None:
    assert tools.view({"path": "pkg/mod.py"}).splitlines()[1] == "     2\t    return x"
    window = tools.view({"path": "long.txt", "start_line": 10, "end_line": 12})
    assert window.splitlines()[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "[lines 13-500 not shown; ask for a range]" in window
    assert "[lines 201-500 not shown" in tools.view({"path": "long.txt"})
    assert tools.view({"path": "pkg"}) == "pkg/mod.py"
    with pytest.raises(ActionError, match="past its end"):
        tools.view({"path": "pkg/mod.py", "start_line": 50})


def test_edit_replaces_one_exact_match_and_explains_zero_or_several(tools: EnvironmentTools,
                                                                     env: TaskEnvironment) -> None:
    with pytest.raises(ActionError, match="occurs 2 times in pkg/mod.py; include more surrounding lines"):
        tools.edit({"path": "pkg/mod.py", "old_text": "return x", "new_text": "return 2 * x"})
    with pytest.raises(ActionError, match="was not found in pkg/mod.py"):
        tools.edit({"path": "pkg/mod.py", "old_text": "return y", "new_text": "return 2 * x"})
    with pytest.raises(ActionError, match="copy the indentation exactly"):
        tools.edit({"path": "pkg/mod.py", "old_text": "  def g(x):\n", "new_text": ""})
    assert env.read_file("pkg/mod.py") == SOURCE
    shown = tools.edit({"path": "pkg/mod.py", "old_text": "def g(x):\n    return x", "new_text": "def g(x):\n"
                                                                                            "    return -x"})
    assert "     6\t    return -x" in shown
    assert env.read_file("pkg/mod.py").endswith("def g(x):\n    return -x\n")


def test_create_search_and_bash(tools: EnvironmentTools, env: TaskEnvironment) -> None:
    assert tools.create({"path": "new/test_x.py", "content": "a\nb\n"}) == "Wrote new/test_x.py (2 lines)."
    assert env.read_file("new/test_x.py") == "a\nb\n"
    assert tools.search({"text": "return x"}).splitlines() == ["./pkg/mod.py:2:    return x",
                                                               "./pkg/mod.py:6:    return x"]
    assert tools.search({"text": "nowhere"}).startswith("No line contains 'nowhere' (searched .); try a shorter")
    with pytest.raises(EnvironmentPathError):
        tools.search({"text": "x", "path": "/etc"})
    assert tools.bash({"command": "exit 4"}).endswith("[exit code 4]")


def test_file_tools_refuse_paths_out_of_the_tree(tools: EnvironmentTools) -> None:
    for path in ("/etc/passwd", "../x", "pkg/../../x"):
        with pytest.raises(EnvironmentPathError):
            tools.view({"path": path})
        with pytest.raises(EnvironmentPathError):
            tools.create({"path": path, "content": "x"})


def test_calls_are_read_from_plain_text() -> None:
    names = {"bash", "view", "submit"}
    [tagged] = calls_in_text('<tool_call>\n{"name": "view", "arguments": {"path": "a.py"}}\n</tool_call>', names)
    assert (tagged.name, tagged.arguments) == ("view", {"path": "a.py"})
    [bare] = calls_in_text('{"name": "submit", "arguments": {}}', names)
    assert bare.name == "submit"
    [shell] = calls_in_text("Run:\n```bash\n$ ls -la\ncat x\n```\nthen\n```sh\nrm y\n```", names)
    assert (shell.name, shell.arguments) == ("bash", {"command": "ls -la\ncat x"})
    assert calls_in_text("```python\nprint(1)\n```", names) == []
    assert calls_in_text("All done, nothing to run.", names) == []
    assert calls_in_text('{"name": "unknown", "arguments": {}}', names) == []


def test_the_acting_client_asks_for_the_next_step_and_drops_echoed_results() -> None:
    tools = [ToolSpec("bash", "run"), ToolSpec("submit", "finish")]
    llm = ScriptedLLM(["<tool_response>\nfile.txt\n</tool_response>\n\nThe tool results are above.", "plain"])
    client = ActingClient(llm, 10_000)
    history = [Message("system", "s"), Message("user", "task"), *_turn(1, 10)]
    reply = client.complete(history, tools=tools)
    assert reply.text == "The tool results are above." and reply.tool_calls == []
    assert llm.calls[0].messages[-1] == Message("user", NEXT_STEP) and history[-1].role == "tool"
    assert client.complete(history[:2], tools=tools).text == "plain"
    assert llm.calls[1].messages == history[:2]


def _turn(n: int, size: int) -> list[Message]:
    return [Message("assistant", f"step {n}", tool_calls=[ToolCall(f"c{n}", "bash", {"command": "ls"})]),
            Message("tool", f"{n}:" + "x" * size, tool_call_id=f"c{n}", name="bash")]


def test_compact_shortens_old_results_then_drops_old_turns_and_keeps_the_task_and_last_turn() -> None:
    head = [Message("system", "sys"), Message("user", "the task")]
    messages = head + _turn(1, 2000) + _turn(2, 2000) + _turn(3, 2000)
    assert compact(messages, 100_000) == messages
    shortened = compact(messages, 4000)
    assert shortened[:2] == head and shortened[-1] == messages[-1]
    assert [len(m.content) < 400 for m in shortened if m.role == "tool"] == [True, True, False]
    dropped = compact(head + _turn(1, 100) + _turn(2, 100) + _turn(3, 5000), 5200)
    assert dropped[:2] == head and "left out to fit the context" in dropped[2].content
    assert dropped[-2:] == _turn(3, 5000) and len(dropped) < 2 + 6 + 1
    assert all(m.tool_call_id in {c.id for a in dropped for c in a.tool_calls} for m in dropped if m.role == "tool")


SH_TOOL = 'echo "tool in $(pwd)"; wc -l < "$ARG_path"\n'
PY_TOOL = ("import json, os\n\ndef run(arguments):\n    with open(arguments['path']) as handle:\n"
           "        return json.dumps({'cwd': os.getcwd(), 'lines': len(handle.readlines())})\n")


def _registry(ws: Path, entries: list[dict], files: dict[str, str]) -> None:
    for name, text in files.items():
        (ws / "tools" / name).write_text(text)
    (ws / "tools" / "registry.yaml").write_text(yaml.safe_dump(entries))


def test_workspace_tools_run_inside_the_environment(make_ws, env: TaskEnvironment) -> None:
    ws = make_ws({"skill_mode": "none", "use_tools": True})
    params = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    _registry(ws, [{"name": "count_lines", "description": "Count a file's lines.", "parameters": params,
                    "file": "count_lines.sh"},
                   {"name": "py_count", "description": "Count lines in Python.", "parameters": params,
                    "file": "py_count.py"}], {"count_lines.sh": SH_TOOL, "py_count.py": PY_TOOL})
    llm = ScriptedLLM([call("count_lines", path="long.txt"), call("py_count", path="pkg/mod.py"), call("submit")])
    with bound_environment(env):
        trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t", "count"))
    offered = [t.name for t in llm.calls[0].tools or []]
    assert offered == ["bash", "view", "edit", "create", "search", "submit", "count_lines", "py_count"]
    sh, py, _ = (s["output"] for s in trajectory.steps if s["type"] == "tool_call")
    assert sh.startswith("tool in /task\n500\n") and sh.endswith("[exit code 0]")
    assert py.startswith('{"cwd": "/task", "lines": 6}')
    assert env.diff() == ""


def test_a_workspace_tool_named_like_a_builtin_replaces_it(make_ws, env: TaskEnvironment) -> None:
    ws = make_ws({"skill_mode": "none", "use_tools": True})
    _registry(ws, [{"name": "search", "description": "Search with ripgrep-like output.", "file": "search.sh"}],
              {"search.sh": "echo custom search\n"})
    llm = ScriptedLLM([call("search"), call("submit")])
    with bound_environment(env):
        trajectory = ReferenceAgent(ws, llm=llm).solve(Task("t", "find"))
    specs = {t.name: t.description for t in llm.calls[0].tools or []}
    assert list(specs).count("search") == 1 and specs["search"] == "Search with ripgrep-like output."
    assert trajectory.steps[1]["output"].startswith("custom search")


def test_the_tasks_own_tools_are_offered_after_the_others(env: TaskEnvironment) -> None:
    lookup = Tool(ToolSpec("lookup", "Look a fact up."), lambda arguments: "Paris")
    llm = ScriptedLLM([call("lookup"), call("submit", summary="Paris")])
    result = act(llm, "system", "capital of France?", env, ActingLimits(max_turns=4), task_tools=[lookup])
    assert [t.name for t in llm.calls[0].tools or []][-2:] == ["submit", "lookup"]
    assert result.output == "Paris" and result.steps[0]["output"] == "Paris"


@pytest.mark.parametrize(("entries", "files", "message"), [
    ([{"name": "t", "file": "t.rb"}], {"t.rb": "puts 1"}, "registry.yaml: entry 1: key 'file' must name a .py or .sh"),
    ([{"name": "t", "file": "t.py"}], {"t.py": "def run(arguments:\n"}, "t.py: line 1: the tool does not parse"),
    ([{"name": "t", "file": "t.py"}], {"t.py": "def other():\n    pass\n"}, "t.py: the tool defines no top-level"),
    ([{"name": "t", "file": "t.sh"}], {"t.sh": "  \n"}, "t.sh: the tool script is empty"),
    ([{"name": "t", "file": "missing.sh"}], {}, "registry.yaml: entry 1: key 'file'"),
    ([{"name": "t", "file": "t.sh", "runs": "host"}], {"t.sh": "echo"}, "entry 1: unknown key(s) ['runs']"),
])
def test_a_bad_tool_is_a_workspace_problem_naming_the_file(make_ws, entries: list, files: dict,
                                                            message: str) -> None:
    ws = make_ws()
    _registry(ws, entries, files)
    problems = validate_workspace(ws)
    assert len(problems) == 1 and message in problems[0]


class ToolWriter(EvolutionEngine):
    """An engine that adds a tool to the workspace: a registry entry and its script."""

    def __init__(self, script: str) -> None:
        self.script = script

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        _registry(workspace.path, [{"name": "probe", "description": "Probe the tree.", "file": "probe.sh"}],
                  {"probe.sh": self.script})
        return StepResult(mutated=True, summary="added the probe tool")


def _step(ws: Path, engine: ToolWriter) -> StepOutcome:
    vc = VersionControl(ws)
    vc.init()
    vc.commit("seed", tag="pre")
    ctx = EngineContext(EvolveConfig(evolve_tools=True), AgentWorkspace(ws), EvolutionHistory(ws), ws / "state",
                        ws / "scratch", ws / "out")
    return guarded_step(engine, lambda c: engine.step(c.workspace, [], c.history), ctx, vc, ["tools"], "pre")


def test_an_engine_tool_is_gated_by_validation_and_then_callable_in_the_environment(make_ws,
                                                                                   env: TaskEnvironment) -> None:
    bad = make_ws()
    rejected = _step(bad, ToolWriter("   \n"))
    assert rejected.status == "failed" and "probe.sh: the tool script is empty" in rejected.summary
    assert (bad / "tools" / "registry.yaml").read_text().strip() == "[]"
    good = make_ws({"skill_mode": "none", "use_tools": True})
    kept = _step(good, ToolWriter("ls pkg\n"))
    assert kept.mutated and sorted(kept.changed_paths) == ["tools/probe.sh", "tools/registry.yaml"]
    llm = ScriptedLLM([call("probe"), call("submit")])
    with bound_environment(env):
        trajectory = ReferenceAgent(good, llm=llm).solve(Task("t", "probe"))
    assert trajectory.steps[1]["output"] == "mod.py\n\n[exit code 0]"
