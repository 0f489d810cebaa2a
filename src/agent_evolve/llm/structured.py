"""JSON answers validated against a schema, with one repair attempt before a typed error."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from agent_evolve.errors import AgentEvolveError
from agent_evolve.io.safe_json import MAX_JSON_DEPTH, parse_json, too_deep
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.errors import StructuredOutputError
from agent_evolve.llm.models import parse_model
from agent_evolve.text.fences import JSON_BLOCK

MAX_REPLY_CHARS = 1_000_000


def extract_json(text: str) -> Any:
    """The JSON value in a reply: the last ```json fence, else the whole text, else the first {...} or [...];
    ValueError when none parses or it exceeds the JSON size and depth limits."""
    if len(text) > MAX_REPLY_CHARS:
        raise ValueError(f"the reply is {len(text)} characters long; the limit is {MAX_REPLY_CHARS}")
    candidates = [m.strip() for m in reversed(JSON_BLOCK.findall(text))] + [text.strip()]
    for candidate in candidates:
        try:
            return parse_json(candidate, "reply")
        except AgentEvolveError:
            continue
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char in "{[":
            try:
                value = decoder.raw_decode(text, index)[0]
            except RecursionError:
                break
            except ValueError:
                continue
            if too_deep(value):
                raise ValueError(f"the JSON in the reply is nested deeper than {MAX_JSON_DEPTH} levels")
            return value
    raise ValueError("no JSON value found in the reply (or it is nested too deep)")


def _problem(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    try:
        value = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return value, f"at {where}: {exc.message}"
    return value, None


def complete_json(client: LLMClient, messages: list[Message], schema: dict[str, Any], *,
                  max_tokens: int | None = None) -> Any:
    """Ask for JSON matching schema, showing the model its problem once; the parsed value, or StructuredOutputError
    carrying the last raw text."""
    note = "Reply with only a JSON value matching this JSON Schema:\n" + json.dumps(schema)
    conversation = list(messages)  # the schema goes into the last user turn, or a turn of its own
    if conversation and conversation[-1].role == "user":
        conversation[-1] = Message("user", f"{conversation[-1].content}\n\n{note}")
    else:
        conversation.append(Message("user", note))
    for _ in range(2):  # the first answer, then one repair
        completion = client.complete(conversation, max_tokens=max_tokens)
        value, problem = _problem(completion.text, schema)
        if problem is None:
            return value
        if completion.truncated:
            problem += f" (the reply was cut at its length limit, max_tokens={max_tokens})"
        conversation += [
            Message("assistant", completion.text),
            Message("user", f"That reply was not valid: {problem}. Reply again with only the corrected JSON."),
        ]
    try:
        ref = parse_model(client.model)
        provider, model = ref.provider, ref.name
    except ValueError:
        provider, model = "unknown", client.model
    raise StructuredOutputError(
        f"no valid JSON after one repair attempt: {problem}", provider=provider, model=model, raw_text=completion.text
    )
