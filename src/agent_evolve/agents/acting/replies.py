"""What an acting agent sends to its model and takes back: a bounded conversation (`compact`), and a reply without
calls read for one (a `<tool_call>` block, bare JSON, else a ```bash block), as small models often write commands."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import replace

from agent_evolve.llm.base import Completion, LLMClient, Message, ToolCall, ToolSpec
from agent_evolve.llm.qwen_tools import parse_tool_calls
from agent_evolve.text.fences import SHELL_BLOCK

SHELL_TOOL = "bash"
NEXT_STEP = "Next step: call one tool (bash, view, edit, create, search), or submit if the task is done."
ELIDED_CHARS = 300  # what is left of an old tool result once it is shortened
_ECHOED_RESULT = re.compile(r"<tool_response>.*?(?:</tool_response>|$)", re.DOTALL)


def calls_in_text(text: str, tool_names: set[str]) -> list[ToolCall]:
    """The tool calls a plain-text reply makes: tagged or bare JSON calls, else its first shell block."""
    _, calls = parse_tool_calls(text, tool_names)
    known = [c for c in calls if c.name in tool_names]
    if known:
        return known
    match = SHELL_BLOCK.search(text)
    if match and SHELL_TOOL in tool_names and match.group(1).strip():
        command = "\n".join(line.removeprefix("$ ") for line in match.group(1).strip().splitlines())
        return [ToolCall("call_" + uuid.uuid4().hex[:12], SHELL_TOOL, {"command": command})]
    return []


def _size(message: Message) -> int:
    return len(message.content) + sum(len(json.dumps(c.arguments, default=str)) for c in message.tool_calls)


def compact(messages: list[Message], max_chars: int) -> list[Message]:
    """`messages` within about `max_chars`, keeping the first two (system, task) and the last turn whole: older tool
    results are cut to their head, then whole old turns dropped, oldest first, with one note saying so."""
    out = list(messages)
    total = sum(_size(m) for m in out)
    last_turn = max((i for i, m in enumerate(out) if m.role == "assistant"), default=len(out))
    for index in range(2, last_turn):
        if total <= max_chars:
            return out
        message = out[index]
        if message.role == "tool" and len(message.content) > ELIDED_CHARS:
            short = message.content[:ELIDED_CHARS] + "\n[... older output elided]"
            total -= len(message.content) - len(short)
            out[index] = replace(message, content=short)
    dropped = 0
    while total > max_chars:
        turn = _oldest_droppable_turn(out)
        if turn is None:
            break
        start, end = turn
        total -= sum(_size(m) for m in out[start:end])
        del out[start:end]
        dropped += 1
    if dropped:
        out.insert(2, Message("user", f"[{dropped} earlier step(s) left out to fit the context]"))
    return out


def _oldest_droppable_turn(messages: list[Message]) -> tuple[int, int] | None:
    """`(start, end)` of the oldest assistant turn and its results after the task, unless it is the last turn."""
    starts = [i for i, m in enumerate(messages) if m.role == "assistant" and i >= 2]
    if len(starts) < 2:
        return None
    start = starts[0]
    end = start + 1
    while end < len(messages) and messages[end].role == "tool":
        end += 1
    return start, end


class ActingClient:
    """An LLMClient around another: sends a compacted conversation and turns commands in plain text into calls."""

    def __init__(self, inner: LLMClient, max_context_chars: int) -> None:
        self.inner = inner
        self.model = inner.model
        self.max_context_chars = max_context_chars

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None, max_tokens: int | None = None,
                 temperature: float = 0.0, stop: list[str] | None = None) -> Completion:
        """The inner model's reply; a reply without calls but with a command in its text carries that call."""
        sent = compact(messages, self.max_context_chars)
        if tools and sent and sent[-1].role == "tool":
            sent.append(Message("user", NEXT_STEP))
        completion = self.inner.complete(sent, tools=tools, max_tokens=max_tokens, temperature=temperature,
                                         stop=stop)
        if completion.tool_calls or not tools:
            return completion
        text = _ECHOED_RESULT.sub("", completion.text).strip()
        calls = calls_in_text(text, {t.name for t in tools})
        return replace(completion, text=text, tool_calls=calls, finish_reason="tool_calls" if calls else
                       completion.finish_reason)
