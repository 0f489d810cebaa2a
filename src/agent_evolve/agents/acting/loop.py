"""One acting attempt: the tool loop over a task environment with the built-in and workspace tools (a workspace tool
replaces a built-in of its name), until `submit`, a reply without a call, or `max_turns`. A reply without a call
before `submit` gets a reminder (at most `REMINDERS`): small models often stop to talk after one result. The output
is the environment's `diff()` (`output: diff`) or the submitted summary, else the last reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agent_evolve.agents.acting.env_scripts import environment_scripts
from agent_evolve.agents.acting.env_tools import EnvironmentTools, Submission
from agent_evolve.agents.acting.replies import ActingClient
from agent_evolve.contract.tool_entries import ToolEntry
from agent_evolve.environments.task_env import TaskEnvironment
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.tool_loop import Tool, ToolLoopResult, run_tool_loop
from agent_evolve.types import Usage

OutputMode = Literal["answer", "diff"]
# How many times a reply without a tool call, before `submit`, is answered with `CONTINUE` instead of ending
REMINDERS = 2
CONTINUE = ("You have not submitted yet. Continue with a tool call (bash, view, edit, create, search); "
            "call submit when the task is done.")


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


def task_message(task_input: str, environment: TaskEnvironment) -> str:
    """The task as the model reads it, with where its commands run."""
    return f"{task_input}\n\nYou are working in {environment.workdir} (the task's files; your commands run there)."


def act(client: LLMClient, system: str, task_input: str, environment: TaskEnvironment, limits: ActingLimits,
        output: OutputMode = "answer", workspace_tools: list[ToolEntry] | None = None,
        task_tools: list[Tool] | None = None) -> ActingResult:
    """Run the acting loop for one task in `environment` (see the module docstring); `task_tools` (the task's
    own, such as its MCP servers' tools) are offered after the others."""
    submission = Submission()
    builtin = EnvironmentTools(environment, submission, limits.timeout_s, limits.max_observation_chars).tools()
    own = environment_scripts(workspace_tools or [], environment, timeout_s=limits.timeout_s,
                              max_observation_chars=limits.max_observation_chars)
    names = {t.name for t in own}
    tools = [t for t in builtin if t.name not in names] + own + list(task_tools or [])
    conversation = [Message("system", system), Message("user", task_message(task_input, environment))]
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
