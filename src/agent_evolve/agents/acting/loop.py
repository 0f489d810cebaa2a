"""One acting attempt: the tool loop over a task environment with built-in and workspace tools (run through `exec`,
source on the command line), until `submit`, a reply without a call (after `REMINDERS` reminders), or `max_turns`."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_evolve.agents.acting.env_tools import EnvironmentTools, Submission, clip
from agent_evolve.agents.acting.replies import ActingClient
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.contract.tool_entries import ToolEntry
from agent_evolve.environments.task_env import TaskEnvironment
from agent_evolve.llm.base import LLMClient, Message, ToolSpec
from agent_evolve.llm.errors import redact
from agent_evolve.llm.tool_loop import Tool, ToolLoopResult, run_tool_loop
from agent_evolve.types import Usage

OutputMode = Literal["answer", "diff"]
# How many times a reply without a tool call, before `submit`, is answered with `CONTINUE` instead of ending
REMINDERS = 2
CONTINUE = ("You have not submitted yet. Continue with a tool call (bash, view, edit, create, search); "
            "call submit when the task is done.")
_PY_RUNNER = (
    "import json, sys\n"
    "namespace = {'__name__': 'workspace_tool'}\n"
    "real_stdout, sys.stdout = sys.stdout, sys.stderr\n"
    "exec(compile(sys.argv[1], 'tool', 'exec'), namespace)\n"
    "result = namespace['run'](json.loads(sys.argv[2]))\n"
    "sys.stdout = real_stdout\n"
    "print(result if isinstance(result, str) else json.dumps(result, default=str))\n"
)
_SCALAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ActingLimits:
    """Bounds of one acting attempt: model turns, one command's time, one observation, the context sent."""

    max_turns: int = 30
    timeout_s: float = 60.0
    max_observation_chars: int = 3000
    max_context_chars: int = 9000
    max_tokens: int = 1024
    temperature: float = 0.0


@dataclass
class ActingResult:
    """What the attempt produced: its output, the steps (every call and observation), the conversation."""

    output: str
    steps: list[dict[str, Any]]
    conversation: list[Message]
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"
    turns: int = 0
    stop_reason: str = "final"
    submitted: bool = False


def call_steps(result: ToolLoopResult) -> list[dict[str, Any]]:
    """One trajectory step per tool call the loop executed: the call, its output or error."""
    return [{"type": "tool_call", "name": e.call.name, "arguments": e.call.arguments, "output": e.output,
             "error": e.error} for e in result.executed]


def tool_command(entry: ToolEntry, arguments: dict[str, Any]) -> str:
    """The shell command that runs `entry` with `arguments` in the environment."""
    source = read_regular_text(entry.path)
    payload = json.dumps(arguments, default=str)
    if not entry.is_script:
        return f"python3 -c {shlex.quote(_PY_RUNNER)} {shlex.quote(source)} {shlex.quote(payload)}"
    scalars = {f"ARG_{key}": value for key, value in arguments.items()
               if _SCALAR_NAME.match(key) and isinstance(value, (str, int, float, bool))}
    assignments = " ".join(f"{name}={shlex.quote(str(value))}" for name, value in scalars.items())
    return f"TOOL_ARGS={shlex.quote(payload)} {assignments} bash -c {shlex.quote(source)} {shlex.quote(entry.name)}"


def environment_scripts(entries: list[ToolEntry], environment: TaskEnvironment, limits: ActingLimits) -> list[Tool]:
    """The registry's tools as Tools that run in `environment`; the model sees the output and the exit code."""

    def runner(entry: ToolEntry) -> Tool:
        def call(arguments: dict[str, Any]) -> str:
            result = environment.exec(tool_command(entry, arguments), timeout_s=limits.timeout_s)
            return clip(redact(result.render()), limits.max_observation_chars)

        return Tool(ToolSpec(entry.name, entry.description, entry.parameters), call)

    return [runner(entry) for entry in entries]


def act(client: LLMClient, system: str, task_input: str, environment: TaskEnvironment, limits: ActingLimits,
        output: OutputMode = "answer", workspace_tools: list[ToolEntry] | None = None,
        task_tools: list[Tool] | None = None) -> ActingResult:
    """Run the acting loop for one task in `environment` (see the module docstring); `task_tools` (the task's
    own, such as its MCP servers' tools) are offered after the others."""
    submission = Submission()
    builtin = EnvironmentTools(environment, submission, limits.timeout_s, limits.max_observation_chars).tools()
    own = environment_scripts(workspace_tools or [], environment, limits)
    names = {t.name for t in own}
    tools = [t for t in builtin if t.name not in names] + own + list(task_tools or [])
    where = f"You are working in {environment.workdir} (the task's files; your commands run there)."
    conversation = [Message("system", system), Message("user", f"{task_input}\n\n{where}")]
    acting = ActingClient(client, limits.max_context_chars)
    steps: list[dict[str, Any]] = []
    usage, turns, reminders = Usage(), 0, 0
    while True:
        result = run_tool_loop(acting, conversation, tools, max_turns=limits.max_turns - turns,
                               max_tokens=limits.max_tokens, temperature=limits.temperature,
                               should_stop=lambda: submission.submitted)
        steps += call_steps(result)
        usage, turns, conversation = usage + result.usage, turns + result.turns, result.messages
        if result.stop_reason != "final" or turns >= limits.max_turns or reminders >= REMINDERS:
            break
        reminders += 1
        conversation.append(Message("user", CONTINUE))
        steps.append({"type": "reminder", "after_turn": turns})
    answer = submission.summary or result.text
    finish = result.last.finish_reason if result.last is not None else "stop"
    return ActingResult(environment.diff() if output == "diff" else answer, steps, conversation, usage, finish, turns,
                        result.stop_reason, submission.submitted)
