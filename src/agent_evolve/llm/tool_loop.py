"""The tool-calling loop, the same for every provider: run requested tools, feed results back, stop."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import jsonschema

from agent_evolve.llm.base import UNPARSED_ARGUMENTS, Completion, LLMClient, Message, ToolCall, ToolSpec
from agent_evolve.llm.errors import ToolLoopError
from agent_evolve.types import Usage

log = logging.getLogger(__name__)

StopReason = Literal["final", "max_turns", "stopped"]


@dataclass
class Tool:
    """A callable tool: its spec for the model and a function from the model's arguments to a text result."""

    spec: ToolSpec
    fn: Callable[[dict], str]

    @property
    def name(self) -> str:
        return self.spec.name


@dataclass
class ToolExecution:
    """One tool call the loop handled, with what it returned (or the error text the model was shown); ``ran`` is
    False when the loop refused it (an unknown tool, arguments off the schema) without calling the tool."""

    call: ToolCall
    output: str
    error: bool = False
    ran: bool = True


@dataclass
class ToolLoopResult:
    """How a tool loop ended: the final text, the whole conversation and every tool call it ran."""

    text: str
    messages: list[Message]
    executed: list[ToolExecution] = field(default_factory=list)
    turns: int = 0
    stop_reason: StopReason = "final"
    usage: Usage = field(default_factory=Usage)
    last: Completion | None = None


def _execute(call: ToolCall, tools: dict[str, Tool]) -> ToolExecution:
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        return ToolExecution(call, f"Error: unknown tool {call.name!r}; available tools: {known}", error=True,
                             ran=False)
    unparsed = call.arguments.get(UNPARSED_ARGUMENTS) if len(call.arguments) == 1 else None
    if isinstance(unparsed, str):
        return ToolExecution(call, f"Error: the arguments for {call.name} are not valid JSON: {unparsed[:200]!r}; "
                                   "send them as one JSON object", error=True, ran=False)
    try:
        jsonschema.validate(call.arguments, tool.spec.parameters)
    except jsonschema.ValidationError as exc:
        return ToolExecution(call, f"Error: invalid arguments for {call.name}: {exc.message}", error=True,
                             ran=False)
    except jsonschema.SchemaError:
        log.warning("tool %s has an invalid parameters schema; calling it without validation", call.name)
    try:
        result = tool.fn(call.arguments)
    except Exception as exc:  # a failing tool is reported to the model, not raised
        return ToolExecution(call, f"Error: tool {call.name} raised {type(exc).__name__}: {exc}", error=True)
    return ToolExecution(call, result if isinstance(result, str) else json.dumps(result, default=str))


def run_tool_loop(client: LLMClient, messages: list[Message], tools: list[Tool], *, max_turns: int = 10,
                  max_tokens: int | None = None, temperature: float = 0.0,
                  should_stop: Callable[[], bool] | None = None) -> ToolLoopResult:
    """Ask the model, run the tools it calls, feed results back, until a reply has no calls, `max_turns`, or
    `should_stop()` after a turn ("stopped"); client errors propagate, tool failures become error text."""
    if max_turns < 1:
        raise ToolLoopError(f"max_turns must be at least 1, got {max_turns}")
    by_name: dict[str, Tool] = {}
    for tool in tools:
        if tool.name in by_name:
            raise ToolLoopError(f"two tools are named {tool.name!r}")
        by_name[tool.name] = tool
    specs = [t.spec for t in tools]
    conversation = list(messages)
    result = ToolLoopResult(text="", messages=conversation)
    for _ in range(max_turns):
        completion = client.complete(conversation, tools=specs or None, max_tokens=max_tokens,
                                     temperature=temperature)
        result.turns += 1
        result.usage = result.usage + completion.usage
        result.last = completion
        result.text = completion.text
        conversation.append(Message("assistant", completion.text, tool_calls=list(completion.tool_calls)))
        if not completion.tool_calls:
            result.stop_reason = "final"
            return result
        for call in completion.tool_calls:
            execution = _execute(call, by_name)
            result.executed.append(execution)
            conversation.append(Message("tool", execution.output, tool_call_id=call.id, name=call.name))
        if should_stop is not None and should_stop():
            result.stop_reason = "stopped"
            return result
    result.stop_reason = "max_turns"
    return result
