"""Tool calling for Qwen2.5-style local models: tools rendered into the system prompt, <tool_call> parsed back."""

from __future__ import annotations

import json
import re
import uuid

from agent_evolve.llm.base import Message, ToolCall, ToolSpec
from agent_evolve.llm.providers._common import decode_arguments
from agent_evolve.text.fences import JSON_OBJECT_BLOCK, WHOLE_JSON_FENCE

DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."

_TOOLS_HEADER = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
_TOOLS_FOOTER = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)
# Small models tend to repeat a call after its result; this line after each group of results stops that.
RESULTS_NUDGE = (
    "The tool results are above. Answer the user's request using them; call a tool again only if more results "
    "are needed."
)
# Small models also wrap a call in the <tools> tags of the prompt; such a block counts only for a known tool.
_CALL_BLOCK = re.compile(r"<(tool_call|tools)>\s*(.*?)\s*(?:</\1>|$)", re.DOTALL)


def to_chat_messages(messages: list[Message], tools: list[ToolSpec] | None) -> list[dict[str, str]]:
    """Plain role/content dicts any chat template accepts, with tools, calls and results written as Qwen text."""
    out: list[dict[str, str]] = []
    rest = messages
    if tools:
        system = DEFAULT_SYSTEM
        if messages and messages[0].role == "system":
            system, rest = messages[0].content, messages[1:]
        signatures = "\n".join(json.dumps({"type": "function", "function": {  # one line each, as Qwen2.5 was trained
            "name": t.name, "description": t.description, "parameters": t.parameters}}, ensure_ascii=False)
            for t in tools)
        out.append({"role": "system", "content": f"{system}\n\n{_TOOLS_HEADER}{signatures}{_TOOLS_FOOTER}"})
    result_turns: set[int] = set()
    for msg in rest:
        if msg.role == "tool":
            block = f"<tool_response>\n{msg.content}\n</tool_response>"
            if len(out) - 1 in result_turns:
                out[-1]["content"] += "\n" + block
            else:
                result_turns.add(len(out))
                out.append({"role": "user", "content": block})
        elif msg.role == "assistant" and msg.tool_calls:
            parts = [msg.content.strip()] if msg.content.strip() else []
            for call in msg.tool_calls:
                payload = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
                parts.append(f"<tool_call>\n{payload}\n</tool_call>")
            out.append({"role": "assistant", "content": "\n".join(parts)})
        else:
            out.append({"role": msg.role, "content": msg.content})
    for index in result_turns:
        out[index]["content"] += "\n\n" + RESULTS_NUDGE
    return out


def _call_in(body: str, tool_names: set[str] | None) -> ToolCall | None:
    """The call that `body`, a JSON object (maybe in a ```json fence), makes; None when it makes none."""
    fenced = WHOLE_JSON_FENCE.match(body)
    try:
        payload = json.loads(fenced.group(1) if fenced else body)
    except ValueError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("name"), str):
        return None
    if not set(payload) <= {"name", "arguments", "parameters"}:
        return None  # e.g. a model echoing a call together with its "result" is not a new call
    if tool_names is not None and payload["name"] not in tool_names:
        return None
    args = decode_arguments(payload.get("arguments", payload.get("parameters", {})))
    return ToolCall(id="call_" + uuid.uuid4().hex[:12], name=payload["name"], arguments=args)


def parse_tool_calls(text: str, tool_names: set[str] | None = None) -> tuple[str, list[ToolCall]]:
    """Split a reply into its plain text and its <tool_call> blocks (unparseable ones stay text); as small models drop
    the tags, a reply that is only a JSON call of a known tool, or else its first ```json block calling one, counts."""
    calls: list[ToolCall] = []

    def take(match: re.Match[str]) -> str:
        call = _call_in(match.group(2).strip(), None if match.group(1) == "tool_call" else tool_names or set())
        calls.extend([call] if call is not None else [])
        return match.group(0) if call is None else ""

    remaining = _CALL_BLOCK.sub(take, text).strip()
    if not calls and tool_names:
        bare = _call_in(remaining, tool_names)
        if bare is not None:
            return "", [bare]
        # The 1.5B model often writes its plan in prose with the call in a ```json block: the first block calling a
        # known tool is the call (later ones plan on results it has not seen yet), the prose before it the text.
        for match in JSON_OBJECT_BLOCK.finditer(remaining):
            fenced = _call_in(match.group(1), tool_names)
            if fenced is not None:
                return remaining[:match.start()].strip(), [fenced]
    return remaining, calls
